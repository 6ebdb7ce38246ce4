//! GitHub Copilot CLI: userPromptSubmitted (working), permissionRequest
//! (attention) and agentStop (done), merged into `~/.copilot/settings.json`
//! in Copilot's own flat shape: `hooks.<event>: [{"type": "command",
//! "bash": ..., "timeoutSec": N}]`, camelCase event names.
//!
//! Copilot's terminal never says it is blocked (its title does not change
//! and its progress OSC says busy through the prompt, measured on 1.0.102),
//! so the attention hook is the only truth; working and done come with it.
//!
//! Transport: the script writes to `$TERMIC_PTY` by name (Copilot runs hooks
//! with a controlling terminal but does not show their stdout).

use termic_signal::wire::{field, HookEvent};

use super::script::{PayloadRule, ScriptSpec, SESSION_ID_CAMEL};
use super::{AgentAdapter, AgentSchema, ConfigEntry, HookRegistration, Support};

pub struct Copilot;

impl AgentSchema {
    pub const COPILOT: AgentSchema = AgentSchema(&Copilot);
}

static REGISTRATIONS: [HookRegistration; 3] = [
    HookRegistration {
        event: "userPromptSubmitted",
        script: ScriptSpec::pty(
            "copilot",
            "userPromptSubmitted",
            "tells termic a turn started.",
            HookEvent::Working,
            &[],
            SESSION_ID_CAMEL,
        ),
        file_name: "user-prompt-submitted.sh",
        status_message: "termic: reporting that a turn started",
    },
    HookRegistration {
        event: "permissionRequest",
        script: ScriptSpec::pty(
            "copilot",
            "permissionRequest",
            "tells termic a permission prompt waits for you.",
            HookEvent::Attention,
            &[(field::KIND, "permission")],
            PayloadRule::None,
        ),
        file_name: "permission-request.sh",
        status_message: "termic: reporting that you are needed",
    },
    HookRegistration {
        event: "agentStop",
        script: ScriptSpec::pty(
            "copilot",
            "agentStop",
            "tells termic the turn ended.",
            HookEvent::Done,
            &[],
            SESSION_ID_CAMEL,
        ),
        file_name: "agent-stop.sh",
        status_message: "termic: reporting that the turn ended",
    },
];

impl AgentAdapter for Copilot {
    fn id(&self) -> &'static str {
        "copilot"
    }
    fn support(&self) -> Support {
        Support::Hooks(AgentSchema::COPILOT)
    }
    fn home_config_dir(&self) -> &'static str {
        ".copilot"
    }
    fn registrations(&self) -> &'static [HookRegistration] {
        &REGISTRATIONS
    }
    fn config_entry(&self) -> ConfigEntry {
        ConfigEntry::MergeFlat {
            file: "settings.json",
            command_key: "bash",
        }
    }
    /// Copilot's handler: the command under `bash`, timeout in seconds.
    fn handler(&self, command: &str, _reg: &HookRegistration) -> serde_json::Value {
        serde_json::json!({
            "type": "command",
            "bash": command,
            "timeoutSec": super::HOOK_TIMEOUT_SECS,
        })
    }
}
