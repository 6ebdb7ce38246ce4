//! Antigravity (agy): PreInvocation (working) and Stop (done) as one named
//! entry `termic` in `~/.gemini/config/hooks.json`, handlers directly under
//! each event (a matcher group there registers an empty, inert command).
//!
//! agy has no attention event, so needs-you stays on the fallback. Never
//! write `~/.gemini/antigravity-cli/hooks.json`: it loads and never runs.

use termic_signal::wire::HookEvent;

use super::script::{PayloadRule, ScriptSpec, Transport};
use super::{AgentAdapter, AgentSchema, ConfigEntry, HookRegistration, Support};

pub struct Agy;

/// The named entry termic owns in agy's hooks file.
pub const ENTRY_NAME: &str = "termic";
/// The stale path agy still loads but never executes (relative to `~/.gemini`).
pub const DEAD_HOOKS_FILE: &str = "antigravity-cli/hooks.json";

const fn agy_script(hook: &'static str, purpose: &'static str, event: HookEvent) -> ScriptSpec {
    ScriptSpec {
        agent: "agy",
        hook,
        purpose,
        event,
        static_fields: &[],
        payload: PayloadRule::None,
        transport: Transport::PtyByName,
        silent_under_grok: false,
    }
}

static REGISTRATIONS: [HookRegistration; 2] = [
    HookRegistration {
        event: "PreInvocation",
        script: agy_script(
            "PreInvocation",
            "tells termic a turn started.",
            HookEvent::Working,
        ),
        file_name: "pre-invocation.sh",
        status_message: "termic: reporting that a turn started",
    },
    HookRegistration {
        event: "Stop",
        script: agy_script("Stop", "tells termic the turn ended.", HookEvent::Done),
        file_name: "stop.sh",
        status_message: "termic: reporting that the turn ended",
    },
];

impl AgentAdapter for Agy {
    fn id(&self) -> &'static str {
        "agy"
    }
    fn support(&self) -> Support {
        Support::Hooks(AgentSchema::Agy)
    }
    fn registrations(&self) -> &'static [HookRegistration] {
        &REGISTRATIONS
    }
    fn config_entry(&self) -> ConfigEntry {
        ConfigEntry::NamedAgyEntry {
            file: "config/hooks.json",
            name: ENTRY_NAME,
        }
    }
}
