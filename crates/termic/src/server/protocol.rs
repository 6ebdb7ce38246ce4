//! The client/server protocol: frames of a 4-byte big-endian length and a
//! JSON body, at most [`MAX_FRAME`] bytes. The first exchange is always
//! [`Request::Hello`] then [`Response::Welcome`] or [`Response::Refused`];
//! that exchange never changes shape, so any two versions of termic can
//! tell each other what to run. Everything after it may change with
//! [`PROTOCOL`].
//!
//! Decoding is total: a hostile peer gets an error, never a panic, and
//! never makes the reader allocate more than [`MAX_FRAME`].

use std::io::{self, Read, Write};

use serde::{Deserialize, Serialize};

pub use termic_runtime::TaskOutputs;
pub mod input;

use input::InputEvent;

/// Bumped on any change after the hello. Both sides must match exactly.
/// 2: `attach`, `input`, `attached`, `detached` and output frames.
/// 3: `detached("stopped")`, so a client tells a server that stopped from
/// one that was lost (the stream ends with no `detached`).
/// 4 (2026-12-06): `input` carries termic's own [`InputEvent`] (it was
/// crossterm's serde form of a terminal event, so only a crossterm
/// terminal could be a client); `subscribe` answers `subscribed` with
/// every task, then pushes `task` and `task_removed`; `view` streams one
/// task's screen as terminal bytes and takes input for it; `rename` and
/// its answer `renamed`; a task row's `started`; `outputs` (the client's
/// `--event-log` and `--record`) on `run` and `attach`.
/// 5 (2026-12-06): `base` and its answer `base`, what a task's changes
/// are counted from (`termic diff`, issue 32); `restore` and its answer
/// `restored` (issue 31).
/// 6 (2026-12-06, issue 30): a task row's `attention` (what the task
/// needs you for) and `choices` (the answers its agent's dialog offers);
/// `answer` and its answer `answered`; the input event `outer`, whether the
/// attach client's terminal answered the OSC 7501 probe.
/// 7 (2026-12-06, issue 31 item 3): a task row's `away`, what the task did
/// while no client was attached (its state changes with times and the
/// diff stat of its last done); and (issue 31 item 4) a task row's state
/// `rate_limited` and its `until` (`HH:MM`, the reset time the agent named).
/// Also 7 (2026-12-06, issue 30): `hosts`, a stream of every configured host's
/// tasks as the server's links hear them (answered `hosts`, again at each
/// change); a view's `history`, how many lines of the task's scrollback
/// come before its first repaint.
/// Also 7 (2026-12-06, issue 29): `history` and its answer `history`, a
/// task's scrollback and screen (copy mode on a remote task).
/// 8 (2026-12-06, issue 29): `timeline` and its answer `timeline`, a
/// task's Inspector entries; `restart`, answered `started` (the
/// workspace's Inspector and restart on a remote task).
/// 9 (2026-12-06, issues 29, 30 and 32): `details` (a task's command,
/// branch, channel and pid), `reload_hosts`, the host review requests
/// `revert`, `merge` and `remove_merged` (answered `reverted`, `merged`),
/// `look` (a page's view of a remote task), and the answer to a request
/// the server cannot read.
/// 10 (2026-12-07, issues 29 and 30): the answer `partly_sent` (a
/// two-step choice whose second prompt did not show as measured) and a
/// row's `reason` beside `state: "error"`.
pub const PROTOCOL: u32 = 10;

/// The largest frame either side accepts (a task list of thousands fits).
pub const MAX_FRAME: usize = 1 << 20;

/// What a task runs, as a client asks for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunProgram {
    Agent { id: String, args: Vec<String> },
    Command { argv: Vec<String> },
}

/// `termic run --detach`: everything the server needs from the client's
/// side (its directory and PATH: the server may have started elsewhere).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunRequest {
    pub program: RunProgram,
    pub name: Option<String>,
    pub worktree: bool,
    pub cwd: String,
    pub path_var: String,
    pub cols: u16,
    pub rows: u16,
    /// The client's environment: the task gets it over the server's.
    #[serde(default)]
    pub env: Vec<(String, String)>,
    /// The client's `--event-log`, `--record` and `--record-input`
    /// (absolute paths): this task's, and no other task's.
    #[serde(default)]
    pub outputs: TaskOutputs,
}

/// `termic attach` (and `termic`): show the workspace at this size.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttachRequest {
    /// A task to focus (name or id).
    pub task: Option<String>,
    /// Where tasks started from this client run, and their PATH.
    pub cwd: String,
    pub path_var: String,
    pub cols: u16,
    pub rows: u16,
    /// The client's environment: tasks started from this client get it
    /// over the server's.
    #[serde(default)]
    pub env: Vec<(String, String)>,
    /// The client's `--event-log`, `--record` and `--record-input`: the
    /// tasks started from this client get them (checked as it attaches).
    #[serde(default)]
    pub outputs: TaskOutputs,
}

/// The environment a client sends with a request (UTF-8 variables only).
pub fn client_env() -> Vec<(String, String)> {
    std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect()
}

/// Why an attached client's stream ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DetachReason {
    /// Prefix `d`: the tasks keep running.
    Detached,
    /// Prefix `q`: every task ended and the server stopped.
    Quit,
    /// The server stopped (`termic server stop`, a signal it caught, prefix
    /// `q` in another client): every task ended.
    Stopped,
    /// A view's task was closed (`termic kill`, a client's close).
    Closed,
}

/// A state `termic wait` can wait for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WaitFor {
    NeedsYou,
    Done,
    Exited,
}

