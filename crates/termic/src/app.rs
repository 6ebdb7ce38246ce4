//! The workspace application: state, the event loop and the glue between
//! the outer terminal, the task runtime, the signal engine and the screens.
//!
//! - [`keys`]: what a key means (agent bytes or a prefix command). Pure.
//! - [`tasks`]: the task list, badges, focus and Inspector timelines. Pure.
//! - [`terminal`]: the outer terminal's modes, restored on every exit.
//! - [`earned`]: the one-time offer of hooks after repeated false dones.
//! - [`frame_pacer`]: when the next frame may be drawn. Pure.
//! - [`input_events`]: outer-terminal events applied to the app.
//! - [`overlays`]: keys inside Settings, the wizard, dialogs.
//! - [`services`]: what the app needs from agents, worktrees, hooks and config.
//! - [`wiring`]: when to re-verify an agent's hooks while its tasks run. Pure.
//!
//! The loop sleeps in one `select!` until input, a runtime event, or the
//! earliest deadline (the engine's next timer, a sidebar time label, a
//! hooks re-check, or the next allowed frame). Redraws are coalesced to at
//! most one per [`FRAME_MS`] (fewer while output streams, see
//! [`frame_pacer`]), so output is never throttled by drawing.

pub mod attach;
pub mod clipboard;
pub mod copy_mode;
pub mod earned;
pub mod frame_pacer;
pub mod input_events;
pub mod keys;
pub mod merge;
pub mod outer;
pub mod overlays;
pub mod remote_actions;
pub mod remote_hosts;
pub mod remote_pane;
pub mod review;
pub mod services;
pub mod split;
pub mod task_basics;
pub mod tasks;
pub use self::task_basics::{restart_task, RestartError};
pub mod terminal;
pub mod wiring;

use std::sync::Arc;
use std::time::Duration;

use anyhow::Result;
use crossbeam_channel::{select, Receiver};
use ratatui::crossterm::event::Event;

use crate::input::PrefixKey;
use crate::notify::{decide, AttentionEvent, Notifier, NotifySettings};
use crate::ui::inspector::{EntryKind, InspectorEntry};
use crate::ui::layout::{SidebarWidth, WorkspaceLayout};
use crate::ui::pane::PaneSnapshot;
use crate::ui::sidebar::Badge;
use crate::ui::{Message, Overlay, WorkspaceView};
use ratatui::layout::Rect;
use termic_runtime::clock::Clock;
use termic_runtime::{lock, Runtime, RuntimeEvent, TaskId, TaskOutputs, TaskSpec, TermSize};

use self::frame_pacer::FramePacer;
use self::services::Services;
use self::tasks::{TaskEntry, TaskList};
use self::terminal::TerminalGuard;

pub use self::frame_pacer::FRAME_MS;

/// What a task was started with: its spec (restart from any client, `ls`'s
/// cwd) and the worktree termic made for it (the sidebar's worktree row in
/// every client, `ls`'s worktree).
#[derive(Debug, Clone)]
pub struct Launched {
    pub spec: TaskSpec,
    pub worktree: Option<std::path::PathBuf>,
    /// The event log and recording of the client that started it: a
    /// restart from any client keeps them.
    pub outputs: TaskOutputs,
    /// What its changes are counted from (issue 32), taken before it
    /// started; the reason when there is none (not a repository, git
    /// failed).
    pub base: Result<crate::review::ReviewBase, String>,
}

/// Every task's [`Launched`] by runtime id, shared by the server and each
/// attached client's app.
pub type TaskSpecs = std::sync::Arc<std::sync::Mutex<std::collections::HashMap<u64, Launched>>>;

/// Told the remote host's task (host, number) the user looks at, or none.
pub type OnWatchedRemote = Box<dyn FnMut(Option<(String, u64)>) + Send>;

/// How the app starts.
pub struct AppOptions {
    pub prefix: PrefixKey,
    pub notify: NotifySettings,
    /// Open the first-run wizard over the workspace.
    pub wizard: Option<crate::ui::wizard::WizardView>,
    /// Copy mode's keys (config.toml, else the attaching terminal's editor).
    pub copy_keys: copy_mode::CopyKeys,
    /// Syntax colours in the diff view (`[ui] diff_syntax`).
    pub diff_syntax: bool,
}

