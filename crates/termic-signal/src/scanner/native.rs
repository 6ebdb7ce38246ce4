//! OSC 7501 program status: `7501;?` probes, `7501;state=..:app=..[:k=v]..` reports.
//!
//! Measured on Claude Code 2.1.332 and Codex 0.171.0 (real-agents README):
//! fields are colon-separated `key=value`, `state` first; `msg` and `title`
//! are base64. A report with an unknown or missing state is ignored, so a
//! future state cannot be misread as one we know. A `msg` or `title` that is
//! not valid base64 is reported as absent; the state still counts.

use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::Engine;

use super::osc::{join, lossy, parse_u8};
use crate::signal::{NativeState, ProgramStatus, Signal};

/// Standard alphabet, padding optional: agents differ and a missing `=` is
/// not worth losing a message over.
pub(super) const BASE64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// Parse the parameters after `7501`.
pub(super) fn parse(rest: &[&[u8]]) -> Option<Signal> {
    // The data has no `;` of its own, but rejoin in case a sender adds one.
    let data = join(rest);
    if data.starts_with('?') {
        return Some(Signal::NativeProbe);
    }
    let mut state = None;
    let mut status = ProgramStatus {
        state: NativeState::Idle,
        app: None,
        kind: None,
        id: None,
        progress: None,
        message: None,
        title: None,
    };
    for field in data.split(':') {
        let Some((key, value)) = field.split_once('=') else {
            continue;
        };
        // First occurrence wins; a repeated key cannot override it.
        match key {
            "state" if state.is_none() => state = Some(parse_state(value)?),
            "app" => set_once(&mut status.app, || Some(value.to_string())),
            "kind" => set_once(&mut status.kind, || Some(value.to_string())),
            "id" => set_once(&mut status.id, || Some(value.to_string())),
            "progress" => set_once(&mut status.progress, || {
                parse_u8(value.as_bytes()).filter(|p| *p <= 100)
            }),
            "msg" => set_once(&mut status.message, || decode(value)),
            "title" => set_once(&mut status.title, || decode(value)),
            _ => {}
        }
    }
    status.state = state?;
    Some(Signal::Native(status))
}

fn set_once<T>(slot: &mut Option<T>, value: impl FnOnce() -> Option<T>) {
    if slot.is_none() {
        *slot = value();
    }
}

fn parse_state(value: &str) -> Option<NativeState> {
    Some(match value {
        "working" => NativeState::Working,
        "blocked" => NativeState::Blocked,
        "done" => NativeState::Done,
        "idle" => NativeState::Idle,
        "clear" => NativeState::Clear,
        "error" => NativeState::Error,
        _ => return None,
    })
}

/// Base64 to lossy UTF-8; `None` when it is not base64.
fn decode(value: &str) -> Option<String> {
    BASE64.decode(value).ok().map(lossy)
}
