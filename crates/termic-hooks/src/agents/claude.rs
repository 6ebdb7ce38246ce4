//! Claude Code: UserPromptSubmit (working), PermissionRequest (attention,
//! kind from `tool_name`), Stop (done, `background=1` while background
//! tasks run) and StopFailure (error, `reason` from its `error`), merged
//! into `~/.claude/settings.json`.
//!
//! Transport is `terminalSequence` on stdout: Claude writes it to its own
//! PTY at a sane point of its render loop (needs Claude Code 2.1.141+ and a
//! synchronous hook). StopFailure is the exception: Claude ignores its
//! output ("fire-and-forget", measured on 2.1.332), so that script writes
//! to `$TERMIC_PTY` itself. Every script is silent under grok, which runs
//! the hooks of this file too.

use termic_signal::wire::HookEvent;

use super::script::{PayloadRule, ScriptSpec, Transport};
use super::{AgentAdapter, AgentSchema, ConfigEntry, HookRegistration, Support};

/// Oldest Claude Code whose hooks may print `terminalSequence`.
pub const MIN_VERSION: (u32, u32, u32) = (2, 1, 141);

pub struct Claude;

const fn claude_script(
    hook: &'static str,
    purpose: &'static str,
    event: HookEvent,
    payload: PayloadRule,
) -> ScriptSpec {
    ScriptSpec {
        agent: "claude",
        hook,
        purpose,
        event,
        static_fields: &[],
        payload,
        transport: Transport::TerminalSequence,
        silent_under_grok: true,
    }
}

static REGISTRATIONS: [HookRegistration; 4] = [
    HookRegistration {
        event: "UserPromptSubmit",
        script: claude_script(
            "UserPromptSubmit",
            "tells termic a turn started.",
            HookEvent::Working,
            PayloadRule::None,
        ),
        file_name: "user-prompt-submit.sh",
        status_message: "termic: reporting that a turn started",
    },
    HookRegistration {
        event: "PermissionRequest",
        script: claude_script(
            "PermissionRequest",
            "tells termic the agent is blocked on you.",
            HookEvent::Attention,
            PayloadRule::ClaudeAttentionKind,
        ),
        file_name: "permission-request.sh",
        status_message: "termic: reporting that you are needed",
    },
    HookRegistration {
        event: "Stop",
        script: claude_script(
            "Stop",
            "tells termic the turn ended.",
            HookEvent::Done,
            PayloadRule::ClaudeBackgroundTasks,
        ),
        file_name: "stop.sh",
        status_message: "termic: reporting that the turn ended",
    },
    HookRegistration {
        event: "StopFailure",
        script: ScriptSpec {
            transport: Transport::PtyByName,
            ..claude_script(
                "StopFailure",
                "tells termic the turn ended on an API error.",
                HookEvent::Error,
                PayloadRule::ClaudeStopFailureReason,
            )
        },
        file_name: "stop-failure.sh",
        status_message: "termic: reporting that the turn stopped on an error",
    },
];

impl AgentAdapter for Claude {
    fn id(&self) -> &'static str {
        "claude"
    }
    fn support(&self) -> Support {
        Support::Hooks(AgentSchema::Claude)
    }
    fn registrations(&self) -> &'static [HookRegistration] {
        &REGISTRATIONS
    }
    fn config_entry(&self) -> ConfigEntry {
        ConfigEntry::MergeClaudeShape {
            file: "settings.json",
        }
    }
}

/// Parse the first `X.Y.Z` out of `claude --version` output
/// (`2.1.332 (Claude Code)`).
pub fn parse_version(output: &str) -> Option<(u32, u32, u32)> {
    output.split_whitespace().find_map(|word| {
        let mut parts = word.split('.');
        let major = parts.next()?.parse().ok()?;
        let minor = parts.next()?.parse().ok()?;
        let patch: String = parts
            .next()?
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        Some((major, minor, patch.parse().ok()?))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_measured_version_output() {
        assert_eq!(parse_version("2.1.332 (Claude Code)\n"), Some((2, 1, 332)));
        assert_eq!(parse_version("claude 2.1.140-beta"), Some((2, 1, 140)));
        assert_eq!(parse_version("no version here"), None);
        assert!(parse_version("2.1.140").unwrap() < MIN_VERSION);
        assert!(parse_version("2.1.141").unwrap() >= MIN_VERSION);
    }

    #[test]
    fn never_registers_per_tool_call_events() {
        for r in Claude.registrations() {
            assert!(!r.event.contains("ToolUse") && r.event != "PostToolBatch");
        }
    }
}
