//! Antigravity (agy): PreInvocation (working) and Stop (done) as one named
//! entry `termic` in `~/.gemini/config/hooks.json`, handlers directly under
//! each event (a matcher group there registers an empty, inert command).
//!
//! agy has no attention event, so needs-you stays on the fallback. Never
//! write `~/.gemini/antigravity-cli/hooks.json`: it loads and never runs.

use termic_signal::wire::HookEvent;

use super::script::{PayloadRule, ScriptSpec};
use super::{AgentAdapter, AgentSchema, ConfigEntry, Findings, HookRegistration, Support};
use crate::edit;
use crate::plan::Snapshot;
use crate::status::Reason;
use crate::target::InstallTarget;

pub struct Agy;

impl AgentSchema {
    pub const AGY: AgentSchema = AgentSchema(&Agy);
}

/// The named entry termic owns in agy's hooks file.
pub const ENTRY_NAME: &str = "termic";
/// The stale path agy still loads but never executes (relative to `~/.gemini`).
pub const DEAD_HOOKS_FILE: &str = "antigravity-cli/hooks.json";
/// Status's reason when termic's entry is only in [`DEAD_HOOKS_FILE`].
pub const ONLY_IN_DEAD_FILE: &str =
    "termic's entry is only in {path}, which agy loads and never runs";

const fn agy_script(hook: &'static str, purpose: &'static str, event: HookEvent) -> ScriptSpec {
    ScriptSpec::pty("agy", hook, purpose, event, &[], PayloadRule::None)
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
        Support::Hooks(AgentSchema::AGY)
    }
    fn home_config_dir(&self) -> &'static str {
        ".gemini"
    }
    fn extra_files(&self) -> &'static [&'static str] {
        &[DEAD_HOOKS_FILE]
    }
    /// An entry of ours in the dead file: the reason when the live entry is
    /// missing (in its place), else a note that it can be deleted.
    fn check_status(&self, target: &InstallTarget, snap: &Snapshot, found: &mut Findings) {
        let dead = target.path(DEAD_HOOKS_FILE);
        let dead_has_ours = snap
            .file(&dead)
            .and_then(|f| std::str::from_utf8(&f.bytes).ok())
            .is_some_and(|t| {
                edit::query_named_entry(t, ENTRY_NAME)
                    .ok()
                    .flatten()
                    .is_some()
            });
        if !dead_has_ours {
            return;
        }
        let live_missing = found
            .reasons
            .iter()
            .position(|r| matches!(r, Reason::EntryMissing { event, .. } if event == ENTRY_NAME));
        match live_missing {
            Some(i) => {
                found.installed = true;
                found.reasons[i] = Reason::Trap {
                    path: dead,
                    why: ONLY_IN_DEAD_FILE,
                    refuses_install: false,
                };
            }
            None => found.notes.push(format!(
                "{} also has a termic entry; agy loads that file and never runs it, so it is harmless but can be deleted",
                dead.display()
            )),
        }
    }
    fn registrations(&self) -> &'static [HookRegistration] {
        &REGISTRATIONS
    }
    fn config_entry(&self) -> ConfigEntry {
        ConfigEntry::NamedEntry {
            file: "config/hooks.json",
            name: ENTRY_NAME,
            wrapped: "is wrapped in a matcher group (agy registers it with an empty command)",
        }
    }
}
