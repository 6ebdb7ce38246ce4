//! What the app asks of the rest of termic: agents and how to launch them,
//! worktrees, hooks status and changes, and stored settings. The app talks
//! only to this trait; `commands/workspace.rs` implements it over the real
//! agents, worktrees, config and `termic_hooks` modules.

use std::path::{Path, PathBuf};

use anyhow::Result;

use super::wiring::WiringStamp;
use crate::notify::NotifySettings;
use crate::ui::dialog::AgentChoice;
use crate::ui::settings::{HooksRow, PendingChange, RowAction};
use crate::ui::wizard::WizardView;
use termic_runtime::{TaskSpec, TermSize};

/// A task ready to spawn.
pub struct Launch {
    pub spec: TaskSpec,
    /// The worktree termic created for it.
    pub worktree: Option<PathBuf>,
    /// That agent's hooks are verified wired (switches the heuristics off).
    pub hooks_wired: bool,
}

/// What a new task runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Program {
    /// A built-in or config-defined agent, by id.
    Agent(String),
    /// Any command: program and arguments (never empty).
    Command(Vec<String>),
}

/// A command line as typed in the new-task dialog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandLine {
    /// Plain words (quotes kept together): run as they are, which is what
    /// the shell would do, and keeps a bare `bash` a shell with termic's
    /// integration.
    Words(Vec<String>),
    /// It uses the shell's syntax (`;`, `|`, `>`, `$VAR`, globs, `A=1 cmd`):
    /// run with the user's shell, `$SHELL -c LINE`, as tmux's `new-window`
    /// does.
    Shell(String),
}

/// Characters that mean something to a POSIX shell beyond splitting words.
const SHELL_SYNTAX: &[char] = &[
    ';', '&', '|', '<', '>', '(', ')', '$', '`', '*', '?', '[', ']', '{', '}', '~', '!', '#', '\\',
    '\n',
];

/// Whether the shell would do more with `line` than split it into words:
/// a character of [`SHELL_SYNTAX`] outside quotes, or `$`, `` ` `` or `\`
/// inside double quotes. Inside single quotes nothing is special.
fn uses_shell_syntax(line: &str) -> bool {
    let (mut single, mut double) = (false, false);
    for c in line.chars() {
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            _ if single => {}
            '$' | '`' | '\\' if double => return true,
            _ if double => {}
            _ if SHELL_SYNTAX.contains(&c) => return true,
            _ => {}
        }
    }
    false
}

/// Reads what was typed in the new-task dialog's command field.
pub fn parse_command_line(line: &str) -> Result<CommandLine, String> {
    let words = match shell_words::split(line) {
        Ok(words) if words.is_empty() => {
            return Err("Type a command to run, e.g. bash.".to_string())
        }
        Ok(words) => words,
        Err(_) => {
            return Err("The command has an unclosed quote: close it or remove it.".to_string())
        }
    };
    let assignment = words[0].contains('=');
    if assignment || uses_shell_syntax(line) {
        Ok(CommandLine::Shell(line.trim().to_string()))
    } else {
        Ok(CommandLine::Words(words))
    }
}

/// The first line `git args` prints in `dir`, when it succeeds.
/// The git branch checked out in `dir`, `detached at COMMIT` on a
/// detached HEAD, or `None` outside a repository (the details panel, here
/// and for a host's `details`).
pub fn git_branch(dir: &Path) -> Option<String> {
    git_line(dir, &["symbolic-ref", "--short", "-q", "HEAD"]).or_else(|| {
        // A detached HEAD: say so with its commit.
        git_line(dir, &["rev-parse", "--short", "HEAD"]).map(|c| format!("detached at {c}"))
    })
}

fn git_line(dir: &Path, args: &[&str]) -> Option<String> {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let line = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (out.status.success() && !line.is_empty()).then_some(line)
}

/// An install or removal the user chose in Settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingsAction {
    pub agent: String,
    pub action: RowAction,
}

