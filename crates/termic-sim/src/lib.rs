//! Agent simulators for tests and `termic demo`.
//!
//! Each simulator behaves the way the plan's appendix measured the real agent
//! behaving: it reads that agent's real config path under `$HOME` with the
//! agent's schema rules, runs hooks as that agent does, and paints the titles
//! and OSC sequences the real agent paints.
