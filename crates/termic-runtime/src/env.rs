//! The spawn env contract (design.md "Spawn env"), as a pure function.
//!
//! Given the parent's environment and the task's facts, say exactly which
//! variables the child gets changed: set TERMIC_TASK_ID, TERMIC_PTY, TERM,
//! COLORTERM, TERM_PROGRAM (plus the agent's own env), and remove the
//! multiplexer variables. Measured: a Claude Code that sees TMUX or STY wraps
//! its sequences in multiplexer passthrough and paints no busy glyph, and
//! users often start termic inside tmux. Nothing else is dropped.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;

/// The default TERM_PROGRAM: the value every agent measurement used.
pub const DEFAULT_TERM_PROGRAM: &str = "iTerm.app";

/// Variables removed outright. `ZELLIJ*` is matched by prefix separately.
const REMOVED: [&str; 3] = ["TMUX", "TMUX_PANE", "STY"];
/// Set when the runtime has an owner, removed otherwise: a task never
/// carries the owner of the termic it was started inside.
const OWNER_VAR: &str = super::orphans::OWNER_VAR;
const REMOVED_PREFIX: &str = "ZELLIJ";

/// What the child's environment must change relative to the parent's.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EnvChanges {
    /// Names to remove from the inherited environment.
    pub remove: Vec<OsString>,
    /// Names and values to set, in order (later wins).
    pub set: Vec<(OsString, OsString)>,
}

/// The facts the contract needs about one spawn.
#[derive(Debug, Clone)]
pub struct EnvFacts<'a> {
    pub task_id: &'a str,
    /// The PTY slave path, or `None` when the child must not get one
    /// (never the case for a host task; the field exists for clarity).
    pub pty_path: Option<&'a OsStr>,
    pub term_program: &'a str,
    /// The agent's own env from its definition, applied before the contract
    /// so the contract's variables always win.
    pub agent_env: &'a [(OsString, OsString)],
    /// `TERMIC_OWNER`: the process that owns the task (see `orphans`).
    pub owner: Option<&'a str>,
}

/// Whether the child must not inherit this variable.
pub fn is_multiplexer_var(name: &OsStr) -> bool {
    REMOVED.iter().any(|r| name == OsStr::new(r))
        || name.as_bytes().starts_with(REMOVED_PREFIX.as_bytes())
}

/// The changes to apply to `parent` (the environment termic runs in).
pub fn env_changes<'p>(
    parent: impl IntoIterator<Item = (&'p OsStr, &'p OsStr)>,
    facts: &EnvFacts<'_>,
) -> EnvChanges {
    let remove = parent
        .into_iter()
        .map(|(name, _)| name)
        .filter(|name| {
            is_multiplexer_var(name) || (facts.owner.is_none() && *name == OsStr::new(OWNER_VAR))
        })
        .map(OsStr::to_os_string)
        .collect();
    let mut set: Vec<(OsString, OsString)> = facts.agent_env.to_vec();
    set.push(("TERMIC_TASK_ID".into(), facts.task_id.into()));
    if let Some(owner) = facts.owner {
        set.push((OWNER_VAR.into(), owner.into()));
    }
    if let Some(pty) = facts.pty_path {
        set.push(("TERMIC_PTY".into(), pty.to_os_string()));
    }
    set.push(("TERM".into(), "xterm-256color".into()));
    set.push(("COLORTERM".into(), "truecolor".into()));
    set.push(("TERM_PROGRAM".into(), facts.term_program.into()));
    EnvChanges { remove, set }
}

/// A fresh task id: 32 lowercase hex chars from the OS random source.
pub fn new_task_id() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parent(pairs: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        pairs
            .iter()
            .map(|(k, v)| (OsString::from(k), OsString::from(v)))
            .collect()
    }

    fn changes(
        parent_env: &[(OsString, OsString)],
        agent_env: &[(OsString, OsString)],
    ) -> EnvChanges {
        env_changes(
            parent_env
                .iter()
                .map(|(k, v)| (k.as_os_str(), v.as_os_str())),
            &EnvFacts {
                task_id: "abc123",
                pty_path: Some(OsStr::new("/dev/pts/7")),
                term_program: DEFAULT_TERM_PROGRAM,
                agent_env,
                owner: Some("1.2.3.4"),
            },
        )
    }

    #[test]
    fn multiplexer_vars_are_removed_and_nothing_else() {
        let env = parent(&[
            ("TMUX", "/tmp/tmux-1000/default,1,0"),
            ("TMUX_PANE", "%3"),
            ("STY", "123.pts-0.host"),
            ("ZELLIJ", "0"),
            ("ZELLIJ_SESSION_NAME", "dev"),
            ("TMUXX", "keep"),
            ("HOME", "/home/u"),
            ("PATH", "/bin"),
            ("XZELLIJ", "keep"),
        ]);
        let got = changes(&env, &[]);
        let removed: Vec<&str> = got.remove.iter().map(|s| s.to_str().unwrap()).collect();
        assert_eq!(
            removed,
            ["TMUX", "TMUX_PANE", "STY", "ZELLIJ", "ZELLIJ_SESSION_NAME"]
        );
    }

    #[test]
    fn contract_vars_are_set_and_win_over_agent_env() {
        let agent = parent(&[("TERM", "dumb"), ("FOO", "bar")]);
        let got = changes(&[], &agent);
        let last = |name: &str| {
            got.set
                .iter()
                .rev()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.to_str().unwrap().to_owned())
        };
        assert_eq!(last("TERMIC_TASK_ID").as_deref(), Some("abc123"));
        assert_eq!(last("TERMIC_PTY").as_deref(), Some("/dev/pts/7"));
        assert_eq!(last("TERM").as_deref(), Some("xterm-256color"));
        assert_eq!(last("COLORTERM").as_deref(), Some("truecolor"));
        assert_eq!(last("TERM_PROGRAM").as_deref(), Some("iTerm.app"));
        assert_eq!(last("FOO").as_deref(), Some("bar"));
        assert_eq!(last("TERMIC_OWNER").as_deref(), Some("1.2.3.4"));
    }

    #[test]
    fn an_inherited_owner_is_replaced_or_removed() {
        let env = parent(&[("TERMIC_OWNER", "9.9.9.9"), ("HOME", "/h")]);
        let facts = |owner| EnvFacts {
            task_id: "abc123",
            pty_path: None,
            term_program: DEFAULT_TERM_PROGRAM,
            agent_env: &[],
            owner,
        };
        let pairs = || env.iter().map(|(k, v)| (k.as_os_str(), v.as_os_str()));
        let without = env_changes(pairs(), &facts(None));
        assert_eq!(without.remove, [OsString::from("TERMIC_OWNER")]);
        assert!(!without.set.iter().any(|(k, _)| k == "TERMIC_OWNER"));
        let with = env_changes(pairs(), &facts(Some("1.2.3.4")));
        assert!(with.remove.is_empty());
        assert!(with
            .set
            .iter()
            .any(|(k, v)| k == "TERMIC_OWNER" && v == "1.2.3.4"));
    }

    #[test]
    fn task_ids_are_fresh_hex_and_long_enough_to_be_unguessable() {
        let a = new_task_id().unwrap();
        let b = new_task_id().unwrap();
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
        assert!(termic_signal::wire::is_valid_task_id(&a));
    }
}
