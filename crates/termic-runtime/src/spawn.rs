//! Opening a PTY and starting a task's command in it with the env contract.
//!
//! portable-pty (0.9) does the `openpty`, the `setsid` + `TIOCSCTTY` in the
//! child, and closes stray fds. Two things here are ours: the slave path is
//! read under ONE process-wide lock (see [`PTY_OPEN_LOCK`]), and the slave
//! handle is dropped right after spawn, or the reader would never see EOF.

use std::ffi::{OsStr, OsString};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use portable_pty::{native_pty_system, Child, CommandBuilder, MasterPty, PtySize};

use super::env::{env_changes, new_task_id, EnvFacts};
use super::{RuntimeError, TaskSpec};

/// Held while a PTY is opened and its slave name read. The plan's reason:
/// `ptsname` returns a static buffer (no `_r` variant on macOS), so two
/// concurrent spawns could read each other's device name. portable-pty uses
/// `ttyname_r` on the slave fd today; the lock keeps that true whatever the
/// backend does and costs microseconds per spawn.
static PTY_OPEN_LOCK: Mutex<()> = Mutex::new(());

/// A started task: the master side, the child, and its identity.
pub struct Spawned {
    pub master: Box<dyn MasterPty + Send>,
    pub reader: Box<dyn Read + Send>,
    pub writer: Box<dyn Write + Send>,
    pub child: Box<dyn Child + Send + Sync>,
    pub pid: i32,
    pub pty_path: PathBuf,
    pub task_id: String,
}

fn pty_err(what: &'static str) -> impl FnOnce(anyhow::Error) -> RuntimeError {
    move |source| RuntimeError::Pty {
        what,
        message: readable_os_error(&format!("{source:#}")),
    }
}

/// portable-pty words an OS error in its Debug form ("failed to openpty:
/// Os { code: 24, kind: Uncategorized, message: \"Too many open files\" }");
/// a user reads "failed to openpty: Too many open files (os error 24)", the
/// form `io::Error` displays and the server's shortage hints read.
fn readable_os_error(text: &str) -> String {
    let Some(start) = text.find("Os { code: ") else {
        return text.to_string();
    };
    let rest = &text[start..];
    let Some(end) = rest.find(" }") else {
        return text.to_string();
    };
    let inner = &rest["Os { code: ".len()..end];
    let Some(code) = inner
        .split(',')
        .next()
        .and_then(|c| c.trim().parse::<i32>().ok())
    else {
        return text.to_string();
    };
    let shown = std::io::Error::from_raw_os_error(code).to_string();
    format!(
        "{}{shown}{}",
        &text[..start],
        readable_os_error(&rest[end + " }".len()..])
    )
}

/// Open a PTY at `spec.size` and spawn `spec.argv` in it.
pub fn spawn(
    spec: &TaskSpec,
    term_program: &str,
    owner: Option<&str>,
) -> Result<Spawned, RuntimeError> {
    let Some(program) = spec.argv.first() else {
        return Err(RuntimeError::EmptyCommand);
    };
    if !spec.cwd.is_dir() {
        // portable-pty would silently fall back to $HOME.
        return Err(RuntimeError::CwdMissing(spec.cwd.clone()));
    }
    // The task's PATH: the agent's or client's env over ours, as the child gets it.
    let path_var = spec
        .env
        .iter()
        .rfind(|(k, _)| k == "PATH")
        .map(|(_, v)| v.clone())
        .or_else(|| std::env::var_os("PATH"))
        .unwrap_or_default();
    check_program(program, &spec.cwd, &path_var)?;
    let size = PtySize {
        rows: spec.size.rows.max(1),
        cols: spec.size.cols.max(1),
        pixel_width: 0,
        pixel_height: 0,
    };
    let (pair, pty_path) = {
        let _guard = PTY_OPEN_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let pair = native_pty_system()
            .openpty(size)
            .map_err(pty_err("open a PTY"))?;
        let path = pair.master.tty_name().ok_or(RuntimeError::Pty {
            what: "read the PTY slave name",
            message: "the master has no tty name".into(),
        })?;
        (pair, path)
    };
    let task_id = new_task_id().map_err(|e| RuntimeError::Pty {
        what: "draw a random task id",
        message: e.to_string(),
    })?;

    // A container gets the slave mounted: its path is known only now.
    let argv = match &spec.container {
        Some(container) => container.argv_with_pty(&spec.argv, &pty_path),
        None => spec.argv.clone(),
    };
    let parent: Vec<(OsString, OsString)> = std::env::vars_os().collect();
    let changes = env_changes(
        parent.iter().map(|(k, v)| (k.as_os_str(), v.as_os_str())),
        &EnvFacts {
            task_id: &task_id,
            pty_path: Some(pty_path.as_os_str()),
            term_program,
            agent_env: &spec.env,
            owner,
        },
    );
    let mut cmd = CommandBuilder::new(program);
    cmd.args(&argv[1..]);
    cmd.cwd(&spec.cwd);
    for name in &changes.remove {
        cmd.env_remove(name);
    }
    for (name, value) in &changes.set {
        cmd.env(name, value);
    }

    let child = pair
        .slave
        .spawn_command(cmd)
        .map_err(|source| RuntimeError::Spawn {
            command: display_argv(&spec.argv),
            message: format!("{source:#}"),
        })?;
    // The child has its own copies; ours would keep the PTY open forever.
    drop(pair.slave);
    let pid = child
        .process_id()
        .and_then(|p| i32::try_from(p).ok())
        .ok_or(RuntimeError::Pty {
            what: "read the child's pid",
            message: "no pid".into(),
        })?;
    let reader = pair
        .master
        .try_clone_reader()
        .map_err(pty_err("clone the PTY reader"))?;
    let writer = pair
        .master
        .take_writer()
        .map_err(pty_err("take the PTY writer"))?;
    Ok(Spawned {
        master: pair.master,
        reader,
        writer,
        child,
        pid,
        pty_path,
        task_id,
    })
}

/// `NotFound` when the shell would say "command not found" (or, for a
/// program named with a `/`, that there is no such file): before the PTY's
/// child is forked, so the user reads the shell's words and not
/// portable-pty's text with the whole PATH in it.
fn check_program(program: &OsString, cwd: &Path, path_var: &OsStr) -> Result<(), RuntimeError> {
    let name = program.to_string_lossy();
    let found = if name.contains('/') {
        cwd.join(Path::new(program)).exists()
    } else {
        super::program::find_on_path(&name, path_var, super::program::is_executable_file).is_some()
    };
    if found {
        Ok(())
    } else {
        Err(RuntimeError::NotFound {
            program: name.into_owned(),
        })
    }
}

/// `a b 'c d'`-ish rendering of an argv for error messages.
pub fn display_argv(argv: &[OsString]) -> String {
    argv.iter()
        .map(|a| {
            let s = a.to_string_lossy();
            if s.contains(' ') || s.is_empty() {
                format!("'{s}'")
            } else {
                s.into_owned()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod readable_os_error_tests {
    use super::readable_os_error;

    #[test]
    fn portable_ptys_debug_os_error_reads_as_io_errors_display() {
        assert_eq!(
            readable_os_error(
                "failed to openpty: Os { code: 24, kind: Uncategorized, message: \"Too many open files\" }"
            ),
            "failed to openpty: Too many open files (os error 24)"
        );
        assert_eq!(readable_os_error("no such file"), "no such file");
        assert_eq!(readable_os_error("Os { code: x }"), "Os { code: x }");
        assert_eq!(readable_os_error("Os { code: 1"), "Os { code: 1");
    }
}