pub struct App {
    pub runtime: Runtime,
    pub services: Box<dyn Services>,
    clock: Arc<dyn Clock>,
    pub tasks: TaskList,
    pub overlay: Option<Overlay>,
    pub prefix: PrefixKey,
    pub prefix_pending: bool,
    /// The outer terminal has focus (crossterm FocusGained/FocusLost).
    pub outer_focused: bool,
    /// The task whose engine was last told it is watched.
    watched: Option<TaskId>,
    /// The remote host's task (host, number) last told watched.
    watched_remote: Option<(String, u64)>,
    /// Outer terminal size (cols, rows).
    pub size: (u16, u16),
    pub message: Option<crate::ui::Message>,
    /// What the tasks did while no client was attached, as the last attach
    /// told it: prefix `a` shows it again.
    pub away_summary: Option<String>,
    pub notify: NotifySettings,
    notifier: Notifier,
    /// Bytes for the outer terminal (bell, OSC notifications), written after
    /// the next frame so they never land inside one.
    pending_out: Vec<u8>,
    needs_draw: bool,
    pub quit: bool,
    /// Attached to the server as a client: prefix `d` detaches.
    pub attached: bool,
    /// The loop ended by detaching (prefix `d`, or the client went away),
    /// not by quitting: the tasks keep running.
    pub detach: bool,
    earned: earned::EarnedPrompt,
    /// Per agent id: hooks verified wired (from the last status read), as
    /// last told to the runtime.
    wired: std::collections::HashMap<String, bool>,
    /// When to stamp each agent's hook files again while its tasks run.
    wiring: wiring::WiringWatch,
    /// The sidebar's width: automatic, or set with the prefix then `<` `>`.
    pub sidebar_width: SidebarWidth,
    /// The prefix then `'` was typed: the next letter picks task 10 to 35.
    pub jump_pending: bool,
    /// Copy mode over the focused task, when on.
    pub copy: Option<copy_mode::CopyMode>,
    /// vi or emacs keys in copy mode.
    pub copy_keys: copy_mode::CopyKeys,
    /// Syntax colours in the diff view.
    pub diff_syntax: bool,
    /// Where a left button went down in the pane (a drag selects from there).
    drag_from: Option<(u16, u16)>,
    /// What each task was started with, for restart (by runtime id);
    /// in the server, shared by every attached client and `run --detach`.
    pub specs: TaskSpecs,
    /// Two tasks shown at once (prefix `|` or `-`).
    pub split: Option<split::Split>,
    /// The task that had focus before the last focus change.
    last_focused: Option<u64>,
    /// Attached with other clients: whose size the tasks take.
    pub size_claim: Option<attach::SizeClaim>,
    /// Told the watched task whenever it changes (the server's push
    /// dispatcher sends nothing about a task a client is looking at).
    pub on_watched: Option<Box<dyn FnMut(Option<TaskId>) + Send>>,
    /// Told the remote host's task in the pane (host, number) whenever
    /// the user starts or stops looking at it (the pane has the focus and
    /// the outer terminal too): it is not pushed meanwhile.
    pub on_watched_remote: Option<OnWatchedRemote>,
    /// Where the transitions and recordings of the tasks this app starts
    /// go (its client's `--event-log`, `--record`, `--record-input`).
    pub outputs: TaskOutputs,
    /// What each task changed, read off the loop when it goes done.
    stats: review::Stats,
    /// A message here stops the loop (in-process, a fatal signal put the
    /// terminal back and ended the tasks).
    pub stop: Receiver<()>,
    /// In the server: starts again (or forgets) the tasks that ended with
    /// the server before, for the restore dialog.
    pub restorer: Option<Restorer>,
    /// In the server: the remote hosts' tasks (issue 29).
    pub remote: Option<remote_hosts::RemoteFeed>,
    /// The remote tasks shown: in the pane instead of the focused local
    /// task, or in a split's halves (two at most, one link each).
    pub remote_panes: remote_pane::RemotePanes,
    /// The id of the remote pane that has the focus (another may be shown
    /// unfocused in a split's other half).
    pub remote_focus: Option<u64>,
    /// Rename, close, restart and the Inspector on a remote task: the
    /// requests to its host and their answers.
    pub(crate) host_actions: remote_actions::HostActions,
    /// The hosts' groups as last drawn (the sidebar's mouse map).
    pub(crate) host_groups: Vec<crate::ui::sidebar::HostGroup>,

    /// Attached: the client's word on its outer terminal
    /// (`InputEvent::Outer`), and what the server knew of it before.
    pub outer_rx: Receiver<crate::server::protocol::input::Outer>,
    pub outer_setup: outer::OuterSetup,
    /// Reports the workspace's state to the outer terminal, once the client
    /// said how.
    outer: Option<crate::outer::Reporter>,
    /// A reset of a mode given up (a late probe answer), written next.
    outer_out: Vec<u8>,
}

/// What the restore dialog's keys do: the server's `restore`.
/// The tasks named (numbers or names; none: all of them).
pub type Restorer = Box<
    dyn Fn(
        crate::server::protocol::RestoreAction,
        Vec<String>,
    ) -> Vec<crate::server::protocol::Restored>,
>;

