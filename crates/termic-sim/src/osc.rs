//! The sequences the simulated agents put on their terminal: window titles,
//! OSC 9 notifications, OSC 7501 program status, and Claude's allowlist for a
//! hook's `terminalSequence`. Pure builders and checks.

use base64::Engine as _;

pub const BEL: &str = "\x07";
pub const ST: &str = "\x1b\\";

/// OSC 0 (icon name and title), the only title form the agents use.
pub fn title(text: &str) -> String {
    format!("\x1b]0;{text}\x07")
}

/// OSC 9 desktop notification.
pub fn notify9(text: &str) -> String {
    format!("\x1b]9;{text}\x07")
}

/// The OSC 7501 probe Claude Code sends at start-up.
pub const NATIVE_PROBE: &str = "\x1b]7501;?\x1b\\";

/// True for the terminal's reply to the probe: an OSC 7501 whose data
/// starts with `?`.
pub fn is_probe_reply(osc: &str) -> bool {
    osc.strip_prefix("7501;")
        .is_some_and(|d| d.starts_with('?'))
}

/// The state an agent reports with OSC 7501.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NativeState {
    Idle,
    Working,
    Blocked { kind: &'static str, msg: String },
    Done,
    Clear,
}

/// `ESC ] 7501 ; state=... : app=... [: kind=... : msg=<base64>] <end>`.
pub fn native_status(state: &NativeState, app: &str, end: &str) -> String {
    let (name, extra) = match state {
        NativeState::Idle => ("idle", String::new()),
        NativeState::Working => ("working", String::new()),
        NativeState::Done => ("done", String::new()),
        NativeState::Clear => ("clear", String::new()),
        NativeState::Blocked { kind, msg } => (
            "blocked",
            format!(
                ":kind={kind}:msg={}",
                base64::engine::general_purpose::STANDARD.encode(msg)
            ),
        ),
    };
    format!("\x1b]7501;state={name}:app={app}{extra}{end}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn native_status_forms() {
        assert_eq!(
            native_status(&NativeState::Working, "claude-code", ST),
            "\x1b]7501;state=working:app=claude-code\x1b\\"
        );
        let blocked = NativeState::Blocked {
            kind: "permission",
            msg: "approve Write: /p/out.txt".into(),
        };
        assert_eq!(
            native_status(&blocked, "codex", BEL),
            "\x1b]7501;state=blocked:app=codex:kind=permission:msg=YXBwcm92ZSBXcml0ZTogL3Avb3V0LnR4dA==\x07"
        );
        assert!(is_probe_reply("7501;?"));
        assert!(!is_probe_reply("7501;state=idle"));
        assert!(!is_probe_reply("11;rgb:0/0/0"));
    }
}
