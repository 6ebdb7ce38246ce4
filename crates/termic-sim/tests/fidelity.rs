//! Fidelity tests: each simulated agent behaves the way the real one was
//! measured to (plan appendix, real-agents/README.md), through a real PTY.

mod harness;

mod fidelity {
    mod agy;
    mod claude;
    mod codex;
    mod grok;
    mod opencode;
}
