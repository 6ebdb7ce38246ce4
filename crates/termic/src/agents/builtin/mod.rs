//! The built-in agents: one file each with its launch definition (id,
//! program looked up on PATH, install hint, the repository dirs linked into
//! a task's worktree), listed once in [`BUILTINS`]. Its hooks adapter
//! (termic-hooks) and detection profile (termic-signal) are found by its id.

mod agy;
mod claude;
mod codex;
mod copilot;
mod gemini;
mod grok;
mod opencode;
mod qwen;

/// One built-in agent: its id, its program and how to install it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Builtin {
    pub id: &'static str,
    /// Looked up on PATH: "detected" means it is there.
    pub program: &'static str,
    /// What to run when `program` is not on PATH.
    pub install: &'static str,
    /// The repository's own config dirs of this agent (project settings,
    /// skills) that a task's worktree links from the repo root, when the
    /// repo has them and the worktree has none.
    pub linked_dirs: &'static [&'static str],
    /// The variable that points the agent at its config dir, when the agent
    /// keeps state outside that dir by default: a Docker task sets it to the
    /// mounted dir so that state persists in the termic-owned dir between
    /// `--rm` containers (see `docker::config_dir_env`).
    pub config_dir_var: Option<&'static str>,
    /// How a restore starts it again in its own conversation (measured on
    /// the real binary: docs/gotchas.md, "Resume").
    pub resume: Resume,
}

/// An agent's own resume option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resume {
    /// None known (not measured, or the agent has none): a restore starts
    /// it fresh in the same directory, and says so.
    Fresh,
    /// Arguments put before the user's: `with_id` when its hooks reported
    /// the conversation id (`{id}` is replaced by it), else `latest` (the
    /// last conversation in that directory) when the agent has one.
    Args {
        with_id: &'static [&'static str],
        latest: Option<&'static [&'static str]>,
        /// Where the agent keeps a conversation once it saved it, under
        /// the user's home (`{id}` replaced): a restore whose id has no
        /// such file starts fresh and says why, rather than run
        /// `with_id` into the agent's "no session" error. `None`: not
        /// checked.
        saved: Option<&'static str>,
        /// How a running process of the agent marks the conversation it
        /// holds: a restore waits (bounded) for those processes to end
        /// before it resumes, so the agent does not find its own
        /// conversation in use by the process that just lost its
        /// terminal. `None`: nothing to wait for.
        in_use: Option<InUse>,
    },
}

/// Lock files named after their owner's pid: `<dir>/<prefix><pid><suffix>`,
/// `dir` under the user's home with `{id}` replaced by the conversation id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InUse {
    pub dir: &'static str,
    pub prefix: &'static str,
    pub suffix: &'static str,
}

impl InUse {
    /// The pid a file `name` of the lock dir names, if it is a lock.
    pub fn owner(&self, name: &str) -> Option<u32> {
        let pid = name.strip_prefix(self.prefix)?.strip_suffix(self.suffix)?;
        if pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        pid.parse().ok().filter(|p| *p > 0)
    }
}

/// Where agent `id`'s processes mark conversation `session` as in use
/// (relative to the user's home), and how: `None` when the agent keeps no
/// such mark or the id is not one termic passes on.
pub fn in_use_of(id: &str, session: &str) -> Option<(String, InUse)> {
    let builtin = BUILTINS.iter().find(|b| b.id == id)?;
    match builtin.resume {
        Resume::Args {
            in_use: Some(in_use),
            ..
        } if termic_signal::wire::is_session_id(session) => {
            Some((in_use.dir.replace("{id}", session), in_use))
        }
        _ => None,
    }
}

/// The restore's arguments for agent `id` (a built-in's id or base) and
/// the conversation `session` its hooks reported: `Ok(args)` (put before
/// the user's arguments), or `Err(why it starts fresh)` for the user.
/// `is_saved` answers whether a path under the user's home exists (the
/// caller's I/O; see [`Resume::Args`]'s `saved`).
pub fn resume_args(
    id: &str,
    session: Option<&str>,
    is_saved: &dyn Fn(&str) -> bool,
) -> Result<Vec<String>, String> {
    let Some(builtin) = BUILTINS.iter().find(|b| b.id == id) else {
        return Err(format!("{id} has no known resume option: started fresh"));
    };
    match (builtin.resume, session) {
        (Resume::Fresh, _) => Err(format!("{id} cannot resume here: started fresh")),
        (Resume::Args { with_id, saved, .. }, Some(session))
            if termic_signal::wire::is_session_id(session) =>
        {
            match saved {
                Some(path) if !is_saved(&path.replace("{id}", session)) => Err(format!(
                    "{id} had not saved its conversation when it ended: started fresh"
                )),
                _ => Ok(with_id.iter().map(|a| a.replace("{id}", session)).collect()),
            }
        }
        (
            Resume::Args {
                latest: Some(latest),
                ..
            },
            _,
        ) => Ok(latest.iter().map(|a| (*a).to_owned()).collect()),
        (Resume::Args { latest: None, .. }, _) => {
            Err(format!("{id} reported no conversation id: started fresh"))
        }
    }
}

