//! Fidelity tests: each simulated agent behaves the way the real one was
//! measured to (plan appendix, real-agents/README.md), through a real PTY.

mod harness;

mod fidelity {
    mod agy;
    /// Real termic hooks (installed by termic-hooks) run by the simulators.
    mod chain;
    mod claude;
    mod codex;
    mod copilot;
    mod gemini;
    mod grok;
    mod opencode;
    mod qwen;
}
