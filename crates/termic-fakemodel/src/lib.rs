//! A scripted local model server for driving real agent CLIs offline.
//!
//! It speaks the Anthropic Messages API (Claude Code), OpenAI chat
//! completions (opencode, grok, Qwen Code, Copilot's BYOK mode), the
//! Responses API (codex, grok's title call) and the Gemini API (Gemini CLI),
//! streaming except Gemini's `:generateContent`, and answers from a [`Scenario`]: the step of a
//! turn is how many tool calls the model already made since the user's
//! prompt, so after a tool result it answers with text and the turn ends.
//! Every request is logged ([`LogEntry`]) for assertions.

pub mod agents;
pub mod anthropic;
pub mod chat;
pub mod drive;
pub mod gemini;
pub mod http;
pub mod log;
pub mod pty;
pub mod recorder;
pub mod responses;
pub mod scenario;
pub mod server;
pub mod sse;
pub mod suite;
pub mod trace;
pub mod turn;

pub use log::LogEntry;
pub use scenario::{ApiFailure, ApiFamily, Scenario, ScenarioName};
pub use server::{FakeModel, FakeModelError, ServerConfig};