impl WaitFor {
    pub fn as_str(self) -> &'static str {
        match self {
            WaitFor::NeedsYou => "needs_you",
            WaitFor::Done => "done",
            WaitFor::Exited => "exited",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Request {
    Hello {
        protocol: u32,
        version: String,
        /// A client that only looks (shell completion): the server keeps
        /// what it must tell the user for the next client.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        quiet: bool,
    },
    List,
    Run(RunRequest),
    Send {
        task: String,
        text: String,
        enter: bool,
    },
    Kill {
        task: String,
        /// Also remove the task's worktree (its branch is kept).
        #[serde(default)]
        remove_worktree: bool,
    },
    Wait {
        task: String,
        states: Vec<WaitFor>,
        timeout_ms: Option<u64>,
    },
    Stop,
    /// Give task TASK (a number or a name) a new name, for every client
    /// and verb. Answered `renamed` with the task's row, or `error`.
    Rename {
        task: String,
        name: String,
    },
    /// What task TASK's changes are counted from (`termic diff`):
    /// answered `base`, or `error` (no such task).
    Base {
        task: String,
    },
    /// Become an attached client: the server answers `attached`, then sends
    /// output frames (see [`write_output`]) until `detached`.
    Attach(AttachRequest),
    /// A client's input event (key, paste, mouse, focus, resize): see
    /// [`input`] for its shapes.
    Input(InputEvent),
    /// Turn the connection into a task list: the server answers
    /// `subscribed` with every task, then pushes a `task` for every task
    /// that appears or whose row changes and a `task_removed` for every
    /// task closed, until the client closes the connection.
    Subscribe,
    /// Turn the connection into a view of one task: the server answers
    /// `viewing`, then sends its screen as output frames (a full repaint,
    /// then what changed), `view_size` before a repaint at another size,
    /// and `detached("closed")` when the task is closed. The client sends
    /// `input` for the task (a `resize` is its new size).
    View(ViewRequest),
    /// Start again the tasks that ended with a server (`termic restore`,
    /// the restore dialog): answered `restored`, one entry per task.
    Restore(RestoreRequest),
    /// Answer task TASK's dialog with CHOICE (an id from its row's
    /// `choices`): the server sends that choice's keys only if the task
    /// still needs you and its screen still shows that choice, and says
    /// which in `answered`.
    Answer {
        task: String,
        choice: String,
    },
    /// Turn the connection into the remote hosts' task lists (the web
    /// page's `@HOST` groups): the server holds its links to config.toml's
    /// hosts open while the connection lasts, as for an attached client,
    /// and answers `hosts` with every host now, then again each time what
    /// it heard changes, until the client closes the connection.
    Hosts,
    /// Turn the connection into a look at task TASK of remote host HOST
    /// (protocol 9, 2026-12-06): while it stays open the server pushes
    /// nothing about that task (`termic web` holds one beside each page's
    /// view of a remote task, which goes over its own ssh). Nothing is
    /// answered; everything the client sends after it is ignored.
    Look {
        host: String,
        task: u64,
    },
    /// Task TASK's history and screen, for copy mode on a remote task
    /// (protocol 7, issue 29): answered `history` with its last
    /// [`HISTORY_LINES`] lines at most, or `error`.
    History {
        task: String,
    },
    /// Task TASK's Inspector timeline, oldest first (protocol 8, issue
    /// 29): answered `timeline`, or `error`.
    Timeline {
        task: String,
    },
    /// Start exited task TASK again in its place, as the workspace's
    /// restart does (protocol 8, issue 29): answered `started` with its
    /// row, or `error` (still running, no such task).
    Restart {
        task: String,
    },
    /// Task TASK's changes since its base, as `termic diff` reads them
    /// (protocol 8, issue 29): answered `changes`, cut to one frame, or
    /// `error` (no base, git failed).
    Changes {
        task: String,
    },
    /// Task TASK's command, branch, status channel and pid, what the
    /// details panel shows beyond its row (protocol 9, issue 29):
    /// answered `details`, or `error`.
    Details {
        task: String,
    },
    /// Read config.toml's `[hosts]` again and make the links follow it
    /// (protocol 9, issue 29; `hosts add` and `hosts rm` send it):
    /// answered `hosts_reloaded`, or `error` when the file does not load
    /// (the links are kept as they were).
    ReloadHosts,
    /// Revert hunk `hunk` of `file` (a file of this server's `changes`
    /// answer, as the client shows it) in task TASK's directory, as the
    /// diff view's revert does (protocol 9, issue 29 with issue 32):
    /// answered `reverted`, or `error` (the task is working or needs you,
    /// the hunk no longer applies).
    Revert {
        task: String,
        file: termic_review::model::FileDiff,
        hunk: usize,
    },
    /// Merge worktree task TASK's branch into the branch it was cut from,
    /// as `termic merge` does, with the host's git (protocol 9): `how`
    /// `ff`, `rebase`, `squash` or `pr` (absent: this server's `[review]
    /// merge`), `into` another branch. Answered `merged`, or `error`.
    Merge {
        task: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        how: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        into: Option<String>,
    },
    /// After a merge: remove task TASK's worktree and its `termic/`
    /// branch, then close the task, as the diff view's offer does
    /// (protocol 9). Only once its agent is done or has exited: answered
    /// `killed` with the removed worktree, or `error`.
    RemoveMerged {
        task: String,
    },
}

/// The answer to `details`: what a task's details panel shows beyond its
/// row (protocol 9).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskDetails {
    /// Its command line, shell-quoted (empty when termic did not start it).
    pub command: String,
    /// The branch checked out where it runs (`detached at abc123` on a
    /// detached HEAD), `None` outside a git repository.
    #[serde(default)]
    pub branch: Option<String>,
    /// Where its state comes from, as the details panel words it
    /// (`hooks`, `native status (OSC 7501)`, ...).
    pub channel: String,
    pub pid: i32,
    /// The process has exited.
    #[serde(default)]
    pub exited: bool,
}

impl Request {
    /// A request a server of protocol 8 does not know (it ends the
    /// connection at it): its client says the host's termic is older.
    pub fn added_in_9(&self) -> bool {
        matches!(
            self,
            Request::Revert { .. } | Request::Merge { .. } | Request::RemoveMerged { .. }
        )
    }
}

/// A server's answer to a request it cannot read (protocol 9 on), then it
/// closes the connection.
pub const UNKNOWN_REQUEST: &str = "unknown request: this termic is older than its client";

/// Where a `revert` was applied (protocol 9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RevertedIn {
    /// The working tree only.
    WorkTree,
    /// The index and the working tree (the change was staged).
    IndexAndWorkTree,
}