impl App {
    pub fn new(
        runtime: Runtime,
        services: Box<dyn Services>,
        options: AppOptions,
        notifier: Notifier,
        size: (u16, u16),
    ) -> Self {
        let clock = Arc::clone(runtime.clock());
        App {
            runtime,
            services,
            clock,
            tasks: TaskList::default(),
            overlay: options.wizard.map(Overlay::Wizard),
            prefix: options.prefix,
            prefix_pending: false,
            outer_focused: true,
            watched: None,
            watched_remote: None,
            size,
            message: None,
            away_summary: None,
            notify: options.notify,
            notifier,
            pending_out: Vec::new(),
            needs_draw: true,
            quit: false,
            attached: false,
            detach: false,
            earned: earned::EarnedPrompt::default(),
            wired: std::collections::HashMap::new(),
            wiring: wiring::WiringWatch::default(),
            sidebar_width: SidebarWidth::Auto,
            jump_pending: false,
            copy: None,
            copy_keys: options.copy_keys,
            diff_syntax: options.diff_syntax,
            drag_from: None,
            specs: TaskSpecs::default(),
            split: None,
            last_focused: None,
            size_claim: None,
            on_watched: None,
            on_watched_remote: None,
            outputs: TaskOutputs::default(),
            stats: review::Stats::default(),
            stop: crossbeam_channel::never(),
            restorer: None,
            remote: None,
            remote_panes: remote_pane::RemotePanes::default(),
            remote_focus: None,
            host_actions: remote_actions::HostActions::default(),
            host_groups: Vec::new(),

            outer_rx: crossbeam_channel::never(),
            outer_setup: outer::OuterSetup::default(),
            outer: None,
            outer_out: Vec::new(),
        }
    }

    /// Where the sidebar, the pane and the status line are now.
    pub fn layout(&self) -> WorkspaceLayout {
        WorkspaceLayout::new(
            Rect::new(0, 0, self.size.0, self.size.1),
            self.sidebar_width,
        )
    }

    pub fn now_ms(&self) -> u64 {
        self.clock.now_ms()
    }

    /// The size every task's PTY gets.
    pub fn pty_size(&self) -> TermSize {
        let (rows, cols) = WorkspaceLayout::pty_size(self.size.0, self.size.1, self.sidebar_width);
        TermSize { rows, cols }
    }

    /// Starts a task and focuses it.
    pub fn spawn(
        &mut self,
        mut spec: TaskSpec,
        worktree: Option<std::path::PathBuf>,
        hooks_wired: bool,
    ) -> Result<TaskId> {
        spec.size = self.pty_size();
        let name = spec.name.clone();
        let agent = spec.agent.clone();
        let profile = spec.profile.clone();
        // A command's label (`bash`, even `claude` run as a command) is not
        // an agent id: it must not overwrite an agent's wired status.
        let is_agent = termic_signal::profile::profile_for(&spec.profile).turns
            == termic_signal::profile::Turns::Agent;
        if is_agent {
            self.runtime.set_hooks_wired(&spec.agent, hooks_wired);
            self.wired.insert(spec.agent.clone(), hooks_wired);
        }
        // A new task is shown: a remote one in the pane gives way.
        self.leave_remote();
        let kept = spec.clone();
        // Before the task starts, so nothing it does is in its base.
        let base = crate::review::take_base(
            &spec.cwd,
            worktree.as_deref(),
            &crate::review::snapshot_key(&name),
        )
        .map_err(|e| e.to_string());
        let id = match self.runtime.spawn_with(spec, &self.outputs, None) {
            Ok(id) => id,
            Err(err) => {
                // A task that never started leaves no worktree and no branch.
                if let Some(path) = &worktree {
                    if let Err(cleanup) = self.services.discard_worktree(path) {
                        return Err(anyhow::Error::from(err).context(format!("{cleanup:#}")));
                    }
                }
                return Err(err.into());
            }
        };
        lock(&self.specs).insert(
            id.0,
            Launched {
                spec: kept,
                worktree: worktree.clone(),
                outputs: self.outputs.clone(),
                base,
            },
        );
        let (number, started) = self
            .runtime
            .info(id)
            .map_or((0, self.now_ms()), |i| (i.meta.number, i.meta.started_ms));
        let mut entry = TaskEntry::new(id.0, number, name, agent, started);
        entry.worktree = worktree;
        entry.profile = profile;
        self.tasks.push(entry);
        self.after_focus_change();
        Ok(id)
    }