/// The built-in agents, one line each, in the order the UI lists them.
pub const BUILTINS: &[Builtin] = &[
    claude::BUILTIN,
    codex::BUILTIN,
    grok::BUILTIN,
    agy::BUILTIN,
    opencode::BUILTIN,
    gemini::BUILTIN,
    copilot::BUILTIN,
    qwen::BUILTIN,
];

/// Every built-in's linked dirs, in [`BUILTINS`] order.
pub fn linked_dirs() -> impl Iterator<Item = &'static str> {
    BUILTINS.iter().flat_map(|b| b.linked_dirs.iter().copied())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_linked_dirs_are_dot_dirs_in_registry_order() {
        let mut ids: Vec<_> = BUILTINS.iter().map(|b| b.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), BUILTINS.len());
        assert_eq!(
            linked_dirs().collect::<Vec<_>>(),
            [
                ".claude",
                ".grok",
                ".agents",
                ".opencode",
                ".gemini",
                ".qwen"
            ]
        );
    }

    /// Copilot 1.0.102's `inuse.<pid>.lock` (2026-12-06), and what is not
    /// one of its locks.
    #[test]
    fn copilot_marks_a_conversation_in_use_with_its_pid() {
        let (dir, lock) = in_use_of("copilot", "f4eb-1").unwrap();
        assert_eq!(dir, ".copilot/session-state/f4eb-1");
        assert_eq!(lock.owner("inuse.6819.lock"), Some(6819));
        for not in [
            "inuse.6819.hold",
            "inuse..lock",
            "inuse.-1.lock",
            "inuse.0.lock",
            "inuse.12a.lock",
            "events.jsonl",
            ".workspace-fork.lock",
        ] {
            assert_eq!(lock.owner(not), None, "{not}");
        }
        assert_eq!(
            in_use_of("copilot", "../x"),
            None,
            "not an id termic passes on"
        );
        assert_eq!(in_use_of("claude", "f4eb-1"), None);
    }

    #[test]
    fn a_restore_resumes_by_id_else_the_latest_else_starts_fresh_and_says_why() {
        let args = |id, session| resume_args(id, session, &|_| true);
        assert_eq!(
            args("claude", Some("3f0c-77b2")),
            Ok(vec!["--resume".into(), "3f0c-77b2".into()])
        );
        assert_eq!(args("claude", None), Ok(vec!["--continue".into()]));
        // An id that could be read as an option, or holds a space, is not
        // passed: the latest conversation instead.
        assert_eq!(args("claude", Some("-rf")), Ok(vec!["--continue".into()]));
        assert_eq!(args("claude", Some("a b")), Ok(vec!["--continue".into()]));
        assert_eq!(
            args("codex", None),
            Ok(vec!["resume".into(), "--last".into()])
        );
        assert_eq!(
            args("agy", Some("x")),
            Err("agy cannot resume here: started fresh".into())
        );
        assert_eq!(
            args("mytool", None),
            Err("mytool has no known resume option: started fresh".into())
        );
        // Copilot's conversation on disk (its events file) or a fresh
        // start that says why, never `--resume` into its "no session"
        // error (2026-12-06).
        let asked = std::cell::RefCell::new(Vec::new());
        let asked = &asked;
        let on_disk = |saved: bool| {
            move |path: &str| {
                asked.borrow_mut().push(path.to_owned());
                saved
            }
        };
        assert_eq!(
            resume_args("copilot", Some("f4eb-1"), &on_disk(true)),
            Ok(vec!["--resume".into(), "f4eb-1".into()])
        );
        assert_eq!(
            resume_args("copilot", Some("f4eb-1"), &on_disk(false)),
            Err("copilot had not saved its conversation when it ended: started fresh".into())
        );
        assert_eq!(
            asked.borrow().as_slice(),
            [".copilot/session-state/f4eb-1/events.jsonl"; 2]
        );
        assert_eq!(
            resume_args("claude", Some("3f0c"), &on_disk(false)),
            Ok(vec!["--resume".into(), "3f0c".into()]),
            "not checked for an agent without a known store"
        );
        // Every built-in with a resume option names the conversation by
        // its id, exactly once (2026-12-06: each agent's hooks or plugin
        // report it).
        for b in BUILTINS {
            if let Resume::Args { with_id, .. } = b.resume {
                let n = with_id.iter().filter(|a| a.contains("{id}")).count();
                assert_eq!(n, 1, "{}", b.id);
            }
        }
        assert_eq!(
            args("gemini", Some("6e1c-42")),
            Ok(vec!["--resume".into(), "6e1c-42".into()])
        );
        assert_eq!(
            args("gemini", None),
            Ok(vec!["--resume".into(), "latest".into()])
        );
    }

    #[test]
    fn every_builtin_has_a_hooks_adapter_and_a_detection_profile() {
        for b in BUILTINS {
            assert!(termic_hooks::agents::adapter(b.id).is_some(), "{}", b.id);
            assert_eq!(termic_signal::profile::profile_for(b.id).id, b.id);
        }
    }
}