/// One entry of a `timeline` answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimelineEntry {
    /// Milliseconds since the task started.
    pub at_ms: u64,
    /// A state change (with its reason), else a signal.
    pub transition: bool,
    /// What the engine logged; cleaned by whoever shows it.
    pub text: String,
}

/// Lines a `history` answer holds at most (the newest); fewer (halved
/// until it fits) when they would not fit one [`MAX_FRAME`].
pub const HISTORY_LINES: usize = 2000;

/// A `history` answer: the task's rows (history, then the screen), the
/// same lines formatted (to draw) and plain (to search and copy), and the
/// screen's size.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct HistoryRows {
    pub formatted: Vec<String>,
    pub plain: Vec<String>,
    pub rows: u16,
    pub cols: u16,
}

/// The newest of `entries` that fit one frame with room to spare: the
/// oldest go first (a timeline holds up to 5,000 entries of any length).
pub fn fit_timeline(mut entries: Vec<TimelineEntry>) -> Vec<TimelineEntry> {
    let budget = MAX_FRAME - 64;
    let mut total = 0usize;
    let keep = entries
        .iter()
        .rev()
        .take_while(|e| {
            // Its JSON and the comma after it.
            total += json_len(e) + 1;
            total <= budget
        })
        .count();
    entries.drain(..entries.len() - keep);
    entries
}

/// `changes` cut to fit one frame with room to spare: the first files
/// whole, then as many of the next file's hunks as fit; `cut` says when
/// anything was left out.
pub fn fit_changes(mut changes: termic_review::model::Changes) -> termic_review::model::Changes {
    let budget = MAX_FRAME - 1024;
    let mut total = 0usize;
    let whole = changes
        .files
        .iter()
        .take_while(|f| {
            total += json_len(f) + 1;
            total <= budget
        })
        .count();
    if whole == changes.files.len() {
        return changes;
    }
    changes.cut = true;
    total -= json_len(&changes.files[whole]) + 1;
    changes.files.truncate(whole + 1);
    let Some(last) = changes.files.last_mut() else {
        return changes;
    };
    let hunks = std::mem::take(&mut last.hunks);
    total += json_len(&*last) + 1;
    if total > budget {
        changes.files.pop();
        return changes;
    }
    for hunk in hunks {
        total += json_len(&hunk) + 1;
        if total > budget {
            break;
        }
        last.hunks.push(hunk);
    }
    changes
}

/// A value's JSON length (past any frame when it cannot be written).
fn json_len<T: Serialize>(value: &T) -> usize {
    serde_json::to_vec(value).map_or(MAX_FRAME + 1, |v| v.len())
}

/// What a restore does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RestoreAction {
    /// Start them again.
    #[default]
    Start,
    /// Only list them.
    List,
    /// Forget them (the dialog's "none").
    Forget,
}

/// `restore`: the tasks that ended with a server, started again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RestoreRequest {
    /// Which (names or numbers they had); empty: all.
    #[serde(default)]
    pub tasks: Vec<String>,
    #[serde(default)]
    pub action: RestoreAction,
    pub path_var: String,
    pub cols: u16,
    pub rows: u16,
    #[serde(default)]
    pub env: Vec<(String, String)>,
    #[serde(default)]
    pub outputs: TaskOutputs,
}

/// One task of a restore.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Restored {
    pub name: String,
    /// The number it had.
    pub number: Option<u64>,
    pub agent: String,
    pub cwd: String,
    /// Its command line as it ran.
    pub command: String,
    /// The agent's conversation id its hooks reported, if any.
    pub session: Option<String>,
    /// The agent continues its conversation (its resume option is given).
    pub resumed: bool,
    /// What the user should know (it starts fresh, and why).
    pub note: Option<String>,
    /// Why it could not be started (it stays to restore later).
    pub error: Option<String>,
    /// The task started in its place (`None`: listed, forgotten or failed).
    pub row: Option<TaskRow>,
}

/// `view`: one task's screen at the client's size.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ViewRequest {
    /// The task: its number or name.
    pub task: String,
    pub cols: u16,
    pub rows: u16,
    /// Lines of the task's scrollback to send before the first repaint
    /// (at most [`VIEW_HISTORY_MAX`]; 0: none, the screen alone).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub history: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// The most scrollback lines a view sends before its first repaint, and
/// the most bytes they take (the oldest lines go first past either).
pub const VIEW_HISTORY_MAX: u32 = 5000;
pub const VIEW_HISTORY_BYTES: usize = 2 << 20;