    /// Tells engines who is watched, and switches mouse capture. Called
    /// after anything that can change the focused task or outer focus.
    pub fn after_focus_change(&mut self) {
        // A remote task in the pane: no local task is looked at.
        let watched = (self.outer_focused && !self.remote_in_focus())
            .then(|| self.tasks.focused_id().map(TaskId))
            .flatten();
        if watched != self.watched {
            self.runtime.set_watched(watched);
            self.watched = watched;
            if let Some(tell) = &mut self.on_watched {
                tell(watched);
            }
        }
        self.tell_watched_remote();
        let focused = self.focused_any();
        if self.copy.as_ref().is_some_and(|c| Some(c.task) != focused) {
            self.copy = None;
        }
        let before = std::mem::replace(&mut self.last_focused, focused);
        self.split_follow_focus(before);
        self.needs_draw = true;
    }

    /// Moves the engines' new log entries into each task's Inspector
    /// timeline, and refreshes an open Inspector.
    pub fn refresh_timelines(&mut self) {
        for entry in &mut self.tasks.entries {
            let (log, next) = self.runtime.log_since(TaskId(entry.id), entry.log_cursor);
            entry.log_cursor = next;
            let started = entry.started_ms;
            entry.push_timeline(log.iter().map(|e| inspector_entry(e, started)));
        }
        // A remote task's Inspector is its host's timeline.
        if self.host_actions.inspect.is_some() {
            return;
        }
        if let (Some(Overlay::Inspector(view)), Some(entry)) =
            (&mut self.overlay, self.tasks.focused_entry())
        {
            view.entries.clone_from(&entry.timeline);
        }
    }

    /// Offers hooks once when this task's agent keeps saying done while it
    /// waits for the user (counted by the engines of all its tasks).
    fn check_earned_prompt(&mut self, id: TaskId) {
        let Some(entry) = self.tasks.entries.iter().find(|e| e.id == id.0) else {
            return;
        };
        let (agent, profile) = (entry.agent.clone(), entry.profile.clone());
        let false_dones: u32 = self
            .tasks
            .entries
            .iter()
            .filter(|e| e.profile == profile)
            .filter_map(|e| {
                self.runtime
                    .with_engine(TaskId(e.id), |engine| engine.false_done_count())
            })
            .sum();
        let wired = self.wired.get(&agent).copied().unwrap_or(false);
        if let Some(msg) = self
            .earned
            .check(&profile, false_dones, wired, &self.prefix.label)
        {
            self.message = Some(Message::info(msg));
        }
    }

    /// Re-verifies every agent's hooks and tells the runtime the agents
    /// whose wiring changed (each change is logged and recorded per task).
    pub fn refresh_wired(&mut self) {
        for (agent, wired) in self.services.wired() {
            if self.wired.insert(agent.clone(), wired) != Some(wired) {
                self.runtime.set_hooks_wired(&agent, wired);
            }
        }
    }

    /// Something happened to task `id` that may start or end a turn: its
    /// agent's hook files are stamped soon.
    pub fn wiring_moment(&mut self, id: TaskId) {
        if let Some(entry) = self.tasks.entries.iter().find(|e| e.id == id.0) {
            self.wiring.moment(&entry.agent);
        }
    }

    /// Agents with a task whose badge says working.
    fn working_agents(&self) -> Vec<&str> {
        let mut agents: Vec<&str> = self
            .tasks
            .entries
            .iter()
            .filter(|e| e.badge == Badge::Working)
            .map(|e| e.agent.as_str())
            .collect();
        agents.sort_unstable();
        agents.dedup();
        agents
    }

    /// Stamps the hook files of every agent due at `now` and re-verifies
    /// the wiring when a stamp changed, so hooks an agent dropped from its
    /// config mid-task stop governing its tasks without Settings opening.
    pub fn recheck_wiring(&mut self, now: u64) {
        let due = self.wiring.due(now, &self.working_agents());
        let mut changed = false;
        for agent in due {
            let stamp = self.services.wiring_stamp(&agent);
            changed |= self.wiring.observe(&agent, now, stamp);
        }
        if changed {
            self.refresh_wired();
        }
    }

    /// A notification the desktop could not show goes to the outer
    /// terminal; a click on one focuses its task (if it is still open).
    fn on_notify_reply(&mut self, reply: crate::notify::NotifyReply) {
        match reply {
            crate::notify::NotifyReply::Fallback(text) => {
                let bytes = crate::notify::osc_notification(&text, self.notifier.in_tmux);
                self.pending_out.extend_from_slice(&bytes);
            }
            crate::notify::NotifyReply::Focus(task) => {
                if let Some(index) = self.tasks.index_of(task) {
                    self.leave_remote();
                    self.tasks.focus(index);
                    self.after_focus_change();
                }
            }
            // A remote task's notification: that task in the pane, if its
            // host still lists it.
            crate::notify::NotifyReply::FocusRemote { host, number } => {
                let listed = self.remote.as_ref().is_some_and(|r| {
                    termic_runtime::lock(&r.board)
                        .places()
                        .contains(&(host.clone(), number))
                });
                if listed {
                    self.focus_remote(&host, number);
                }
            }
        }
        self.needs_draw = true;
    }

