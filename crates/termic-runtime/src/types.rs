//! The runtime's public vocabulary: what the UI passes in (specs, sizes,
//! config) and gets back (ids, task facts, events, errors).

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;

use termic_signal::engine::Transition;

use super::env::DEFAULT_TERM_PROGRAM;
use super::session;
use crate::agents::foreground::ForegroundAgents;
use crate::container::ContainerTask;
use crate::replies::ReplyConfig;

/// Default scrollback kept per task, in lines.
pub const DEFAULT_SCROLLBACK: usize = 10_000;

/// termic's handle for a task (not the secret `TERMIC_TASK_ID`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TaskId(pub u64);

/// Terminal size in cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TermSize {
    pub rows: u16,
    pub cols: u16,
}

/// What to run.
#[derive(Debug, Clone)]
pub struct TaskSpec {
    /// Shown in the sidebar and written to the event log.
    pub name: String,
    /// Agent id (built-in or config-defined), for profiles and logs.
    pub agent: String,
    /// Program and arguments; the program is looked up on PATH.
    pub argv: Vec<OsString>,
    pub cwd: PathBuf,
    /// The agent definition's own env, applied before the contract variables.
    pub env: Vec<(OsString, OsString)>,
    /// Detection profile for the signal engine: the agent's base built-in
    /// (`claude` for a claude clone); anything unknown is generic.
    pub profile: String,
    pub size: TermSize,
    /// Set when the program is a `docker run` (a Docker agent): the runtime
    /// mounts the PTY slave into it and stops the container with the task.
    pub container: Option<ContainerTask>,
}

/// Whether a task's child is still running.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskStatus {
    Running,
    /// Exit code, or `None` when a signal ended it.
    Exited(Option<i32>),
}

/// What the runtime tells the UI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuntimeEvent {
    /// New output: redraw when convenient. Sent once until the UI reads the
    /// screen with [`Runtime::with_screen`].
    Dirty(TaskId),
    /// The engine moved the task to a new state (already in the event log).
    Transition(TaskId, Transition),
    /// The task's next timer is now earlier than [`Runtime::next_deadline`]
    /// said: ask again and re-plan the sleep.
    DeadlineChanged(TaskId),
    /// The child exited (after its last output was read and the engine was
    /// told; the `Exited` transition came just before this).
    Exited(TaskId, Option<i32>),
    /// The task was closed (by this UI, another attached client or `termic
    /// kill`) and is no longer in the runtime.
    Removed(TaskId),
    /// The task was listed (started by any client, `termic run --detach`,
    /// or a restart): every attached sidebar shows it at once, before it
    /// prints anything.
    Added(TaskId),
    /// The task's name changed (prefix `,` in any client, `termic
    /// rename`): the new name, already in the runtime.
    Renamed(TaskId, String),
    /// The program does not read its input and its terminal replies went
    /// past their budget: termic drops them from now on until it reads.
    /// Sent once per task.
    RepliesDropped(TaskId),
    /// A line for the log of the process that runs the runtime (the
    /// server's `server.log`), not for a client's screen: a task's screen
    /// started over, its replies are dropped, its record was not kept.
    /// The runtime prints nothing itself.
    Log(String),
    /// Something the user must hear, once, about no task's state: the
    /// event log or a task's recording stopped (a full disk), or the server
    /// refused connections for lack of threads or descriptors.
    Notice(String),
    /// Events were dropped (the reader fell [`super::events::EVENT_QUEUE`]
    /// behind): re-read every task's state, screen and presence from the
    /// runtime. Made by the reader, never sent by the runtime.
    Resync,
}

/// A task's fixed facts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskMeta {
    pub id: TaskId,
    /// The task's number: what the sidebar shows, the jump keys and every
    /// CLI verb take. The smallest positive number no listed task holds
    /// when it started; a restart keeps it. Fixed for the task's life.
    pub number: u32,
    /// The task's name. In a [`TaskInfo`], the name now (a rename from any
    /// client or `termic rename` changes it: [`super::Runtime::rename`]);
    /// in the runtime's own copy, the one it started with.
    pub name: String,
    pub agent: String,
    /// The `TERMIC_TASK_ID` given to the child.
    pub task_id: String,
    /// The `TERMIC_PTY` given to the child.
    pub pty_path: PathBuf,
    /// Child pid: also its process group and session id (a session leader).
    pub pid: i32,
    /// When the task started (ms on the runtime's clock).
    pub started_ms: u64,
    /// The task's container, for a Docker task.
    pub container: Option<ContainerTask>,
}