pub trait Services {
    /// Every agent that can be started, detected ones first.
    fn agent_choices(&self) -> Vec<AgentChoice>;
    /// The workspace directory is inside a git repository.
    fn in_repo(&self) -> bool;
    /// Resolves an agent id into a spawnable task (creating a worktree when asked).
    /// `extra_args` go after the agent's own command line.
    fn launch(
        &mut self,
        agent: &str,
        name: &str,
        worktree: bool,
        size: TermSize,
        extra_args: &[String],
    ) -> Result<Launch>;
    /// The user's shell (`$SHELL` of the client that asked), for a command
    /// line that needs one.
    fn user_shell(&self) -> String;
    /// Resolves any command into a spawnable task (a bare bash, zsh or fish
    /// gets shell integration when it is on).
    fn launch_command(
        &mut self,
        argv: &[String],
        name: &str,
        worktree: bool,
        size: TermSize,
    ) -> Result<Launch> {
        let _ = (argv, name, worktree, size);
        Err(anyhow::anyhow!("running a command is not available here"))
    }
    /// `git worktree remove`, with `--force` when `force` (uncommitted
    /// changes are then lost).
    fn remove_worktree(&mut self, path: &Path, force: bool) -> Result<()>;
    /// The git branch checked out in `dir` (the details panel), or `None`
    /// outside a repository.
    fn branch(&self, dir: &Path) -> Option<String> {
        git_branch(dir)
    }
    /// How the diff view's `m` merges (`[review] merge`).
    fn merge_how(&self) -> termic_review::merge::How {
        termic_review::merge::How::Ff
    }
    /// Removes the worktree of a task that failed to start, and its branch.
    fn discard_worktree(&mut self, path: &Path) -> Result<()> {
        self.remove_worktree(path, false)
    }
    /// One row per agent, status re-read from disk. `native_seen` lists the
    /// agents that reported OSC 7501 on some task.
    fn hooks_rows(&mut self, native_seen: &[String]) -> Vec<HooksRow>;
    /// Per agent id: its hooks are verified wired where it runs.
    fn wired(&mut self) -> Vec<(String, bool)>;
    /// The stamps (`stat`) of every file `agent`'s wired status reads:
    /// cheap to take, compared to decide whether to re-verify.
    fn wiring_stamp(&mut self, agent: &str) -> WiringStamp;
    /// The exact files an action would touch, for the user to confirm.
    fn plan(&mut self, action: &SettingsAction) -> Result<PendingChange>;
    /// Applies the action and stores the consent. Returns what to tell the user.
    fn apply(&mut self, action: &SettingsAction) -> Result<String>;
    fn save_notify(&mut self, notify: NotifySettings) -> Result<()>;
    /// The first-run wizard for what is on this machine now.
    fn wizard(&mut self, notify: NotifySettings) -> WizardView;
    /// Applies the wizard's choices and marks it shown. Returns a message.
    fn finish_wizard(&mut self, view: &WizardView) -> Result<Option<String>>;
    /// Marks the wizard shown without changing anything.
    fn skip_wizard(&mut self) -> Result<()>;
}

#[cfg(test)]
mod command_line_tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        match parse_command_line(line) {
            Ok(CommandLine::Words(w)) => w,
            other => panic!("{line}: {other:?}"),
        }
    }

    fn shell(line: &str) -> String {
        match parse_command_line(line) {
            Ok(CommandLine::Shell(l)) => l,
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn plain_words_run_as_typed_and_shell_syntax_runs_in_the_shell() {
        assert_eq!(words("bash"), ["bash"]);
        assert_eq!(words("make test"), ["make", "test"]);
        assert_eq!(
            words("sh -c 'echo a; sleep 1'"),
            ["sh", "-c", "echo a; sleep 1"]
        );
        assert_eq!(words("grep \"a b\" f"), ["grep", "a b", "f"]);
        for line in [
            "sleep 5; echo hi",
            "make | tee log",
            "ls > out",
            "echo $HOME",
            "echo \"$HOME\"",
            "ls *.rs",
            "FOO=1 make",
            "cd ~ && ls",
            "a & b",
            "echo `date`",
        ] {
            assert_eq!(shell(line), line);
        }
        assert!(parse_command_line("  ").is_err());
        assert!(parse_command_line("echo 'open").is_err());
    }
}