/// One remote host's tasks as the server's link to it heard them
/// (`hosts`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostTasks {
    /// Its name in config.toml's `[hosts]`.
    pub name: String,
    /// `connecting`, `connected` or `down`.
    pub link: String,
    /// When down: why (ssh's or the host's message, short).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// When down: since when (this machine's Unix ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub down_since: Option<u64>,
    /// The host's clock now (Unix ms), so `now - since` is a row's time in
    /// its state.
    pub now: u64,
    /// Its tasks by number, as last heard (kept while disconnected).
    pub tasks: Vec<TaskRow>,
}

/// One task as `termic ls` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskRow {
    /// The task's number (the sidebar's, the one every verb takes), not
    /// the runtime's internal id.
    pub id: u64,
    pub name: String,
    pub agent: String,
    /// idle, working, needs_you, done, interrupted, error, rate_limited or
    /// exited.
    pub state: String,
    /// With `rate_limited`: the reset time the agent named, `HH:MM` on the
    /// server's clock (protocol 7); absent when it named none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
    /// With `error`: why, as a [`termic_signal::stop::StopReason`] wire
    /// name on the wire (`overloaded`, `server_error`, `auth_failed`,
    /// `api_error`, `rate_limited`); absent on every other state and from
    /// a server older than protocol 10. A name this termic does not know
    /// (a newer or a hostile peer's) is dropped as the row is read, so
    /// only this termic's own label is ever shown for it: the row then
    /// says a plain error. Read it with [`TaskRow::stop_reason`].
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "reason_name",
        deserialize_with = "known_reason"
    )]
    pub reason: Option<termic_signal::stop::StopReason>,
    /// When the task entered that state, Unix time in milliseconds.
    pub since: u64,
    /// When the task started, Unix time in milliseconds.
    #[serde(default)]
    pub started: u64,
    pub cwd: String,
    pub worktree: Option<String>,
    /// The exit code once exited (`None` while running or when a signal
    /// ended it).
    pub exit_code: Option<i32>,
    /// What the task needs you for; absent unless it needs you.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attention: Option<Box<RowAttention>>,
    /// The answers its agent's dialog offers, as `answer` takes them;
    /// absent when termic cannot know them (a dialog read off the screen
    /// alone, a question in prose, an agent whose dialog it does not know).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<Choice>,
    /// What the task did while no client was attached, since a client
    /// last attached; absent when it did nothing. Protocol 7.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub away: Option<Box<RowAway>>,
}

/// A task's "while you were away": bounded (at most
/// [`crate::server::away::AWAY_ROW_CHANGES`] changes, the last ones).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RowAway {
    /// Its state changes, oldest first.
    pub changes: Vec<RowChange>,
    /// Older changes left out to keep the bound.
    #[serde(default)]
    pub more: u32,
    /// What the task changed in its directory or worktree by its last
    /// done (`+10 -3, 2 files`), when git told it in time.
    #[serde(default)]
    pub stat: Option<String>,
    /// The agent's last message of its last turn, where its end-of-turn
    /// hook carries one (cleaned, at most
    /// [`crate::server::away::AWAY_MESSAGE_CHARS`] chars). Added
    /// 2026-12-06; absent from older servers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// One state change of a task while no client was attached.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RowChange {
    /// The badge's label (`working`, `done`, `needs you [permission]`),
    /// cleaned.
    pub state: String,
    /// When, Unix time in milliseconds.
    pub at: u64,
}

impl TaskRow {
    /// Why an `error` row stopped, when its server said a reason this
    /// termic knows; `None` on any other state.
    pub fn stop_reason(&self) -> Option<termic_signal::stop::StopReason> {
        self.reason.filter(|_| self.state == "error")
    }
}

/// A row's `reason` on the wire: its wire name.
fn reason_name<S>(reason: &Option<termic_signal::stop::StopReason>, s: S) -> Result<S::Ok, S::Error>
where
    S: serde::Serializer,
{
    match reason {
        Some(r) => s.serialize_str(r.as_wire()),
        None => s.serialize_none(),
    }
}

/// A row's `reason` as read: a known wire name, or nothing. A string this
/// termic does not know, or a value that is not a string (a later
/// protocol's), is dropped, never a failure to read the row.
fn known_reason<'de, D>(d: D) -> Result<Option<termic_signal::stop::StopReason>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Wire {
        Name(String),
        Other(serde::de::IgnoredAny),
    }
    Ok(match Option::<Wire>::deserialize(d)? {
        Some(Wire::Name(name)) => termic_signal::stop::StopReason::from_wire(&name),
        Some(Wire::Other(_)) | None => None,
    })
}

#[cfg(test)]
impl TaskRow {
    /// A row for tests: `since` and `started` 0, in `/`, running, needing
    /// nothing; the test sets any other field it needs.
    pub fn for_test(id: u64, name: &str, agent: &str, state: &str) -> TaskRow {
        TaskRow {
            id,
            name: name.into(),
            agent: agent.into(),
            state: state.into(),
            until: None,
            reason: None,
            since: 0,
            started: 0,
            cwd: "/".into(),
            worktree: None,
            exit_code: None,
            attention: None,
            choices: Vec::new(),
            away: None,
        }
    }
}

/// What a task that needs you is asked, as the engine heard it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RowAttention {
    /// `permission`, `question`, `plan`, `notification`, `title`, `unsure`
    /// (a newer server may add kinds).
    pub kind: String,
    /// What is asked, cleaned of control and bidi characters; `None` when
    /// the channel said only the kind.
    #[serde(default)]
    pub message: Option<String>,
    /// The message was read from the task's output (a native status, a
    /// title, a notification), not from one of termic's hooks.
    #[serde(default)]
    pub from_output: bool,
}

/// One answer a dialog offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Choice {
    /// termic's own id for it (`approve_once`, `approve_always`, `deny`,
    /// `option_1`...): never text from the screen.
    pub id: String,
    /// The option as the dialog labels it, cleaned.
    pub label: String,
}