    /// Switches attention delivery to `notify` (Settings, the wizard).
    pub fn set_notify_in_use(&mut self, notify: NotifySettings) {
        self.notify = notify;
        self.notifier.osc_fallback = notify.osc_fallback;
    }

    /// Agents (by the built-in they are based on) that reported their state
    /// natively (OSC 7501) on some task.
    pub fn native_agents(&self) -> Vec<String> {
        let mut agents: Vec<String> = self
            .tasks
            .entries
            .iter()
            .filter(|e| {
                self.runtime
                    .with_engine(TaskId(e.id), |engine| engine.native_status_seen())
                    .unwrap_or(false)
            })
            .map(|e| e.profile.clone())
            .collect();
        agents.sort();
        agents.dedup();
        agents
    }

    pub fn request_draw(&mut self) {
        self.needs_draw = true;
    }

    /// The sidebar's "bash > claude": which agent runs inside a command
    /// task now (one engine lock, on output and transitions only).
    fn refresh_foreground(&mut self, id: TaskId) {
        let now = self
            .runtime
            .with_engine(id, |e| e.foreground_profile().map(str::to_owned))
            .flatten();
        if let Some(entry) = self.tasks.get_mut(id.0) {
            if entry.foreground != now {
                entry.foreground = now;
                self.needs_draw = true;
            }
        }
    }

    /// Events were dropped (the runtime's channel or this client's queue
    /// was full): the list, each badge and the screen are read again from
    /// the runtime, which has them all. Badges set here ring nothing: the
    /// moment they changed is past.
    pub fn resync(&mut self) {
        let live: Vec<u64> = self.runtime.tasks().iter().map(|i| i.meta.id.0).collect();
        let gone: Vec<u64> = self
            .tasks
            .entries
            .iter()
            .map(|e| e.id)
            .filter(|id| !live.contains(id))
            .collect();
        for id in gone {
            self.tasks.remove(id);
        }
        self.adopt_tasks(0);
        for info in self.runtime.tasks() {
            let id = info.meta.id;
            let engine = self
                .runtime
                .with_engine(id, |e| (e.state(), e.attention().cloned()));
            let Some(entry) = self.tasks.get_mut(id.0) else {
                continue;
            };
            entry.name = tasks::shown(&info.meta.name);
            if let termic_runtime::TaskStatus::Exited(code) = info.status {
                entry.set_badge(Badge::Exited(code), info.state_since_ms, true, None);
            } else if let Some((state, attention)) = engine {
                if let Some((badge, _)) = badge_for(state, attention.as_ref()) {
                    entry.set_badge(badge, info.state_since_ms, true, None);
                }
            }
            entry.since_ms = info.state_since_ms;
            self.refresh_foreground(id);
        }
        self.after_focus_change();
        self.needs_draw = true;
    }

    /// Applies one runtime event.
    pub fn on_runtime(&mut self, event: RuntimeEvent) {
        if let RuntimeEvent::Removed(id) = event {
            // Closed by another client or `termic kill`: gone here too (a
            // task this app closed itself is no longer listed).
            if self.tasks.remove(id.0).is_some() {
                self.after_focus_change();
                self.needs_draw = true;
            }
            return;
        }
        if let RuntimeEvent::Resync = event {
            self.resync();
            return;
        }
        if let RuntimeEvent::Notice(text) = event {
            // The event log or a recording stopped: said once, here.
            self.message = Some(Message::warning(text));
            self.needs_draw = true;
            return;
        }
        if let RuntimeEvent::Renamed(id, name) = &event {
            // Renamed in any client or by `termic rename`: the runtime's.
            if let Some(entry) = self.tasks.get_mut(id.0) {
                entry.name = tasks::shown(name);
                self.needs_draw = true;
            }
            return;
        }
        if self.attached {
            // Another client or `termic run --detach` started it.
            if let RuntimeEvent::Dirty(id)
            | RuntimeEvent::Transition(id, _)
            | RuntimeEvent::DeadlineChanged(id)
            | RuntimeEvent::Exited(id, _)
            | RuntimeEvent::Removed(id)
            | RuntimeEvent::RepliesDropped(id) = &event
            {
                if self.tasks.index_of(id.0).is_none() {
                    self.adopt_tasks(0);
                }
            }
        }
        if let RuntimeEvent::Added(id) = event {
            // Started anywhere (another client, `termic run --detach`, a
            // restart): listed here before it prints anything.
            if self.tasks.index_of(id.0).is_none() {
                self.adopt_tasks(0);
                self.needs_draw = true;
            }
            return;
        }
        if let RuntimeEvent::Dirty(id) | RuntimeEvent::Transition(id, _) = &event {
            self.refresh_foreground(*id);
        }
        match event {
            RuntimeEvent::Dirty(id) => {
                if self.tasks.focused_id() == Some(id.0) {
                    if matches!(self.overlay, Some(Overlay::Inspector(_))) {
                        self.refresh_timelines();
                    }
                    self.needs_draw = true;
                }
            }
            RuntimeEvent::Transition(id, transition) => self.on_transition(id, &transition),
            // The loop asks for the next deadline before every sleep.
            RuntimeEvent::DeadlineChanged(_) => {}
            RuntimeEvent::Exited(id, code) => {
                let since = self.state_since(id);
                if let Some(entry) = self.tasks.get_mut(id.0) {
                    entry.set_badge(Badge::Exited(code), since, false, None);
                    entry.since_ms = since;
                }
                self.needs_draw = true;
            }
            RuntimeEvent::Removed(_)
            | RuntimeEvent::Notice(_)
            | RuntimeEvent::Log(_)
            | RuntimeEvent::Resync
            | RuntimeEvent::Added(_)
            | RuntimeEvent::Renamed(..) => {}
            RuntimeEvent::RepliesDropped(id) => {
                if let Some(entry) = self.tasks.get_mut(id.0) {
                    self.message = Some(Message::warning(format!(
                        "{} does not read its input: termic stops answering its terminal \
                         queries until it does",
                        entry.name
                    )));
                    self.needs_draw = true;
                }
            }
        }
    }

