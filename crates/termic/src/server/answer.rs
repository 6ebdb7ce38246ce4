//! One-tap answers (issue 30): what a task that needs you is asked, the
//! choices its agent's dialog offers, and the `answer` request that sends
//! one choice's keys only while the screen still shows it.

use termic_signal::engine::{Engine, State};

use super::protocol::RowAttention;

/// The row's `attention`: the engine's, while the task needs you.
pub fn row_attention(engine: &Engine) -> Option<RowAttention> {
    if engine.state() != State::NeedsYou {
        return None;
    }
    let attention = engine.attention()?;
    let (message, from_output) = attention.message_parts();
    Some(RowAttention {
        kind: attention.kind.clone().unwrap_or_else(|| "unsure".into()),
        message: message.map(str::to_owned),
        from_output,
    })
}
