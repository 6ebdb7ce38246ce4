//! Qwen Code: UserPromptSubmit (working), PermissionRequest (attention) and
//! Stop (done), merged into `~/.qwen/settings.json` (Claude-compatible
//! grouped shape, timeouts in seconds). Qwen blocks under `✳︎ Qwen`, the
//! glyph Claude Code uses for idle, so the attention hook is what tells
//! blocked from idle for sure. After an approved tool Qwen fires
//! UserPromptSubmit again with `prompt: ""` (0.24.4): that working is the
//! resume from needs you, so it is reported too.
//!
//! Transport: the script writes to `$TERMIC_PTY` by name. Qwen runs hooks
//! detached with no controlling terminal, and drops `terminalSequence` on
//! every event termic registers (measured on 0.24.4).

use termic_signal::wire::{field, HookEvent};

use super::script::{session_and_message, PayloadRule, ScriptSpec, SESSION_ID};
use super::{AgentAdapter, AgentSchema, ConfigEntry, HookRegistration, Support};

pub struct Qwen;

impl AgentSchema {
    pub const QWEN: AgentSchema = AgentSchema(&Qwen);
}

/// Stop: the conversation id and the turn's answer,
/// `last_assistant_message` (0.24.4, Claude's key).
const STOP: PayloadRule = PayloadRule::Shell {
    logic: |flat| session_and_message(flat, "session_id", "last_assistant_message"),
    may_send_error: false,
};

static REGISTRATIONS: [HookRegistration; 3] = [
    HookRegistration {
        event: "UserPromptSubmit",
        script: ScriptSpec::pty(
            "qwen",
            "UserPromptSubmit",
            "tells termic a turn started.",
            HookEvent::Working,
            &[],
            SESSION_ID,
        ),
        file_name: "user-prompt-submit.sh",
        status_message: "termic: reporting that a turn started",
    },
    HookRegistration {
        event: "PermissionRequest",
        script: ScriptSpec::pty(
            "qwen",
            "PermissionRequest",
            "tells termic a permission prompt waits for you.",
            HookEvent::Attention,
            &[(field::KIND, "permission")],
            PayloadRule::None,
        ),
        file_name: "permission-request.sh",
        status_message: "termic: reporting that you are needed",
    },
    HookRegistration {
        event: "Stop",
        script: ScriptSpec::pty(
            "qwen",
            "Stop",
            "tells termic the turn ended, with its answer.",
            HookEvent::Done,
            &[],
            STOP,
        ),
        file_name: "stop.sh",
        status_message: "termic: reporting that the turn ended",
    },
];

impl AgentAdapter for Qwen {
    fn id(&self) -> &'static str {
        "qwen"
    }
    fn support(&self) -> Support {
        Support::Hooks(AgentSchema::QWEN)
    }
    fn home_config_dir(&self) -> &'static str {
        ".qwen"
    }
    fn registrations(&self) -> &'static [HookRegistration] {
        &REGISTRATIONS
    }
    fn config_entry(&self) -> ConfigEntry {
        ConfigEntry::MergeGrouped {
            file: "settings.json",
        }
    }
}
