//! From the hooks crate's verified status to what Settings shows and what
//! the engine is told. Pure: a `StatusReport` in, rows and facts out.

use termic_hooks::plan::InstallPlan;
use termic_hooks::status::{AgentStatus, Reason, State, StatusReport};

use crate::agents::{AgentDef, AgentRegistry};
use crate::ui::settings::{HooksRow, HooksState};

/// One Settings row per agent in the report, in its order.
pub fn rows(report: &StatusReport, native_seen: &[String]) -> Vec<HooksRow> {
    report
        .agents
        .iter()
        .map(|a| HooksRow {
            agent: a.agent.clone(),
            state: row_state(a),
            ours_on_disk: ours_on_disk(a),
            native_seen: native_seen.contains(&a.agent),
            help: termic_hooks::agents::adapter(&a.agent)
                .and_then(|adapter| adapter.settings_help())
                .map(str::to_string),
        })
        .collect()
}

/// The host target decides the row; a Docker target that is not wired
/// while the host is makes the row say so.
fn row_state(agent: &AgentStatus) -> HooksState {
    let Some(host) = agent.targets.first() else {
        return HooksState::NotSupported;
    };
    match &host.state {
        State::NotInstalled => HooksState::NotInstalled,
        State::Wired => match agent.targets.iter().skip(1).find_map(|t| match &t.state {
            State::NotWired(reasons) => Some((t, reasons)),
            _ => None,
        }) {
            Some((t, reasons)) => HooksState::NotWired {
                reason: format!("{}: {}", t.target, join(reasons)),
            },
            None => HooksState::Installed,
        },
        State::NotWired(reasons) => HooksState::NotWired {
            reason: join(reasons),
        },
        State::NotNeeded(why) => HooksState::NotNeeded {
            why: (*why).to_string(),
        },
        State::NotSupported(_) => HooksState::NotSupported,
        State::Error(message) => HooksState::Error {
            message: message.clone(),
        },
    }
}

