//! Which agent a running process is, for a command or shell task whose
//! foreground program changed (the user typed `claude` at the prompt).
//!
//! An agent's process names come from its own definition: the file name of
//! its command (`claude`, `codex`, a clone's `claude`), so a user-defined
//! agent is recognised too. A process matches by its `/proc/PID/exe` file
//! name, its argv[0] file name, or, when argv[0] is an interpreter (`node`,
//! `python3`, `bun`...), its script's name; each without a `.js`, `.py` or
//! `.exe` extension. Measured here: Claude Code 2.1.332 runs as
//! `.../claude-code/bin/claude.exe` with argv[0] `claude`; Codex's npm
//! launcher is `node .../codex.js`; opencode's binary is `opencode.exe`.
//! Docker agents run in a container and are never in the task's
//! foreground: the caller leaves them out.

use std::path::Path;

use super::AGENTS;

/// An agent definition as the foreground table reads it.
#[derive(Debug, Clone, Copy)]
pub struct AgentCommand<'a> {
    /// Its agent id.
    pub id: &'a str,
    /// Its termic-signal profile id.
    pub profile: &'a str,
    /// Its program and fixed arguments.
    pub command: &'a [String],
}

/// One agent a foreground process can be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForegroundAgent {
    /// The process name that identifies it.
    pub name: String,
    /// Its agent id (hooks wired status is per id).
    pub agent: String,
    /// Its termic-signal profile id.
    pub profile: String,
}

/// Every agent a foreground process can be, first definition first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ForegroundAgents {
    agents: Vec<ForegroundAgent>,
}

/// Programs that run a script named by their first argument (a `#!/bin/sh`
/// wrapper named `claude` runs as `sh /path/claude`).
const INTERPRETERS: [&str; 10] = [
    "node", "nodejs", "bun", "deno", "python", "python3", "ruby", "sh", "bash", "dash",
];

/// Programs that are never an agent by their own name: shells and
/// interpreters (a user agent `command = ["bash"]` must not make every
/// shell task an agent task) and launchers that run what follows them.
const NEVER_AN_AGENT: [&str; 12] = [
    "zsh", "fish", "ksh", "env", "perl", "python2", "npx", "bunx", "uv", "uvx", "pipx", "exec",
];

/// The process name that identifies an agent whose command is `command`:
/// its program's file name, or, when that is a shell, an interpreter or a
/// launcher, its script's (`["node", "/opt/agent.js"]` is `agent`). None
/// when nothing but such a program identifies it: it is then never
/// recognised in the foreground, rather than recognised in every shell.
fn identifying_name(command: &[String]) -> Option<String> {
    let program = file_name(command.first()?.as_bytes());
    let generic = |name: &[u8]| {
        INTERPRETERS.iter().any(|i| i.as_bytes() == name)
            || NEVER_AN_AGENT.iter().any(|i| i.as_bytes() == name)
    };
    let name = if generic(program) {
        let script = command[1..].iter().find(|a| !a.starts_with('-'))?;
        stem(file_name(script.as_bytes()))
    } else {
        program
    };
    if name.is_empty() || generic(name) {
        return None;
    }
    Some(String::from_utf8_lossy(name).into_owned())
}

fn file_name(path: &[u8]) -> &[u8] {
    path.rsplit(|b| *b == b'/').next().unwrap_or(path)
}

fn stem(name: &[u8]) -> &[u8] {
    for ext in [&b".js"[..], b".mjs", b".cjs", b".py", b".exe"] {
        if let Some(s) = name.strip_suffix(ext) {
            return s;
        }
    }
    name
}