/// What became of an `answer`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Answered {
    /// The choice's keys were sent to the task.
    Sent,
    /// The dialog or that choice is no longer on the screen: nothing was
    /// sent.
    ScreenChanged,
    /// The task no longer needs you: nothing was sent.
    NotNeeded,
    /// The task's agent offers no choice of that id: nothing was sent.
    UnknownChoice,
    /// A two-step choice (opencode's "Allow always", protocol 10): its
    /// first keys were sent, but the agent's second prompt did not show as
    /// measured within 3 s, so nothing more was sent; it waits on the screen.
    PartlySent,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WaitOutcome {
    Reached(WaitFor),
    /// The task exited before reaching any awaited state.
    Exited,
    TimedOut,
}

/// The error for an answer `from` (who answered: "the termic server",
/// "host far") gave where a command expected another: the answer's kind as
/// the wire names it (`tasks`, `started`...), and an `error`'s message,
/// never the Debug form of the answer (it would print internal ids and
/// whole rows to the user).
pub fn unexpected(from: &str, answer: &Response) -> anyhow::Error {
    if let Response::Error { message } = answer {
        return anyhow::anyhow!("{from} answered with an error: {message}");
    }
    let kind = match serde_json::to_value(answer) {
        Ok(serde_json::Value::String(kind)) => kind,
        Ok(serde_json::Value::Object(map)) => map.keys().next().cloned().unwrap_or_default(),
        _ => String::new(),
    };
    anyhow::anyhow!("{from} answered something else ({kind})")
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Response {
    Welcome {
        version: String,
        pid: u32,
        /// Something the user must hear once (processes a killed server
        /// left, ended at this server's start). Absent from the frame when
        /// `None`, so the hello keeps its shape for every other version.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        notice: Option<String>,
    },
    /// Refused at hello (another version, another user): the message says
    /// what to run.
    Refused {
        message: String,
    },
    Tasks(Vec<TaskRow>),
    Started(TaskRow),
    /// A task was renamed: its row, with the name it now has.
    Renamed(TaskRow),
    Waited(WaitOutcome),
    /// A task was ended. `worktree`: the worktree termic made for it, if
    /// any, and what became of it.
    Killed {
        worktree: Option<KilledWorktree>,
    },
    Ok,
    Attached,
    /// The last message of an attach stream.
    Detached(DetachReason),
    /// A request that failed; the message is for the user.
    Error {
        message: String,
    },
    /// The answer to `subscribe`: every task by number, and the server's
    /// clock (Unix ms) when the list was made, so a client whose clock
    /// differs (another host) can tell how long ago `since` was.
    Subscribed {
        now: u64,
        tasks: Vec<TaskRow>,
    },
    /// Pushed to a subscriber: a task appeared or its row changed. The
    /// row replaces the one with the same number.
    Task(TaskRow),
    /// Pushed to a subscriber: the task with this number was closed.
    TaskRemoved {
        id: u64,
    },
    /// The answer to `base`: the task's name and its base, or why it has
    /// none (not a repository, git failed when it started).
    Base {
        name: String,
        base: Option<crate::review::ReviewBase>,
        why: Option<String>,
    },
    /// The answer to `history` (protocol 7).
    History(HistoryRows),
    /// The answer to `view`: the task's number. Output frames follow.
    Viewing {
        id: u64,
    },
    /// In a view: the task's screen has this size from the next output
    /// frame on (a full repaint at it follows). The first comes before the
    /// first repaint; another client may have given the task its size.
    ViewSize(input::Size),
    /// The answer to `restore`: each task, started, listed or forgotten.
    Restored(Vec<Restored>),
    /// The answer to `answer`.
    Answered(Answered),
    /// The answer to `hosts`, and pushed again at each change: every
    /// configured host, in config order.
    Hosts(Vec<HostTasks>),
    /// The answer to `timeline` (protocol 8).
    Timeline(Vec<TimelineEntry>),
    /// The answer to `changes` (protocol 8).
    Changes(termic_review::model::Changes),
    /// The answer to `details` (protocol 9).
    Details(TaskDetails),
    /// The answer to `reload_hosts`: how many hosts config.toml names now
    /// (protocol 9).
    HostsReloaded {
        hosts: usize,
    },
    /// The answer to `revert` (protocol 9).
    Reverted(RevertedIn),
    /// The answer to `merge` (protocol 9): what the merge did, how, and
    /// the task's worktree.
    Merged {
        merged: termic_review::merge::Merged,
        how: String,
        worktree: std::path::PathBuf,
    },
}

/// A killed task's worktree: kept (the default) or removed, and its branch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KilledWorktree {
    pub path: std::path::PathBuf,
    pub branch: Option<String>,
    pub removed: bool,
    /// Why removing it failed (it is kept then).
    pub error: Option<String>,
}

/// Why a frame could not be read.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    #[error("the connection closed")]
    Closed,
    #[error("a message of {0} bytes is over the limit")]
    TooLarge(usize),
    #[error("a message is not valid: {0}")]
    Invalid(String),
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// Write one message as a frame.
pub fn write_frame<T: Serialize>(out: &mut impl Write, message: &T) -> io::Result<()> {
    let body = serde_json::to_vec(message).map_err(io::Error::other)?;
    if body.len() > MAX_FRAME {
        return Err(io::Error::other("message over the frame limit"));
    }
    let mut frame = Vec::with_capacity(4 + body.len());
    frame.extend_from_slice(&(body.len() as u32).to_be_bytes());
    frame.extend_from_slice(&body);
    out.write_all(&frame)?;
    out.flush()
}