/// The reasons in words. Entries gone from one file are named together, so
/// a rewritten settings.json reads as one reason, not one per event.
fn join(reasons: &[Reason]) -> String {
    let mut parts: Vec<(Option<&std::path::Path>, Vec<&str>, String)> = Vec::new();
    for reason in reasons {
        if let Reason::EntryMissing { path, event } = reason {
            if let Some(part) = parts.iter_mut().find(|p| p.0 == Some(path.as_path())) {
                part.1.push(event);
                continue;
            }
            parts.push((Some(path), vec![event], reason.to_string()));
        } else {
            parts.push((None, Vec::new(), reason.to_string()));
        }
    }
    parts
        .into_iter()
        .map(|(path, events, text)| match path {
            Some(path) if events.len() > 1 => format!(
                "termic's {} entries are gone from {} (something rewrote the file)",
                events.join(", "),
                path.display()
            ),
            _ => text,
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Anything of termic's is on disk for this agent, on any target.
fn ours_on_disk(agent: &AgentStatus) -> bool {
    agent
        .targets
        .iter()
        .any(|t| matches!(t.state, State::Wired | State::NotWired(_)))
}

/// Whether each agent in the registry has wired hooks where it runs: the
/// host target of its base, or its own Docker target for a Docker agent.
pub fn wired_per_agent(report: &StatusReport, registry: &AgentRegistry) -> Vec<(String, bool)> {
    registry
        .all()
        .iter()
        .map(|agent| {
            let wired = agent.schema().is_some_and(|schema| {
                termic_hooks::status::wired_on(report, schema.id(), &status_target(agent))
            });
            (agent.id.clone(), wired)
        })
        .collect()
}

/// The target whose status says whether `agent`'s tasks are wired: its
/// Docker dir when it runs in Docker, else the host.
pub fn status_target(agent: &AgentDef) -> String {
    if agent.docker.is_some() {
        format!("docker:{}", agent.id)
    } else {
        "host".to_string()
    }
}

/// The lines Settings shows before writing: one per file a plan touches.
pub fn plan_lines(plans: &[InstallPlan]) -> Vec<String> {
    plans
        .iter()
        .flat_map(|p| {
            p.describe()
                .lines()
                .map(|l| squeeze_padding(l.trim()))
                .collect::<Vec<_>>()
        })
        .filter(|l| !l.is_empty())
        .collect()
}

/// The plan pads its verb column for a wide terminal; two spaces are enough
/// in a dialog, and keep each file on one line at 80 columns.
fn squeeze_padding(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut spaces = 0;
    for c in line.chars() {
        if c == ' ' {
            spaces += 1;
            if spaces <= 2 {
                out.push(c);
            }
        } else {
            spaces = 0;
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn entries_gone_from_one_file_read_as_one_reason() {
        let path = PathBuf::from("/h/.claude/settings.json");
        let gone = |event: &str| Reason::EntryMissing {
            path: path.clone(),
            event: event.into(),
        };
        let reasons = [
            gone("Stop"),
            Reason::ScriptMissing("/h/s.sh".into()),
            gone("Notification"),
        ];
        assert_eq!(
            join(&reasons),
            "termic's Stop, Notification entries are gone from /h/.claude/settings.json \
             (something rewrote the file); /h/s.sh is missing"
        );
        assert_eq!(join(&reasons[..1]), reasons[0].to_string());
    }

    #[test]
    fn plan_padding_shrinks_to_two_spaces_and_single_spaces_stay() {
        assert_eq!(
            squeeze_padding("create dir          /home/my dir/.claude  (directory)"),
            "create dir  /home/my dir/.claude  (directory)"
        );
    }
    use termic_hooks::status::{Reason, TargetStatus};

    fn target(name: &str, state: State) -> TargetStatus {
        TargetStatus {
            target: name.into(),
            state,
            notes: Vec::new(),
        }
    }

    fn report(agents: Vec<(&str, Vec<TargetStatus>)>) -> StatusReport {
        StatusReport {
            agents: agents
                .into_iter()
                .map(|(a, targets)| AgentStatus {
                    agent: a.into(),
                    targets,
                })
                .collect(),
        }
    }

    #[test]
    fn every_status_becomes_its_row() {
        let r = report(vec![
            ("claude", vec![target("host", State::NotInstalled)]),
            ("grok", vec![target("host", State::Wired)]),
            (
                "agy",
                vec![target(
                    "host",
                    State::NotWired(vec![Reason::ScriptMissing(PathBuf::from(
                        "/h/.gemini/termic-hooks/stop.sh",
                    ))]),
                )],
            ),
            (
                "codex",
                vec![target(
                    "-",
                    State::NotNeeded("not needed (its terminal already reports this)"),
                )],
            ),
            (
                "opencode",
                vec![target(
                    "host",
                    State::Error("/h/.config/opencode/x.json: line 3".into()),
                )],
            ),
        ]);
        let rows = rows(&r, &["claude".to_string()]);
        assert_eq!(rows[0].state, HooksState::NotInstalled);
        assert!(rows[0].native_seen && !rows[0].ours_on_disk);
        assert_eq!(rows[1].state, HooksState::Installed);
        assert!(rows[1]
            .help
            .as_deref()
            .unwrap()
            .contains("[compat.claude] hooks = false"));
        assert_eq!(
            rows[2].state,
            HooksState::NotWired {
                reason: "/h/.gemini/termic-hooks/stop.sh is missing".into()
            }
        );
        assert!(rows[2].ours_on_disk);
        assert_eq!(
            rows[3].state,
            HooksState::NotNeeded {
                why: "not needed (its terminal already reports this)".into()
            }
        );
        assert_eq!(
            rows[4].state,
            HooksState::Error {
                message: "/h/.config/opencode/x.json: line 3".into()
            }
        );
    }

    #[test]
    fn a_broken_docker_target_is_not_hidden_behind_a_wired_host() {
        let r = report(vec![(
            "claude",
            vec![
                target("host", State::Wired),
                target(
                    "docker:claude",
                    State::NotWired(vec![Reason::ScriptMissing("/d/stop.sh".into())]),
                ),
            ],
        )]);
        match &rows(&r, &[])[0].state {
            HooksState::NotWired { reason } => {
                assert!(reason.starts_with("docker:claude: "), "{reason}")
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn remove_is_offered_when_only_a_docker_target_has_our_files() {
        let r = report(vec![(
            "claude",
            vec![
                target("host", State::NotInstalled),
                target("docker:claude", State::Wired),
            ],
        )]);
        assert!(rows(&r, &[])[0].ours_on_disk);
    }

    #[test]
    fn wired_follows_the_base_agent() {
        let r = report(vec![
            ("claude", vec![target("host", State::Wired)]),
            ("grok", vec![target("host", State::NotInstalled)]),
        ]);
        let cfg = crate::config::Config::parse(
            std::path::Path::new("/c/config.toml"),
            "[agents.mine]\nbase = \"claude\"\ncommand = [\"sh\"]\n",
        )
        .unwrap();
        let wired = wired_per_agent(&r, &cfg.agents);
        assert!(wired.contains(&("claude".into(), true)));
        assert!(wired.contains(&("mine".into(), true)));
        assert!(wired.contains(&("grok".into(), false)));
    }
}