impl ForegroundAgents {
    /// The table of `defs` (agents that run on the host), first definition
    /// first.
    pub fn new<'a>(defs: impl IntoIterator<Item = AgentCommand<'a>>) -> ForegroundAgents {
        let mut agents: Vec<ForegroundAgent> = Vec::new();
        for def in defs {
            let Some(name) = identifying_name(def.command) else {
                continue;
            };
            if agents.iter().any(|a| a.name == name) {
                continue;
            }
            agents.push(ForegroundAgent {
                name,
                agent: def.id.to_owned(),
                profile: def.profile.to_owned(),
            });
        }
        ForegroundAgents { agents }
    }

    /// The built-in agents ([`AGENTS`]) with their own commands.
    pub fn builtin() -> ForegroundAgents {
        let commands: Vec<[String; 1]> = AGENTS.iter().map(|a| [a.program.to_owned()]).collect();
        ForegroundAgents::new(
            AGENTS
                .iter()
                .zip(&commands)
                .map(|(a, command)| AgentCommand {
                    id: a.id,
                    profile: a.id,
                    command,
                }),
        )
    }

    /// The agent a process is, from its executable path (`/proc/PID/exe`)
    /// and its raw `/proc/PID/cmdline` (NUL-separated).
    pub fn identify(&self, exe: Option<&Path>, cmdline: &[u8]) -> Option<&ForegroundAgent> {
        let mut args = cmdline.split(|b| *b == 0);
        let argv0 = file_name(args.next().unwrap_or_default());
        let mut names: Vec<&[u8]> = vec![stem(argv0)];
        if INTERPRETERS.iter().any(|i| i.as_bytes() == argv0) {
            if let Some(script) = args.find(|a| !a.starts_with(b"-")) {
                names.push(stem(file_name(script)));
            }
        }
        if let Some(exe) = exe {
            names.push(stem(file_name(exe.as_os_str().as_encoded_bytes())));
        }
        self.agents
            .iter()
            .find(|a| names.contains(&a.name.as_bytes()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The built-ins, then `extra` (id, profile, command), as the binary
    /// builds the table from its registry.
    fn with_builtins(extra: &[(&str, &str, &[&str])]) -> ForegroundAgents {
        let mut defs: Vec<(String, String, Vec<String>)> = AGENTS
            .iter()
            .map(|a| (a.id.into(), a.id.into(), vec![a.program.into()]))
            .collect();
        defs.extend(extra.iter().map(|(id, profile, command)| {
            let command = command.iter().map(|s| (*s).to_owned()).collect();
            ((*id).to_owned(), (*profile).to_owned(), command)
        }));
        ForegroundAgents::new(defs.iter().map(|(id, profile, command)| AgentCommand {
            id,
            profile,
            command,
        }))
    }

    fn table() -> ForegroundAgents {
        with_builtins(&[
            ("claude-work", "claude", &["claude"]),
            ("mine", "generic", &["/opt/bin/my-agent"]),
        ])
    }

    #[test]
    fn argv0_exe_or_an_interpreters_script_names_the_agent() {
        let t = table();
        let id = |exe: Option<&str>, cmd: &[u8]| {
            t.identify(exe.map(Path::new), cmd)
                .map(|a| a.agent.as_str())
        };
        assert_eq!(id(Some("/usr/bin/node"), b"claude\0"), Some("claude"));
        // Claude Code 2.1.332 as measured: a native claude.exe, argv[0] claude.
        assert_eq!(
            id(
                Some("/n/@anthropic-ai/claude-code/bin/claude.exe"),
                b"claude\0"
            ),
            Some("claude")
        );
        assert_eq!(
            id(
                Some("/n/opencode-ai/bin/opencode.exe"),
                b"/x/opencode.exe\0"
            ),
            Some("opencode")
        );
        assert_eq!(
            id(None, b"/usr/local/bin/claude\0--resume\0"),
            Some("claude")
        );
        assert_eq!(
            id(
                Some("/usr/bin/node"),
                b"node\0/usr/lib/node_modules/@openai/codex/bin/codex.js\0"
            ),
            Some("codex")
        );
        assert_eq!(
            id(
                Some("/home/u/.local/bin/grok"),
                b"/usr/bin/python3\0/home/u/.local/bin/grok\0"
            ),
            Some("grok")
        );
        assert_eq!(id(Some("/opt/bin/my-agent"), b"x\0"), Some("mine"));
        assert_eq!(
            id(Some("/usr/bin/dash"), b"/bin/sh\0/home/u/bin/claude\0"),
            Some("claude")
        );
        // A shell, an editor: not agents here.
        assert_eq!(id(Some("/usr/bin/bash"), b"bash\0"), None);
        assert_eq!(id(Some("/usr/bin/vim"), b"vim\0claude\0"), None);
        assert_eq!(id(None, b""), None);
    }

    /// Issue 33 item 6: on 0f06027 `[agents.mine] command = ["bash"]` made
    /// every plain bash task "bash > mine".
    #[test]
    fn a_user_agent_is_never_recognised_by_a_bare_shell_or_interpreter() {
        let t = with_builtins(&[
            ("mine", "claude", &["bash"]),
            ("py", "claude", &["python3", "-u", "/opt/agents/helper.py"]),
            ("envy", "claude", &["env", "FOO=1"]),
        ]);
        let id = |exe: &str, cmd: &[u8]| {
            t.identify(Some(Path::new(exe)), cmd)
                .map(|a| a.agent.clone())
        };
        assert_eq!(id("/usr/bin/bash", b"bash\0"), None);
        assert_eq!(id("/usr/bin/bash", b"-bash\0"), None);
        assert_eq!(id("/usr/bin/python3", b"python3\0"), None);
        assert_eq!(
            id("/usr/bin/python3", b"python3\0-u\0/opt/agents/helper.py\0"),
            Some("py".into())
        );
        // The built-ins are still there.
        assert_eq!(id("/usr/bin/node", b"claude\0"), Some("claude".into()));
    }

    #[test]
    fn the_first_definition_of_a_name_wins() {
        let t = table();
        assert_eq!(t.identify(None, b"claude\0").unwrap().agent, "claude");
        assert_eq!(t.identify(None, b"claude\0").unwrap().profile, "claude");
    }
}