    fn on_transition(&mut self, id: TaskId, t: &termic_signal::engine::Transition) {
        let watched = self.watched == Some(id);
        if matches!(self.overlay, Some(Overlay::Inspector(_))) {
            self.refresh_timelines();
        }
        // The runtime's Exited event follows with the exit code.
        let Some((badge, detail)) = badge_of(t) else {
            return;
        };
        // The age is the runtime's (the time it entered its state now),
        // the one `termic ls` and every other client show.
        let since = self.state_since(id);
        let Some(entry) = self.tasks.get_mut(id.0) else {
            return;
        };
        self.wiring.moment(&entry.agent);
        let attention = entry.set_badge(badge, t.at, watched, detail);
        entry.since_ms = since;
        let event = attention.map(|attention| AttentionEvent {
            task: entry.name.clone(),
            agent: entry.agent.clone(),
            attention,
            watched,
            stat: None,
        });
        // Done: what it changed, for the sidebar and the notification.
        if t.to == termic_signal::engine::State::Done {
            self.request_stat(id.0);
            self.refresh_diff_of(id.0);
        }
        // With several clients attached, the workspace in use tells the
        // user (one notification, not one per terminal; a view is no
        // workspace).
        if let Some(event) = event.filter(|_| self.is_notifying_client()) {
            if event.attention == crate::notify::Attention::Done {
                self.deliver_done(id.0, event);
            } else {
                let delivery = decide(&event, self.notify);
                let _ = self
                    .notifier
                    .deliver(&delivery, id.0, &mut self.pending_out);
            }
        }
        if t.to == termic_signal::engine::State::NeedsYou {
            self.check_earned_prompt(id);
        }
        self.needs_draw = true;
    }

    /// When task `id` entered its current state, as the runtime keeps it
    /// (now, for a task already gone).
    fn state_since(&self, id: TaskId) -> u64 {
        self.runtime
            .info(id)
            .map_or_else(|| self.now_ms(), |i| i.state_since_ms)
    }

    /// Copies the focused pane out of its screen model (scrolled back when
    /// the user asked), holding the task's lock only for the copy.
    fn pane_snapshot(&self) -> Option<PaneSnapshot> {
        if let (Some(id), Some(remote)) = (self.remote_focus, self.focused_remote()) {
            let pane = self.task_area(id);
            if let Some(copy) = self.copy.as_ref().filter(|c| c.task == id) {
                let view = copy.view();
                let mut snapshot = PaneSnapshot::capture(view.parser.screen(), pane, false);
                snapshot.mark(&view.marks);
                snapshot.wants_mouse = false;
                return Some(snapshot);
            }
            let screen = lock(&remote.screen);
            let parser = screen.parser.as_ref()?;
            let mut snapshot = PaneSnapshot::capture(parser.screen(), pane, true);
            snapshot.wants_mouse = false;
            return Some(snapshot);
        }
        let entry = self.tasks.focused_entry()?;
        let pane = self.task_area(entry.id);
        if let Some(copy) = self.copy.as_ref().filter(|c| c.task == entry.id) {
            let view = copy.view();
            let mut snapshot = PaneSnapshot::capture(view.parser.screen(), pane, false);
            snapshot.mark(&view.marks);
            // The outer terminal's own selection is not wanted here.
            snapshot.wants_mouse = false;
            return Some(snapshot);
        }
        self.runtime.with_screen(TaskId(entry.id), |screen| {
            PaneSnapshot::capture(screen, pane, true)
        })
    }

