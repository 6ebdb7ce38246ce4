//! Grok: UserPromptSubmit (working), Notification (attention, only for
//! `notificationType` permission_prompt), Stop (done) and StopCancelled
//! (interrupted; grok 1.0.5, skipped as unknown by 0.2.111), in termic's own
//! `~/.grok/hooks/termic.json` (Claude-compatible shape, removal is a delete).
//!
//! Transport: the script writes the raw sequence to `$TERMIC_PTY` by name.
//! Grok runs hooks with no controlling terminal, so `/dev/tty` fails
//! (measured on 1.0.5).

use termic_signal::wire::{field, HookEvent};

use super::script::{reason_case, session_and_message, PayloadRule, ScriptSpec, SESSION_ID_CAMEL};
use super::{AgentAdapter, AgentSchema, ConfigEntry, Findings, HookRegistration, Support};
use crate::plan::Snapshot;
use crate::target::{InstallTarget, TargetKind};

pub struct Grok;

impl AgentSchema {
    pub const GROK: AgentSchema = AgentSchema(&Grok);
}

/// The Settings row's help: grok runs Claude's hooks too; this is the
/// user's way out.
pub const SETTINGS_HELP: &str =
    "Grok also runs Claude's hooks. To stop that: [compat.claude] hooks = false in ~/.grok/config.toml";

/// Grok's own config, read (never written) for the Claude-hooks opt-out.
pub const CONFIG_TOML: &str = "config.toml";

const fn grok_script(
    hook: &'static str,
    purpose: &'static str,
    event: HookEvent,
    static_fields: &'static [(&'static str, &'static str)],
    payload: PayloadRule,
) -> ScriptSpec {
    ScriptSpec::pty("grok", hook, purpose, event, static_fields, payload)
}

/// Notification: attention for `notificationType` permission_prompt; an
/// `error` with the reason for `agent_error` (grok 0.2.111 gave up on an API
/// error: it fires no Stop then); silent for anything else (never
/// idle_prompt, which fires on every turn end).
const NOTIFICATION: PayloadRule = PayloadRule::Shell {
    logic: |flat| {
        format!(
            "note=$({flat})\n\
                 extra=''\n\
                 kind() {{ printf '%s\\n' \"$note\" | grep -q \"\\\"notificationType\\\" *: *\\\"$1\\\"\"; }}\n\
                 if kind permission_prompt; then\n\
                 \x20 :\n\
                 elif kind agent_error; then\n\
                 \x20 # 0.2.111: message \"API error (status 429 Too Many Requests): ...\"\n\
                 \x20 mode=error\n\
                 {case}\
                 else\n\
                 \x20 exit 0\n\
                 fi\n",
            case = reason_case(
                "  ",
                "$note",
                [
                    "*'(status 429'*",
                    "*'(status 529'*",
                    "*'(status 5'[0-9][0-9]*",
                    "*'(status 401'*|*'(status 403'*|*Authentication*",
                ],
            ),
        )
    },
    may_send_error: true,
};

/// Stop: the conversation id and the turn's answer,
/// `lastAssistantMessage` (0.2.111's camelCase payload).
const STOP: PayloadRule = PayloadRule::Shell {
    logic: |flat| session_and_message(flat, "sessionId", "lastAssistantMessage"),
    may_send_error: false,
};

static REGISTRATIONS: [HookRegistration; 4] = [
    HookRegistration {
        event: "UserPromptSubmit",
        script: grok_script(
            "UserPromptSubmit",
            "tells termic a turn started.",
            HookEvent::Working,
            &[],
            SESSION_ID_CAMEL,
        ),
        file_name: "user-prompt-submit.sh",
        status_message: "termic: reporting that a turn started",
    },
    HookRegistration {
        event: "Notification",
        script: grok_script(
            "Notification",
            "tells termic a permission prompt waits for you, or that an API error stopped the turn.",
            HookEvent::Attention,
            &[(field::KIND, "permission")],
            NOTIFICATION,
        ),
        file_name: "notification.sh",
        status_message: "termic: reporting that you are needed",
    },
    HookRegistration {
        event: "Stop",
        script: grok_script(
            "Stop",
            "tells termic the turn ended, with its answer.",
            HookEvent::Done,
            &[],
            STOP,
        ),
        file_name: "stop.sh",
        status_message: "termic: reporting that the turn ended",
    },
    HookRegistration {
        event: "StopCancelled",
        script: grok_script(
            "StopCancelled",
            "tells termic the turn was cancelled.",
            HookEvent::Interrupted,
            &[],
            PayloadRule::None,
        ),
        file_name: "stop-cancelled.sh",
        status_message: "termic: reporting that the turn was cancelled",
    },
];

