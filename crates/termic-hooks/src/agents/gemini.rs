//! Gemini CLI: BeforeAgent (working), Notification (attention, only for
//! `notification_type` ToolPermission) and AfterAgent (done), merged into
//! `~/.gemini/settings.json` (Claude-compatible grouped shape, timeouts in
//! milliseconds). Gemini's title is right while it is blocked, but the pair
//! working/done is registered beside the attention event so the hooks alone
//! tell the whole turn (the plan's rule).
//!
//! Transport: the script writes to `$TERMIC_PTY` by name. Gemini runs hooks
//! with a controlling terminal (measured on 0.61.0), but parses their stdout
//! as JSON and has no `terminalSequence`; the PTY by name works the same on
//! the host and in Docker.
//!
//! agy keeps its config in the same `~/.gemini`: termic's files for Gemini
//! live in their own folder ([`HOOKS_DIR`]), so neither install touches the
//! other's scripts, manifest or backup.

use termic_signal::wire::{field, HookEvent};

use super::script::{session_and_message, PayloadRule, ScriptSpec, SESSION_ID};
use super::{AgentAdapter, AgentSchema, ConfigEntry, HookRegistration, Support};

pub struct Gemini;

impl AgentSchema {
    pub const GEMINI: AgentSchema = AgentSchema(&Gemini);
}

/// termic's folder in `~/.gemini`, distinct from agy's `termic-hooks`.
pub const HOOKS_DIR: &str = "termic-hooks-gemini";

/// Gemini reads hook timeouts in milliseconds (0.61.0: default 60000).
const TIMEOUT_MS: u32 = super::HOOK_TIMEOUT_SECS * 1000;

/// Notification: attention only for `notification_type` ToolPermission
/// (the one notification 0.61.0 sends; anything else stays silent).
const TOOL_PERMISSION: PayloadRule = PayloadRule::Shell {
    logic: |flat| {
        format!(
            "extra=''\n\
             {flat} | grep -q '\"notification_type\" *: *\"ToolPermission\"' || exit 0\n"
        )
    },
    may_send_error: false,
};

/// AfterAgent: the conversation id and the turn's answer,
/// `prompt_response` (0.61.0; `[no response text]` on a 401, which the
/// engine's Gemini profile reads as an error).
const AFTER_AGENT: PayloadRule = PayloadRule::Shell {
    logic: |flat| session_and_message(flat, "session_id", "prompt_response"),
    may_send_error: false,
};

static REGISTRATIONS: [HookRegistration; 3] = [
    HookRegistration {
        event: "BeforeAgent",
        script: ScriptSpec::pty(
            "gemini",
            "BeforeAgent",
            "tells termic a turn started.",
            HookEvent::Working,
            &[],
            SESSION_ID,
        ),
        file_name: "before-agent.sh",
        status_message: "termic: reporting that a turn started",
    },
    HookRegistration {
        event: "Notification",
        script: ScriptSpec::pty(
            "gemini",
            "Notification",
            "tells termic a permission prompt waits for you.",
            HookEvent::Attention,
            &[(field::KIND, "permission")],
            TOOL_PERMISSION,
        ),
        file_name: "notification.sh",
        status_message: "termic: reporting that you are needed",
    },
    HookRegistration {
        event: "AfterAgent",
        script: ScriptSpec::pty(
            "gemini",
            "AfterAgent",
            "tells termic the turn ended, with its answer.",
            HookEvent::Done,
            &[],
            AFTER_AGENT,
        ),
        file_name: "after-agent.sh",
        status_message: "termic: reporting that the turn ended",
    },
];

impl AgentAdapter for Gemini {
    fn id(&self) -> &'static str {
        "gemini"
    }
    fn support(&self) -> Support {
        Support::Hooks(AgentSchema::GEMINI)
    }
    fn home_config_dir(&self) -> &'static str {
        ".gemini"
    }
    fn hooks_dir(&self) -> &'static str {
        HOOKS_DIR
    }
    fn registrations(&self) -> &'static [HookRegistration] {
        &REGISTRATIONS
    }
    fn config_entry(&self) -> ConfigEntry {
        ConfigEntry::MergeGrouped {
            file: "settings.json",
        }
    }
    /// Gemini's handler: a `name` it shows in `/hooks`, timeout in ms.
    fn handler(&self, command: &str, reg: &HookRegistration) -> serde_json::Value {
        serde_json::json!({
            "type": "command",
            "name": format!("termic {}", reg.event),
            "command": command,
            "timeout": TIMEOUT_MS,
        })
    }
}
