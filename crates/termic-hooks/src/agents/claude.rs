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

use termic_signal::wire::{self, HookEvent};

use super::script::{
    message_field, reason_case, session_field, PayloadRule, ScriptSpec, Transport, SESSION_ID,
};
use std::path::Path;

use super::{
    AgentAdapter, AgentSchema, ConfigEntry, Findings, HookRegistration, Support, VersionGate,
};
use crate::edit;
use crate::plan::{is_ours, PlanError, Snapshot};
use crate::status::Reason;
use crate::target::InstallTarget;

/// Oldest Claude Code whose hooks may print `terminalSequence`.
pub const MIN_VERSION: (u32, u32, u32) = (2, 1, 141);

pub struct Claude;

/// The settings file termic merges its hooks into, relative to `~/.claude`.
const SETTINGS: &str = "settings.json";

/// `disableAllHooks: true` in the settings: Claude runs no hook at all.
pub const ALL_HOOKS_OFF: &str = "disableAllHooks is set in {path}: Claude runs no hook";
pub const ALL_HOOKS_OFF_INSTALL: &str =
    "{path}: disableAllHooks is set, so Claude Code would run no hook at all; \
     termic installed nothing. Remove disableAllHooks from that file if you want termic's hooks";

impl AgentSchema {
    pub const CLAUDE: AgentSchema = AgentSchema(&Claude);
}

/// Install refuses, and status says not wired, below [`MIN_VERSION`].
pub static VERSION_GATE: VersionGate = VersionGate {
    product: "Claude Code",
    executable: "claude",
    min: MIN_VERSION,
    needs: "hook output (terminalSequence)",
    needs_short: "hook output",
    update: "claude update",
    parse: parse_version,
};

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
        silent_if: Some(SILENT_UNDER_GROK),
    }
}

/// grok also runs the hooks in `~/.claude/settings.json`, and its output
/// has no terminalSequence: stay silent when `GROK_HOOK_EVENT` is set.
const SILENT_UNDER_GROK: &str =
    "[ -z \"${GROK_HOOK_EVENT:-}\" ] || exit 0  # grok runs claude's hooks too\n";

/// PermissionRequest: `kind` from the first `tool_name` (AskUserQuestion is
/// question, ExitPlanMode is plan, else permission).
const ATTENTION_KIND: PayloadRule = PayloadRule::Shell {
    logic: |flat| {
        format!(
            "p=$({flat})\n\
                     # The first tool_name is the top-level one (it precedes tool_input).\n\
                     tool=$(printf '%s' \"$p\" | grep -o '\"tool_name\" *: *\"[A-Za-z0-9_.-]*\"' | head -n 1)\n\
                     case \"$tool\" in\n\
                     \x20 *'\"AskUserQuestion\"') kind=question ;;\n\
                     \x20 *'\"ExitPlanMode\"') kind=plan ;;\n\
                     \x20 *) kind=permission ;;\n\
                     esac\n\
                     extra=\";{key}=$kind\"\n{session}",
            key = wire::field::KIND,
            session = session_field("$p", "session_id"),
        )
    },
    may_send_error: false,
};

/// Stop: add `background=1` when `background_tasks` is a non-empty array
/// (the turn ended, background work has not), and the turn's answer,
/// `last_assistant_message`.
const BACKGROUND_TASKS: PayloadRule = PayloadRule::Shell {
    logic: |flat| {
        format!(
            "p=$({flat})\n\
                     extra=''\n\
                     if printf '%s' \"$p\" | grep -q '\"background_tasks\" *: *\\[ *[^] ]'; then\n\
                     \x20 extra=';{key}=1'\n\
                     fi\n{session}{message}",
            key = wire::field::BACKGROUND,
            session = session_field("$p", "session_id"),
            message = message_field("$p", LAST_MESSAGE),
        )
    },
    may_send_error: false,
};

/// The payload key of the turn's last message (Stop and StopFailure).
const LAST_MESSAGE: &str = "last_assistant_message";