    /// The split's other task, drawn in its half (no cursor).
    fn other_snapshot(&self) -> Option<PaneSnapshot> {
        let split = self.split?;
        let focused = self.focused_any()?;
        let other = if split.first == focused {
            split.second
        } else {
            split.first
        };
        let area = self.task_area(other);
        if remote_pane::is_remote(other) {
            let remote = self.remote_panes.get(other)?;
            let wall = self.clock.wall_ms();
            let offset = attach::utc_offset_secs(wall);
            return Some(remote_pane::unfocused_snapshot(remote, area, offset));
        }
        self.runtime.with_screen(TaskId(other), |screen| {
            PaneSnapshot::capture(screen, area, false)
        })
    }

    /// Builds the frame's view and draws it, then writes pending bell and
    /// notification bytes.
    fn draw(&mut self, guard: &mut TerminalGuard) -> Result<()> {
        // ratatui draws at the terminal's real size; a resize that came
        // before the input thread was reading is caught up here, so the
        // sidebar, the PTY sizes and the mouse map agree with the frame.
        let real = guard.terminal.size()?;
        if (real.width, real.height) != self.size {
            self.on_resize(real.width, real.height);
        }
        let now = self.now_ms();
        let views = self.tasks.views(now);
        self.host_groups = self.remote_groups();
        for id in remote_pane::SLOTS {
            let area = self.task_area(id);
            let focused = self.remote_focus == Some(id);
            let Some(remote) = self.remote_panes.get_mut(id) else {
                continue;
            };
            remote.resize(area.width.max(1), area.height.max(1));
            for group in self.host_groups.iter_mut().filter(|_| focused) {
                if tasks::shown(&remote.host) == group.name {
                    for task in &mut group.tasks {
                        task.focused = task.number == remote.number;
                    }
                }
            }
        }
        let pane = self.pane_snapshot();
        let other = self.other_snapshot();
        let mode_line = self.mode_line();
        let view = WorkspaceView {
            tasks: &views,
            focused: self
                .tasks
                .focused_display()
                .filter(|_| !self.remote_in_focus()),
            sidebar_width: self.sidebar_width,
            pane: pane.as_ref(),
            other_pane: other.as_ref(),
            split: self.split.map(|s| s.stacked),
            mode_line: mode_line.as_deref(),
            overlay: self.overlay.as_ref(),
            prefix_label: &self.prefix.label,
            prefix_pending: self.prefix_pending,
            message: self.message.as_ref(),
            hosts: &self.host_groups,
        };
        guard
            .terminal
            .draw(|frame| crate::ui::render(frame, &view))?;
        if !self.pending_out.is_empty() {
            guard.write_raw(&std::mem::take(&mut self.pending_out))?;
        }
        // termic takes the mouse always: the wheel scrolls history and a
        // drag selects inside the pane only, never the sidebar.
        guard.set_mouse_capture(true)?;
        Ok(())
    }

