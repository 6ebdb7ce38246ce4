//! The on-disk checks behind one target's status: scripts, the config
//! entry in each shape, the agent's version gate, then the agent's own
//! checks (its traps and notes, in its adapter).

use serde_json::Value;

use super::{Reason, State, TargetStatus};
use crate::agents::{ConfigEntry, Findings};
use crate::edit;
use crate::plan::{config_command, is_ours, InstallFacts, Snapshot};
use crate::target::{InstallTarget, TargetKind};

/// Verifies one target from a snapshot of its files.
pub fn target_status(
    target: &InstallTarget,
    snap: &Snapshot,
    facts: &InstallFacts,
) -> TargetStatus {
    let mut check = Check {
        target,
        snap,
        found: Findings {
            installed: snap
                .file(&target.path(&target.schema().manifest_file()))
                .is_some(),
            ..Findings::default()
        },
    };
    let state = match check.run(facts) {
        Err(e) => State::Error(e),
        Ok(()) if !check.found.installed => {
            // Nothing installed, but what would stop an install is worth
            // saying now (e.g. an agent too old).
            for r in &check.found.reasons {
                if r.refuses_install() {
                    check.found.notes.push(format!("{r}; install would refuse"));
                }
            }
            State::NotInstalled
        }
        Ok(()) if check.found.reasons.is_empty() => State::Wired,
        Ok(()) => State::NotWired(check.found.reasons),
    };
    TargetStatus {
        target: target.label(),
        state,
        notes: check.found.notes,
    }
}

struct Check<'a> {
    target: &'a InstallTarget,
    snap: &'a Snapshot,
    found: Findings,
}

impl Check<'_> {
    fn run(&mut self, facts: &InstallFacts) -> Result<(), String> {
        let t = self.target;
        let adapter = t.schema().adapter();
        for u in self.snap.untrusted() {
            self.found
                .reasons
                .push(Reason::Untrusted(Box::new(u.clone())));
        }
        for asset in adapter.assets() {
            let path = t.path(&asset.rel_path);
            match self.snap.file(&path) {
                None => self.found.reasons.push(Reason::ScriptMissing(path)),
                Some(f) => {
                    self.found.installed = true;
                    if asset.mode & 0o111 != 0 && f.mode & 0o100 == 0 {
                        self.found.reasons.push(Reason::ScriptNotExecutable(path));
                    } else if f.bytes != asset.contents.as_bytes() {
                        self.found.reasons.push(Reason::ScriptChanged(path));
                    }
                }
            }
        }
        match adapter.config_entry() {
            entry @ (ConfigEntry::MergeGrouped { file }
            | ConfigEntry::OwnGrouped { file }
            | ConfigEntry::MergeFlat { file, .. }) => self.grouped(file, entry)?,
            ConfigEntry::NamedEntry {
                file,
                name,
                wrapped,
            } => self.named(file, name, wrapped)?,
            ConfigEntry::LoadedByLocation => {}
        }
        if let Some(gate) = adapter.version_gate() {
            let found = facts.versions.of(t.schema().id());
            if let (TargetKind::Host, Some(found)) = (t.kind(), gate.too_old(found)) {
                self.found.reasons.push(Reason::AgentTooOld { gate, found });
            }
        }
        adapter.check_status(t, self.snap, &mut self.found);
        // A Docker target needs nothing more: termic mounts the task's PTY
        // slave in the container and points $TERMIC_PTY at it, so the
        // hooks that write to the terminal by name reach it from inside.
        Ok(())
    }

    fn text(&self, path: &std::path::Path) -> Result<Option<String>, String> {
        self.snap
            .file(path)
            .map(|f| {
                String::from_utf8(f.bytes.clone()).map_err(|e| {
                    format!(
                        "{}: not UTF-8 text (offset {})",
                        path.display(),
                        e.utf8_error().valid_up_to()
                    )
                })
            })
            .transpose()
    }

    fn grouped(&mut self, file: &str, entry: ConfigEntry) -> Result<(), String> {
        let shape = entry.hooks_shape().unwrap_or(edit::HooksShape::GROUPED);
        let path = self.target.path(file);
        let Some(text) = self.text(&path)? else {
            self.found.reasons.push(Reason::ConfigMissing(path));
            return Ok(());
        };
        let q = edit::query_hooks(&text, shape, &is_ours(self.target))
            .map_err(|e| format!("{}: {e}", path.display()))?;
        if !q.ours.is_empty() {
            self.found.installed = true;
        }
        for reg in self.target.schema().adapter().registrations() {
            let want = config_command(self.target, reg);
            let mine: Vec<&Value> = q
                .ours
                .iter()
                .filter(|h| h.event == reg.event)
                .map(|h| &h.handler)
                .collect();
            let exact = mine
                .iter()
                .find(|h| h.get(shape.command_key).and_then(Value::as_str) == Some(want.as_str()));
            let event = reg.event.to_string();
            let reason = match exact {
                None if mine.is_empty() => Some(Reason::EntryMissing {
                    path: path.clone(),
                    event,
                }),
                None => Some(Reason::EntryWrong {
                    path: path.clone(),
                    event,
                    why: "points at another path",
                }),
                Some(h) if h.get("async").and_then(Value::as_bool) == Some(true) => {
                    Some(Reason::EntryWrong {
                        path: path.clone(),
                        event,
                        why: "is async (its output would be dropped)",
                    })
                }
                Some(h) if h.get("type").and_then(Value::as_str) != Some("command") => {
                    Some(Reason::EntryWrong {
                        path: path.clone(),
                        event,
                        why: "is not a command hook",
                    })
                }
                Some(_) => None,
            };
            self.found.reasons.extend(reason);
        }
        Ok(())
    }

    fn named(&mut self, file: &str, name: &str, wrapped_why: &'static str) -> Result<(), String> {
        let path = self.target.path(file);
        let live = match self.text(&path)? {
            Some(t) => {
                edit::query_named_entry(&t, name).map_err(|e| format!("{}: {e}", path.display()))?
            }
            None => None,
        };
        let Some(entry) = live else {
            self.found.reasons.push(Reason::EntryMissing {
                path,
                event: name.to_string(),
            });
            return Ok(());
        };
        self.found.installed = true;
        if entry.get("enabled").and_then(Value::as_bool) != Some(true) {
            self.found.reasons.push(Reason::EntryWrong {
                path: path.clone(),
                event: name.to_string(),
                why: "is not enabled",
            });
        }
        for reg in self.target.schema().adapter().registrations() {
            let want = config_command(self.target, reg);
            let handlers = entry
                .get(reg.event)
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            let direct = handlers.iter().any(|h| {
                h.get("type").and_then(Value::as_str) == Some("command")
                    && h.get("command").and_then(Value::as_str) == Some(want.as_str())
            });
            let wrapped = handlers.iter().any(|h| h.get("hooks").is_some());
            let event = reg.event.to_string();
            let reason = match (direct, wrapped, handlers.is_empty()) {
                (true, _, _) => None,
                (false, true, _) => Some(Reason::EntryWrong {
                    path: path.clone(),
                    event,
                    why: wrapped_why,
                }),
                (false, false, true) => Some(Reason::EntryMissing {
                    path: path.clone(),
                    event,
                }),
                (false, false, false) => Some(Reason::EntryWrong {
                    path: path.clone(),
                    event,
                    why: "points at another path",
                }),
            };
            self.found.reasons.extend(reason);
        }
        Ok(())
    }
}
