//! OSC 7501 program status: the agent's own report, ranked with hooks.
//! From the first report on, the heuristics stand down for this task.

use crate::engine::types::{Attention, LogKind, Rule, State, Transition};
use crate::engine::Engine;
use crate::signal::{NativeState, ProgramStatus};

impl Engine {
    pub(in crate::engine) fn on_native(
        &mut self,
        now: u64,
        status: ProgramStatus,
        out: &mut Vec<Transition>,
    ) {
        if !self.native_seen {
            self.native_seen = true;
            self.log.push(
                now,
                LogKind::Fact,
                "native status seen: it owns the turn, the heuristics stand down".to_string(),
            );
        }
        let summary = describe(&status);
        self.log
            .push(now, LogKind::Signal, format!("native {summary}"));
        match status.state {
            NativeState::Working => {
                self.refresh_token(now);
                self.cancel_pending_attention(now, "native working");
                self.go(now, State::Working, Rule::NativeWorking, summary, None, out);
            }
            NativeState::Blocked => {
                let attention = Attention {
                    kind: status.kind,
                    message: status.message,
                };
                self.raise_attention(now, Rule::NativeBlocked, summary, attention, out);
            }
            NativeState::Done if self.state.in_turn() => {
                self.end_turn(now, Rule::NativeDone, summary, out);
            }
            NativeState::Idle if self.state.in_turn() => {
                let detail = "idle after working without a done".to_string();
                self.go(now, State::Interrupted, Rule::NativeIdle, detail, None, out);
            }
            NativeState::Clear if self.state.in_turn() => {
                let detail = "status cleared during a turn".to_string();
                self.go(
                    now,
                    State::Interrupted,
                    Rule::NativeClear,
                    detail,
                    None,
                    out,
                );
            }
            NativeState::Done | NativeState::Idle | NativeState::Clear => {}
        }
    }
}

/// `blocked kind=permission` style summary (the message goes in the attention).
fn describe(status: &ProgramStatus) -> String {
    let state = match status.state {
        NativeState::Working => "working",
        NativeState::Blocked => "blocked",
        NativeState::Done => "done",
        NativeState::Idle => "idle",
        NativeState::Clear => "clear",
    };
    match &status.kind {
        Some(kind) => format!("{state} kind={kind}"),
        None => state.to_string(),
    }
}