    /// Runs until the user quits. `input` carries outer-terminal events from
    /// the input thread; `notify` carries notification texts the desktop
    /// could not show, and clicks on a notification.
    pub fn run(
        &mut self,
        guard: &mut TerminalGuard,
        input: Receiver<Event>,
        runtime_events: Receiver<RuntimeEvent>,
        notify: Receiver<crate::notify::NotifyReply>,
    ) -> Result<()> {
        let mut frames = FramePacer::default();
        let stop = self.stop.clone();
        let mut remote_wake = self
            .remote
            .as_ref()
            .map_or_else(crossbeam_channel::never, |r| r.wake.clone());

        let mut outer_rx = self.outer_rx.clone();
        while !self.quit {
            let now = self.now_ms();
            self.recheck_wiring(now);
            if self.needs_draw && now >= frames.next_frame_at() {
                self.draw(guard)?;
                frames.drew(now);
                self.needs_draw = false;
            }
            let outer_at = self.report_outer(guard, now)?;
            let label_at = [
                self.tasks.next_label_change(now),
                self.remote_label_change(now),
            ]
            .into_iter()
            .flatten()
            .min();
            let deadline = [
                self.runtime.next_deadline(),
                label_at,
                self.wiring.next_deadline(&self.working_agents()),
                self.needs_draw.then(|| frames.next_frame_at()),
                self.stats.next_deadline(),
                outer_at,
            ]
            .into_iter()
            .flatten()
            .min();
            let timeout = match deadline {
                Some(at) => Duration::from_millis(at.saturating_sub(now)),
                None => Duration::from_secs(3600),
            };
            let [pane_wake, pane_wake_2] = remote_pane::SLOTS.map(|id| {
                self.remote_panes
                    .get(id)
                    .map_or_else(crossbeam_channel::never, |p| p.wake.clone())
            });
            let host_replies = self.host_actions.replies.clone();
            select! {
                recv(pane_wake) -> _ => self.on_remote_pane(remote_pane::REMOTE),
                recv(pane_wake_2) -> _ => self.on_remote_pane(remote_pane::REMOTE_2),
                recv(host_replies) -> reply => {
                    if let Ok(reply) = reply {
                        self.on_host_reply(reply);
                    }
                },
                recv(input) -> ev => match ev {
                    Ok(ev) => {
                        frames.user_input();
                        self.on_event(ev);
                    }
                    // The terminal (or the attached client) is gone.
                    Err(_) => {
                        self.detach = true;
                        self.quit = true;
                    }
                },
                recv(runtime_events) -> ev => match ev {
                    Ok(ev) => self.on_runtime(ev),
                    // Only an attached client's events end while its app
                    // runs: the server dropped them because the client fell
                    // too far behind (server/mod.rs, CLIENT_EVENTS). Its
                    // view can no longer be kept right: detach it.
                    Err(_) => {
                        self.detach = true;
                        self.quit = true;
                    }
                },
                recv(self.stats.rx.clone()) -> stat => {
                    if let Ok(stat) = stat {
                        self.on_stat(stat);
                    }
                },
                recv(notify) -> reply => {
                    if let Ok(reply) = reply {
                        self.on_notify_reply(reply);
                    }
                },
                recv(outer_rx) -> outer => match outer {
                    Ok(outer) => self.on_outer(outer),
                    // The client's reader ended: the input channel says so.
                    Err(_) => outer_rx = crossbeam_channel::never(),
                },
                recv(stop) -> _ => self.quit = true,
                recv(remote_wake) -> woke => match woke {
                    Ok(()) => self.on_remote(),
                    // The server's links are gone: nothing more comes.
                    Err(_) => remote_wake = crossbeam_channel::never(),
                },
                default(timeout) => {
                    let now = self.now_ms();
                    self.runtime.tick(now);
                    self.flush_held(now);
                    // Only a sidebar label needs a frame here: a transition
                    // comes as an event, and a busy task's engine timers
                    // firing must not keep the frame pacer at its streaming
                    // rate (that delayed every other task's echo by up to
                    // a streaming frame).
                    if label_at.is_some_and(|at| at <= now) {
                        self.needs_draw = true;
                    }
                },
            }
            // Coalesce: take everything already queued before drawing.
            while let Ok(ev) = runtime_events.try_recv() {
                self.on_runtime(ev);
            }
            // In-process, this loop is the runtime channel's one reader
            // (attached, the server's feed thread is, and sends Resync).
            if !self.attached && self.runtime.take_lagged() {
                self.resync();
            }
            while let Ok(ev) = input.try_recv() {
                self.on_event(ev);
            }
        }
        Ok(())
    }
}
/// An engine log entry as an Inspector line, timed from the task's start.
pub fn inspector_entry(e: &termic_signal::engine::LogEntry, started_ms: u64) -> InspectorEntry {
    use termic_signal::engine::LogKind;
    let kind = match e.kind {
        LogKind::Transition => EntryKind::Transition,
        _ => EntryKind::Signal,
    };
    let text = match e.kind {
        LogKind::Signal | LogKind::Transition => e.text.clone(),
        other => format!("{}: {}", other.as_str(), e.text),
    };
    InspectorEntry {
        at: Duration::from_millis(e.at.saturating_sub(started_ms)),
        kind,
        text,
    }
}

/// The sidebar badge and the notification detail for an engine transition.
pub fn badge_of(t: &termic_signal::engine::Transition) -> Option<(Badge, Option<String>)> {
    badge_for(t.to, t.attention.as_ref())
}

/// The sidebar badge and the notification detail for an engine state.
pub fn badge_for(
    state: termic_signal::engine::State,
    attention: Option<&termic_signal::engine::Attention>,
) -> Option<(Badge, Option<String>)> {
    use termic_signal::engine::State;
    let kind = attention.and_then(|a| a.kind.clone());
    let detail = attention
        .and_then(|a| a.message.clone())
        .or_else(|| kind.clone());
    let badge = match state {
        State::Idle => Badge::Idle,
        State::Working => Badge::Working,
        State::NeedsYou => Badge::NeedsYou { kind },
        State::Done => Badge::Done,
        State::Interrupted => Badge::Interrupted,
        State::Error(reason) => Badge::Error(Some(reason)),
        State::RateLimited(until) => Badge::RateLimited(until),
        State::Exited => return None,
    };
    Some((badge, detail))
}