impl TaskMeta {
    /// What identifies this task's processes when ending them.
    pub fn processes(&self) -> session::TaskProcesses {
        session::TaskProcesses {
            leader: self.pid,
            task_id: self.task_id.clone(),
            container: self.container.clone(),
        }
    }
}

/// A task as the UI lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskInfo {
    pub meta: TaskMeta,
    pub status: TaskStatus,
    /// When the task entered its current state (ms on the runtime's
    /// clock): its start, then each transition's time, the exit last. The
    /// one age every sidebar and `termic ls` show.
    pub state_since_ms: u64,
}

/// Where one task's transitions and recording go: the `--event-log`,
/// `--record` and `--record-input` of the client that started it (a
/// restart keeps them). Paths are absolute (the server runs in `/`).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TaskOutputs {
    #[serde(default)]
    pub event_log: Option<PathBuf>,
    #[serde(default)]
    pub record: Option<PathBuf>,
    #[serde(default)]
    pub record_input: bool,
}

impl TaskOutputs {
    /// Whether the task writes nothing of its own.
    pub fn is_empty(&self) -> bool {
        self.event_log.is_none() && self.record.is_none()
    }
}

/// Settings that apply to every task.
#[derive(Debug, Clone)]
pub struct RuntimeConfig {
    pub term_program: String,
    pub scrollback: usize,
    pub replies: ReplyConfig,
    /// The agents a command or shell task's foreground process can be.
    pub foreground_agents: Arc<ForegroundAgents>,
    /// `TERMIC_OWNER` for every task (`orphans::Owner::env_value`), so a
    /// later server can end them if this process dies without doing it.
    /// `None`: the tasks carry none (and an inherited one is removed).
    pub owner: Option<String>,
}

impl Default for RuntimeConfig {
    fn default() -> Self {
        RuntimeConfig {
            term_program: DEFAULT_TERM_PROGRAM.to_owned(),
            scrollback: DEFAULT_SCROLLBACK,
            replies: ReplyConfig::default(),
            foreground_agents: Arc::new(ForegroundAgents::builtin()),
            owner: None,
        }
    }
}

/// Why a runtime call failed.
#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    #[error("no command to run: the agent's command is empty (set `command` in config.toml)")]
    EmptyCommand,
    #[error("cannot start the task in {0}: it is not a directory (pick an existing directory)")]
    CwdMissing(PathBuf),
    /// The program is not on the task's PATH (or, named with a `/`, not
    /// there): the shell's words, never the PATH itself.
    #[error("{program}: command not found")]
    NotFound { program: String },
    #[error("cannot {what}: {message}")]
    Pty { what: &'static str, message: String },
    #[error("cannot start `{command}`: {message}")]
    Spawn { command: String, message: String },
    #[error(transparent)]
    EventLog(#[from] crate::eventlog::EventLogError),
    #[error(transparent)]
    Name(#[from] super::names::NameError),
    #[error("cannot record into {dir}: {source} (check --record's directory)", dir = dir.display())]
    Record {
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
    // The ids stay in the values (callers match on them) but never in the
    // text: a user knows a task by its name, which the runtime does not have.
    #[error("this task has exited and takes no more input; close it, or start a new one")]
    Exited(TaskId),
    #[error("that task is gone (it was closed)")]
    NoSuchTask(TaskId),
    #[error(
        "not sent: this task is not reading its input, and {waiting_kib} KiB typed or pasted \
         are still waiting for it; try again once it reads"
    )]
    InputFull { id: TaskId, waiting_kib: usize },
    // The cause is the `#[source]`, shown by `{:#}` and anyhow's chain:
    // naming it here too printed it twice (seen 2026-12-07).
    #[error("cannot {what} for this task")]
    Io {
        id: TaskId,
        what: &'static str,
        #[source]
        source: std::io::Error,
    },
}