/// Read one frame's body (no decoding).
pub fn read_body(input: &mut impl Read) -> Result<Vec<u8>, FrameError> {
    let mut len = [0u8; 4];
    match input.read_exact(&mut len) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Err(FrameError::Closed),
        Err(e) => return Err(e.into()),
    }
    let len = u32::from_be_bytes(len) as usize;
    if len > MAX_FRAME {
        return Err(FrameError::TooLarge(len));
    }
    let mut body = vec![0u8; len];
    input.read_exact(&mut body).map_err(|e| match e.kind() {
        io::ErrorKind::UnexpectedEof => FrameError::Closed,
        _ => FrameError::Io(e),
    })?;
    Ok(body)
}

/// The first byte of an output frame's body. A JSON body never starts with
/// it, so an attach stream mixes output frames and messages unambiguously.
pub const OUTPUT_TAG: u8 = 0;

/// Bytes for an attached client's terminal (a frame's changed cells, a
/// bell, a notification), as frames of `OUTPUT_TAG` then the bytes.
pub fn write_output(out: &mut impl Write, bytes: &[u8]) -> io::Result<()> {
    for chunk in bytes.chunks(MAX_FRAME - 1) {
        let len = (chunk.len() + 1) as u32;
        out.write_all(&len.to_be_bytes())?;
        out.write_all(&[OUTPUT_TAG])?;
        out.write_all(chunk)?;
    }
    out.flush()
}

/// What an attached client reads. One frame at a time, read and matched
/// at once, never stored in bulk: its size is no cost, and a boxed
/// `Response` would make every nested match (a dozen, across the
/// clients) take the box apart first. A task row's `reason` (protocol
/// 10, 2026-12-07) took `Response` over the lint's size difference.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, PartialEq, Eq)]
pub enum AttachFrame {
    Output(Vec<u8>),
    Message(Response),
}

/// Read one frame of an attach stream.
pub fn read_attach_frame(input: &mut impl Read) -> Result<AttachFrame, FrameError> {
    let mut body = read_body(input)?;
    if body.first() == Some(&OUTPUT_TAG) {
        body.remove(0);
        return Ok(AttachFrame::Output(body));
    }
    decode(&body).map(AttachFrame::Message)
}

/// Decode one frame body.
pub fn decode<T: for<'de> Deserialize<'de>>(body: &[u8]) -> Result<T, FrameError> {
    serde_json::from_slice(body).map_err(|e| FrameError::Invalid(e.to_string()))
}

/// Read and decode one message.
pub fn read_frame<T: for<'de> Deserialize<'de>>(input: &mut impl Read) -> Result<T, FrameError> {
    decode(&read_body(input)?)
}

/// The server's answer to a client's hello (pure).
pub fn answer_hello(
    client_protocol: u32,
    client_version: &str,
    server_version: &str,
    server_pid: u32,
) -> Response {
    if client_protocol == PROTOCOL {
        return Response::Welcome {
            version: server_version.to_owned(),
            pid: server_pid,
            notice: None,
        };
    }
    Response::Refused {
        message: mismatch_message(server_version, client_version),
    }
}