/// StopFailure: `reason` from the payload's `error` (its matcher values:
/// rate_limit, overloaded, authentication_failed, server_error, ...;
/// anything else is api_error), and its `last_assistant_message`, the
/// error as Claude shows it: on a usage limit it names the reset ("...
/// Your limit resets at 15:00.", measured on 2.1.332), which the engine
/// reads as `until`.
const STOP_FAILURE_REASON: PayloadRule = PayloadRule::Shell {
    logic: |flat| {
        format!(
            "p=$({flat})\n\
             # Claude 2.1.332 names the error in \"error\" (its StopFailure matcher values).\n\
                 error=$(printf '%s' \"$p\" | grep -o '\"error\" *: *\"[a-z_]*\"' | head -n 1)\n{case}{message}",
            message = message_field("$p", LAST_MESSAGE),
            case = reason_case(
                "",
                "$error",
                [
                    "*'\"rate_limit\"'",
                    "*'\"overloaded\"'",
                    "*'\"server_error\"'",
                    "*'\"authentication_failed\"'|*'\"oauth_org_not_allowed\"'",
                ],
            ),
        )
    },
    may_send_error: false,
};

static REGISTRATIONS: [HookRegistration; 4] = [
    HookRegistration {
        event: "UserPromptSubmit",
        script: claude_script(
            "UserPromptSubmit",
            "tells termic a turn started.",
            HookEvent::Working,
            SESSION_ID,
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
            ATTENTION_KIND,
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
            BACKGROUND_TASKS,
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
                STOP_FAILURE_REASON,
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
        Support::Hooks(AgentSchema::CLAUDE)
    }
    fn home_config_dir(&self) -> &'static str {
        ".claude"
    }
    fn version_gate(&self) -> Option<&'static VersionGate> {
        Some(&VERSION_GATE)
    }
    fn registrations(&self) -> &'static [HookRegistration] {
        &REGISTRATIONS
    }
    fn config_entry(&self) -> ConfigEntry {
        ConfigEntry::MergeGrouped { file: SETTINGS }
    }
    /// Claude shows `statusMessage` while the hook runs.
    fn handler(&self, command: &str, reg: &HookRegistration) -> serde_json::Value {
        serde_json::json!({
            "type": "command",
            "command": command,
            "timeout": super::HOOK_TIMEOUT_SECS,
            "statusMessage": reg.status_message,
        })
    }
    fn refuse_install(
        &self,
        target: &InstallTarget,
        path: &Path,
        text: &str,
    ) -> Result<(), PlanError> {
        let q = edit::query_grouped_hooks(text, &is_ours(target)).map_err(|source| {
            PlanError::Config {
                path: path.to_path_buf(),
                source,
            }
        })?;
        if q.disable_all_hooks {
            return Err(PlanError::Refused {
                path: path.to_path_buf(),
                why: ALL_HOOKS_OFF_INSTALL,
            });
        }
        Ok(())
    }
    /// `disableAllHooks`, listed before the entries it turns off.
    fn check_status(&self, target: &InstallTarget, snap: &Snapshot, found: &mut Findings) {
        let path = target.path(SETTINGS);
        let off = snap
            .file(&path)
            .and_then(|f| std::str::from_utf8(&f.bytes).ok())
            .and_then(|t| edit::query_grouped_hooks(t, &is_ours(target)).ok())
            .is_some_and(|q| q.disable_all_hooks);
        if off {
            let at = found
                .reasons
                .iter()
                .position(|r| {
                    matches!(
                        r,
                        Reason::EntryMissing { .. }
                            | Reason::EntryWrong { .. }
                            | Reason::AgentTooOld { .. }
                    )
                })
                .unwrap_or(found.reasons.len());
            found.reasons.insert(
                at,
                Reason::Trap {
                    path,
                    why: ALL_HOOKS_OFF,
                    refuses_install: true,
                },
            );
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