impl AgentAdapter for Grok {
    fn id(&self) -> &'static str {
        "grok"
    }
    fn support(&self) -> Support {
        Support::Hooks(AgentSchema::GROK)
    }
    fn home_config_dir(&self) -> &'static str {
        ".grok"
    }
    fn extra_files(&self) -> &'static [&'static str] {
        &[CONFIG_TOML]
    }
    fn settings_help(&self) -> Option<&'static str> {
        Some(SETTINGS_HELP)
    }
    /// On the host, a note on whether grok also runs Claude's hooks.
    fn check_status(&self, target: &InstallTarget, snap: &Snapshot, found: &mut Findings) {
        if *target.kind() == TargetKind::Host {
            found.notes.push(claude_hooks_note(target, snap));
        }
    }
    fn registrations(&self) -> &'static [HookRegistration] {
        &REGISTRATIONS
    }
    fn config_entry(&self) -> ConfigEntry {
        ConfigEntry::OwnGrouped {
            file: "hooks/termic.json",
        }
    }
}

/// Whether grok runs the hooks in Claude's settings too, as a status note.
fn claude_hooks_note(target: &InstallTarget, snap: &Snapshot) -> String {
    let path = target.path(CONFIG_TOML);
    let note = match snap.file(&path) {
        None => Ok(false),
        Some(f) => std::str::from_utf8(&f.bytes)
            .map_err(|_| "not UTF-8 text".to_string())
            .and_then(claude_hooks_disabled),
    };
    match note {
        Ok(true) => format!(
            "grok ignores the hooks in ~/.claude/settings.json ([compat.claude] hooks = false in {})",
            path.display()
        ),
        Ok(false) => format!(
            "grok also runs the hooks in ~/.claude/settings.json (termic's stay silent there); to stop that, \
             set [compat.claude] hooks = false in {}",
            path.display()
        ),
        Err(e) => format!(
            "could not tell whether grok runs the hooks in ~/.claude/settings.json: {} is {e}",
            path.display()
        ),
    }
}

/// Whether `~/.grok/config.toml` turns off the hooks grok reads from
/// Claude's files (`[compat.claude] hooks = false`). Read only: termic never
/// writes grok's config. `Err` is one line: where the TOML is broken and why.
pub fn claude_hooks_disabled(config_toml: &str) -> Result<bool, String> {
    let doc: toml_edit::DocumentMut = config_toml.parse().map_err(|e: toml_edit::TomlError| {
        let at = e.span().map_or(0, |r| r.start);
        let (line, column) = crate::edit::line_column(config_toml, at);
        format!(
            "not valid TOML (line {line}, column {column}: {})",
            e.message().trim_end().replace('\n', "; ")
        )
    })?;
    Ok(doc
        .get("compat")
        .and_then(|c| c.get("claude"))
        .and_then(|c| c.get("hooks"))
        .and_then(|h| h.as_bool())
        == Some(false))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_claude_hooks_opt_out() {
        assert_eq!(claude_hooks_disabled(""), Ok(false));
        assert_eq!(
            claude_hooks_disabled("[compat.claude]\nhooks = false\n"),
            Ok(true)
        );
        assert_eq!(
            claude_hooks_disabled("[compat]\nclaude = { hooks = false }\n"),
            Ok(true)
        );
        assert_eq!(
            claude_hooks_disabled("[compat.claude]\nhooks = true\n"),
            Ok(false)
        );
        assert_eq!(
            claude_hooks_disabled("model = 1\n[compat.claude\n"),
            Err("not valid TOML (line 2, column 15: unclosed table, expected `]`)".into())
        );
    }
}