/// What a user reads when the running server and this termic differ.
pub fn mismatch_message(server_version: &str, client_version: &str) -> String {
    format!(
        "the running termic server is version {server_version} and this termic is \
         {client_version}; run `termic server stop` (it ends the server's tasks) and try again"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timeline_keeps_its_newest_entries_that_fit_one_frame() {
        let entry = |i: usize, len: usize| TimelineEntry {
            at_ms: i as u64,
            transition: i % 2 == 0,
            text: "x".repeat(len),
        };
        let small: Vec<_> = (0..10).map(|i| entry(i, 10)).collect();
        assert_eq!(fit_timeline(small.clone()), small);
        // 5,000 entries of 1 KiB do not fit: the newest that do, in order.
        let big: Vec<_> = (0..5000).map(|i| entry(i, 1024)).collect();
        let kept = fit_timeline(big);
        assert!(kept.len() > 500 && kept.len() < 1024, "{}", kept.len());
        assert_eq!(kept.last().unwrap().at_ms, 4999);
        assert!(kept.windows(2).all(|w| w[0].at_ms + 1 == w[1].at_ms));
        let mut frame = Vec::new();
        write_frame(&mut frame, &Response::Timeline(kept)).unwrap();
        assert!(frame.len() <= MAX_FRAME + 4, "{}", frame.len());
    }

    #[test]
    fn changes_keep_the_first_files_and_hunks_that_fit_one_frame() {
        use termic_review::model::{Changes, FileDiff, FileStatus, Hunk, Line, LineKind};
        let hunk = |i: u32| Hunk {
            header: format!("@@ -{i} +{i} @@"),
            old_start: i,
            new_start: i,
            lines: vec![Line {
                kind: LineKind::Added,
                old: None,
                new: Some(i),
                text: "y".repeat(4000),
                bytes: None,
            }],
        };
        let file = |n: usize, hunks: u32| FileDiff {
            path: format!("f{n}"),
            old_path: None,
            status: FileStatus::Modified,
            mode: None,
            binary: false,
            added: u64::from(hunks),
            removed: 0,
            hunks: (0..hunks).map(hunk).collect(),
        };
        let small = Changes {
            files: vec![file(0, 2)],
            cut: false,
        };
        assert_eq!(fit_changes(small.clone()), small);
        // 10 files of 400 hunks of 4 KB: the first file's hunks that fit.
        let big = Changes {
            files: (0..10).map(|n| file(n, 400)).collect(),
            cut: false,
        };
        let kept = fit_changes(big);
        assert!(kept.cut);
        assert_eq!(kept.files.len(), 1);
        let hunks = kept.files[0].hunks.len();
        assert!(hunks > 200 && hunks < 260, "{hunks}");
        assert_eq!(kept.files[0].hunks[0].old_start, 0);
        let mut frame = Vec::new();
        write_frame(&mut frame, &Response::Changes(kept)).unwrap();
        assert!(frame.len() <= MAX_FRAME + 4, "{}", frame.len());
        // Files of one hunk each: whole files only, in order.
        let many = Changes {
            files: (0..400).map(|n| file(n, 1)).collect(),
            cut: false,
        };
        let kept = fit_changes(many);
        assert!(kept.cut && kept.files.len() > 200 && kept.files.len() < 400);
        assert!(kept
            .files
            .iter()
            .enumerate()
            .all(|(i, f)| f.path == format!("f{i}")));
    }

    #[test]
    fn a_message_survives_a_round_trip() {
        let req = Request::Wait {
            task: "t1".into(),
            states: vec![WaitFor::NeedsYou, WaitFor::Exited],
            timeout_ms: Some(5000),
        };
        let mut buf = Vec::new();
        write_frame(&mut buf, &req).unwrap();
        let back: Request = read_frame(&mut buf.as_slice()).unwrap();
        assert_eq!(back, req);
    }

    #[test]
    fn an_attach_stream_mixes_output_and_messages() {
        let mut buf = Vec::new();
        write_output(&mut buf, b"\x1b[1;1Hhi").unwrap();
        write_frame(&mut buf, &Response::Detached(DetachReason::Detached)).unwrap();
        write_output(&mut buf, &vec![b'x'; MAX_FRAME + 10]).unwrap();
        let mut input = buf.as_slice();
        assert_eq!(
            read_attach_frame(&mut input).unwrap(),
            AttachFrame::Output(b"\x1b[1;1Hhi".to_vec())
        );
        assert_eq!(
            read_attach_frame(&mut input).unwrap(),
            AttachFrame::Message(Response::Detached(DetachReason::Detached))
        );
        // A big repaint is split into frames under the limit.
        let AttachFrame::Output(first) = read_attach_frame(&mut input).unwrap() else {
            panic!("not output");
        };
        let AttachFrame::Output(second) = read_attach_frame(&mut input).unwrap() else {
            panic!("not output");
        };
        assert_eq!(first.len() + second.len(), MAX_FRAME + 10);
        assert!(matches!(
            read_attach_frame(&mut input),
            Err(FrameError::Closed)
        ));
    }

    /// docs/protocol.md's examples of the streams are what goes on the wire.
    #[test]
    fn the_documented_stream_examples_are_the_wire_form() {
        let json = |r: &Response| serde_json::to_string(r).unwrap();
        let row = TaskRow {
            id: 2,
            name: "review".into(),
            agent: "claude".into(),
            state: "needs_you".into(),
            until: None,
            reason: None,
            since: 1_796_544_060_000,
            started: 1_796_544_000_000,
            cwd: "/src/app".into(),
            worktree: None,
            exit_code: None,
            attention: None,
            choices: Vec::new(),
            away: None,
        };
        assert_eq!(
            serde_json::to_string(&Request::Subscribe).unwrap(),
            r#""subscribe""#
        );
        assert_eq!(
            json(&Response::Subscribed {
                now: 1_796_544_090_000,
                tasks: vec![row.clone()]
            }),
            r#"{"subscribed":{"now":1796544090000,"tasks":[{"id":2,"name":"review","agent":"claude","state":"needs_you","since":1796544060000,"started":1796544000000,"cwd":"/src/app","worktree":null,"exit_code":null}]}}"#
        );
        assert!(json(&Response::Task(row)).starts_with(r#"{"task":{"id":2,"#));
        assert_eq!(
            json(&Response::TaskRemoved { id: 2 }),
            r#"{"task_removed":{"id":2}}"#
        );
        assert_eq!(
            serde_json::to_string(&Request::View(ViewRequest {
                task: "2".into(),
                cols: 100,
                rows: 30,
                history: 0,
            }))
            .unwrap(),
            r#"{"view":{"task":"2","cols":100,"rows":30}}"#
        );
        assert_eq!(
            json(&Response::Viewing { id: 2 }),
            r#"{"viewing":{"id":2}}"#
        );
        assert_eq!(
            json(&Response::ViewSize(input::Size {
                cols: 100,
                rows: 30
            })),
            r#"{"view_size":{"cols":100,"rows":30}}"#
        );
        assert_eq!(
            json(&Response::Detached(DetachReason::Closed)),
            r#"{"detached":"closed"}"#
        );
        assert_eq!(
            serde_json::to_string(&Request::Input(InputEvent::Paste("y".into()))).unwrap(),
            r#"{"input":{"paste":"y"}}"#
        );
    }

    /// Protocol 10: an error row's `reason` is the stop reason's wire
    /// name, round trips, and is absent on other rows (a protocol 9 row
    /// decodes). A name this termic does not know, markup, escapes or a
    /// value that is not a string is dropped as the row is read: the row
    /// still decodes, and says a plain error.
    #[test]
    fn an_error_rows_reason_round_trips_and_an_unknown_one_is_dropped() {
        use termic_signal::stop::StopReason;
        let plain = TaskRow::for_test(4, "fix", "claude", "error");
        let json = serde_json::to_string(&plain).unwrap();
        assert!(!json.contains("reason"), "{json}");
        assert_eq!(serde_json::from_str::<TaskRow>(&json).unwrap(), plain);
        for r in StopReason::ALL {
            let row = TaskRow {
                reason: Some(r),
                ..plain.clone()
            };
            let json = serde_json::to_string(&row).unwrap();
            assert!(
                json.contains(&format!(r#""reason":"{}""#, r.as_wire())),
                "{json}"
            );
            let back: TaskRow = serde_json::from_str(&json).unwrap();
            assert_eq!(back, row);
            assert_eq!(back.stop_reason(), Some(r));
        }
        let with = |reason: &str| {
            json.replace(
                "\"state\":\"error\"",
                &format!("\"state\":\"error\",\"reason\":{reason}"),
            )
        };
        for odd in [
            r#""quota_gone""#,
            r#""\u001b]0;x\u0007<b>auth_failed</b>""#,
            r#""auth failed""#,
            r#""Auth_Failed""#,
            r#""""#,
            "7",
            r#"{"kind":"auth_failed"}"#,
            "null",
        ] {
            let raw = with(odd);
            assert!(raw.contains("reason"), "{raw}");
            let back: TaskRow = serde_json::from_str(&raw).unwrap_or_else(|e| panic!("{odd}: {e}"));
            assert_eq!(back.reason, None, "{odd}");
            assert_eq!(back.stop_reason(), None, "{odd}");
        }
    }

    /// Protocol 6: a row that needs you says what is asked and the
    /// choices; a row without them is the row protocol 5 knew, and decodes.
    #[test]
    fn attention_and_choices_are_on_the_row_only_when_there() {
        let mut row = TaskRow {
            id: 3,
            name: "login".into(),
            agent: "claude".into(),
            state: "needs_you".into(),
            until: None,
            reason: None,
            since: 2,
            started: 1,
            cwd: "/src".into(),
            worktree: None,
            exit_code: None,
            attention: None,
            choices: Vec::new(),
            away: None,
        };
        let plain = serde_json::to_string(&row).unwrap();
        assert!(
            !plain.contains("attention") && !plain.contains("choices"),
            "{plain}"
        );
        assert_eq!(serde_json::from_str::<TaskRow>(&plain).unwrap(), row);
        row.attention = Some(Box::new(RowAttention {
            kind: "permission".into(),
            message: Some("approve Write: src/login.rs".into()),
            from_output: false,
        }));
        row.choices = vec![Choice {
            id: "approve_once".into(),
            label: "Yes".into(),
        }];
        let json = serde_json::to_string(&row).unwrap();
        assert!(
            json.ends_with(
                r#""exit_code":null,"attention":{"kind":"permission","message":"approve Write: src/login.rs","from_output":false},"choices":[{"id":"approve_once","label":"Yes"}]}"#
            ),
            "{json}"
        );
        assert_eq!(serde_json::from_str::<TaskRow>(&json).unwrap(), row);
        assert_eq!(
            serde_json::to_string(&Request::Answer {
                task: "3".into(),
                choice: "approve_once".into()
            })
            .unwrap(),
            r#"{"answer":{"task":"3","choice":"approve_once"}}"#
        );
        for (answered, wire) in [
            (Answered::Sent, "sent"),
            (Answered::ScreenChanged, "screen_changed"),
            (Answered::NotNeeded, "not_needed"),
            (Answered::UnknownChoice, "unknown_choice"),
            (Answered::PartlySent, "partly_sent"),
        ] {
            assert_eq!(
                serde_json::to_string(&Response::Answered(answered)).unwrap(),
                format!(r#"{{"answered":"{wire}"}}"#)
            );
        }
    }

    #[test]
    fn an_oversized_length_is_refused_before_any_allocation() {
        let frame = u32::MAX.to_be_bytes();
        let err = read_frame::<Request>(&mut frame.as_slice()).unwrap_err();
        assert!(matches!(err, FrameError::TooLarge(_)), "{err}");
    }

    #[test]
    fn a_short_frame_is_a_closed_connection() {
        let mut frame = 10u32.to_be_bytes().to_vec();
        frame.extend_from_slice(b"{\"li");
        let err = read_frame::<Request>(&mut frame.as_slice()).unwrap_err();
        assert!(matches!(err, FrameError::Closed), "{err}");
    }

    #[test]
    fn another_protocol_is_refused_with_what_to_run() {
        let refused = answer_hello(PROTOCOL + 1, "9.9.9", "0.1.0", 42);
        let Response::Refused { message } = refused else {
            panic!("{refused:?}");
        };
        assert!(message.contains("termic server stop"), "{message}");
        assert!(
            message.contains("9.9.9") && message.contains("0.1.0"),
            "{message}"
        );
        assert_eq!(
            answer_hello(PROTOCOL, "0.1.0", "0.1.0", 42),
            Response::Welcome {
                version: "0.1.0".into(),
                pid: 42,
                notice: None,
            }
        );
        // Without a notice the welcome is the same frame older clients know.
        let mut frame = Vec::new();
        write_frame(&mut frame, &answer_hello(PROTOCOL, "0.1.0", "0.1.0", 42)).unwrap();
        assert_eq!(&frame[4..], br#"{"welcome":{"version":"0.1.0","pid":42}}"#);
    }
}

#[cfg(test)]
mod unexpected_tests {
    use super::*;

    #[test]
    fn an_unexpected_answer_names_its_kind_and_never_its_contents() {
        let rows = vec![TaskRow::for_test(7, "secret-name", "claude", "working")];
        let e = unexpected("the termic server", &Response::Tasks(rows)).to_string();
        assert_eq!(e, "the termic server answered something else (tasks)");
        let e = unexpected(
            "host far",
            &Response::Error {
                message: "no such task".into(),
            },
        );
        assert_eq!(
            e.to_string(),
            "host far answered with an error: no such task"
        );
    }
}
