//! The simulated agents. Each one turns the scenario's agent-neutral steps
//! into what that agent was measured to do: titles, OSC sequences, hooks.
//! `Cx` is what an agent can touch: the terminal, the clock, timers, hooks.

pub mod agy;
pub mod claude;
pub mod codex;
pub mod copilot;
pub mod gemini;
pub mod grok;
pub mod opencode;
pub mod qwen;

/// Every simulated agent, in `termic-sim`'s order. Adding one is its own
/// file (or dir) above plus its line here.
pub static SIMS: &[SimDef] = &[
    claude::SIM,
    grok::SIM,
    agy::SIM,
    opencode::SIM,
    codex::SIM,
    gemini::SIM,
    qwen::SIM,
    copilot::SIM,
];

/// The simulator for agent `id`, if there is one.
pub fn sim_for(id: &str) -> Option<&'static SimDef> {
    SIMS.iter().find(|s| s.id == id)
}

/// The simulated agents' ids, as a list for messages ("a, b, c").
pub fn sim_ids() -> String {
    SIMS.iter().map(|s| s.id).collect::<Vec<_>>().join(", ")
}

/// One simulated agent, as its own file declares it.
#[derive(Debug)]
pub struct SimDef {
    /// The agent's id on the command line (`termic-sim ID SCENARIO`).
    pub id: &'static str,
    /// The simulator, ready to start.
    pub build: fn(&SimConfig, &Cx) -> Box<dyn Agent>,
    /// What the agent resolved from its hook config (`hooks-list`).
    pub hooks_listing: fn(&SimConfig) -> String,
}

/// The `hooks-list` text of a parsed hook config: its notes as comments,
/// then one line per hook, `EVENT NAME COMMAND`.
pub fn listing_of(reg: &Registry) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    for note in &reg.notes {
        let _ = writeln!(s, "# {note}");
    }
    for (event, h) in &reg.hooks {
        let _ = writeln!(s, "{event:<18} {:<40} {}", h.name, h.command);
    }
    s
}

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::clock::SimClock;
use crate::config::{Handler, Registry};
use crate::hookrun::{self, HookResult, HookTty};
use crate::input::{Input, Key};
use crate::payload::Session;
use crate::term::SharedOutput;
use crate::SimConfig;

/// Where a turn is, as the runner sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Waiting for a prompt.
    Idle,
    /// Working in the foreground.
    Busy,
    /// Blocked on the user (permission, question, plan).
    Blocked,
    /// Working in the background (subagents): the foreground looks idle.
    Quiet,
}

/// What the agent is blocked on.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    Permission {
        tool: String,
        arg: String,
    },
    Question {
        text: String,
        options: Vec<String>,
        /// Any of the options, ticked one by one, then submitted.
        multi: bool,
    },
    Plan {
        text: String,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    Approve,
    Reject,
}

/// How an agent took an interrupt key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reaction {
    /// The key did nothing (opencode's first Escape).
    Ignored,
    /// The turn ended.
    Interrupted,
    /// The process exits.
    Exit,
}

/// An agent-defined timer id.
pub type TimerId = u32;

/// Options that shape every agent.
#[derive(Debug, Clone)]
pub struct SimOptions {
    /// Claude: delay between a hook's exit and its terminalSequence landing.
    pub seq_delay_ms: u64,
}

pub struct Cx {
    pub out: SharedOutput,
    pub clock: SimClock,
    pub home: PathBuf,
    pub cwd: PathBuf,
    pub session: Session,
    pub focused: bool,
    /// Virtual time of the last key press.
    pub last_key_at: u64,
    pub opts: SimOptions,
    timers: Vec<(u64, TimerId)>,
    pending: VecDeque<Input>,
    rx: Receiver<Input>,
    eof: bool,
}

impl Cx {
    pub fn new(
        out: SharedOutput,
        clock: SimClock,
        home: PathBuf,
        cwd: PathBuf,
        session: Session,
        opts: SimOptions,
        rx: Receiver<Input>,
    ) -> Cx {
        Cx {
            out,
            clock,
            home,
            cwd,
            session,
            focused: true,
            last_key_at: 0,
            opts,
            timers: Vec::new(),
            pending: VecDeque::new(),
            rx,
            eof: false,
        }
    }

    pub fn write(&self, s: &str) {
        self.out.lock().unwrap().write(s);
    }

    pub fn trace(&self, ev: &str, fields: Value) {
        self.out.lock().unwrap().trace(ev, fields);
    }

    /// Paint a window title (OSC 0) and record it.
    pub fn title(&self, text: &str) {
        let mut o = self.out.lock().unwrap();
        o.write(&crate::osc::title(text));
        o.trace("title", json!({ "title": text }));
    }

    /// Write a line of visible output.
    pub fn line(&self, text: &str) {
        self.write(&format!("\r\x1b[K{text}\r\n"));
    }

    /// Sleep a virtual span (inputs keep queueing).
    pub fn sleep(&self, virtual_ms: u64) {
        self.clock.sleep(virtual_ms);
    }

    pub fn schedule(&mut self, after_ms: u64, id: TimerId) {
        self.timers.push((self.clock.now() + after_ms, id));
    }

    pub fn schedule_at(&mut self, at: u64, id: TimerId) {
        self.timers.push((at, id));
    }

    pub fn cancel(&mut self, id: TimerId) {
        self.timers.retain(|(_, t)| *t != id);
    }

    /// The earliest timer due, as (virtual time, id).
    pub fn next_timer(&self) -> Option<(u64, TimerId)> {
        self.timers.iter().copied().min_by_key(|(at, _)| *at)
    }

    /// Remove and return every timer due by virtual time `now`.
    pub fn take_due(&mut self, now: u64) -> Vec<TimerId> {
        let mut due: Vec<(u64, TimerId)> = self
            .timers
            .iter()
            .copied()
            .filter(|(at, _)| *at <= now)
            .collect();
        due.sort();
        self.timers.retain(|(at, _)| *at > now);
        due.into_iter().map(|(_, id)| id).collect()
    }

    /// Put an input back, to be read before anything new.
    pub fn push_back(&mut self, input: Input) {
        self.pending.push_back(input);
    }

    pub fn at_eof(&self) -> bool {
        self.eof && self.pending.is_empty()
    }

    /// The next input before `deadline`, if any. After EOF this just waits.
    pub fn next_input(&mut self, deadline: Instant) -> Option<Input> {
        if let Some(i) = self.pending.pop_front() {
            return Some(i);
        }
        let wait = deadline.saturating_duration_since(Instant::now());
        if self.eof {
            std::thread::sleep(wait);
            return None;
        }
        match self.rx.recv_timeout(wait) {
            Ok(input) => {
                if matches!(input, Input::Key(_)) {
                    self.last_key_at = self.clock.now();
                }
                Some(input)
            }
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => {
                self.eof = true;
                None
            }
        }
    }

    /// Run `handlers` for `event` with `payload`, in parallel or in order,
    /// each with `env` added and detached from the terminal, and record
    /// spawn and exit in the trace.
    pub fn run_hooks(
        &self,
        event: &str,
        handlers: &[Handler],
        payload: &Value,
        env: &(dyn Fn(&Handler) -> Vec<(String, String)> + Sync),
        default_timeout: Duration,
        parallel: bool,
    ) -> Vec<(Handler, HookResult)> {
        let hooks = HookBatch {
            event,
            handlers,
            payload,
            default_timeout,
            tty: HookTty::Detached,
        };
        self.run_hook_batch(&hooks, env, parallel)
    }

    /// Run `handlers` for `event` one by one in the agent's session (the
    /// controlling terminal kept), with no extra env: Gemini CLI and
    /// Copilot CLI run their hooks so.
    pub fn run_hooks_attached(
        &self,
        event: &str,
        handlers: &[Handler],
        payload: &Value,
        default_timeout: Duration,
    ) -> Vec<(Handler, HookResult)> {
        let hooks = HookBatch {
            event,
            handlers,
            payload,
            default_timeout,
            tty: HookTty::Attached,
        };
        self.run_hook_batch(&hooks, &|_| Vec::new(), false)
    }

    fn run_hook_batch(
        &self,
        hooks: &HookBatch,
        env: &(dyn Fn(&Handler) -> Vec<(String, String)> + Sync),
        parallel: bool,
    ) -> Vec<(Handler, HookResult)> {
        let HookBatch {
            event,
            handlers,
            payload,
            default_timeout,
            tty,
        } = *hooks;
        let bytes = serde_json::to_vec(payload).unwrap_or_default();
        let (cwd, out) = (&self.cwd, &self.out);
        let run_one = |h: &Handler| {
            let r = hookrun::run_with(
                h,
                &bytes,
                &env(h),
                cwd,
                hookrun::timeout_for(h, default_timeout),
                tty,
            );
            trace_hook(out, event, h, &r);
            (h.clone(), r)
        };
        if parallel && handlers.len() > 1 {
            std::thread::scope(|s| {
                let joins: Vec<_> = handlers
                    .iter()
                    .map(|h| s.spawn(move || run_one(h)))
                    .collect();
                joins.into_iter().filter_map(|j| j.join().ok()).collect()
            })
        } else {
            handlers.iter().map(run_one).collect()
        }
    }
}

/// One event's hooks as an agent runs them.
#[derive(Clone, Copy)]
struct HookBatch<'a> {
    event: &'a str,
    handlers: &'a [Handler],
    payload: &'a Value,
    default_timeout: Duration,
    tty: HookTty,
}

fn trace_hook(out: &SharedOutput, event: &str, h: &Handler, r: &HookResult) {
    let mut o = out.lock().unwrap();
    o.trace_at(
        r.spawn_ts,
        "hook_spawn",
        json!({ "event": event, "command": h.command, "name": h.name }),
    );
    o.trace_at(
            r.exit_ts,
            "hook_exit",
            json!({ "event": event, "command": h.command, "rc": r.rc, "timed_out": r.timed_out, "error": r.error }),
        );
}

/// One simulated agent. Defaults do nothing, so each agent states only
/// what it was measured to do.
pub trait Agent {
    /// Start-up output: terminal queries, first title, status.
    fn startup(&mut self, cx: &mut Cx);
    /// Terminal replies and focus reports.
    fn on_input(&mut self, _cx: &mut Cx, _input: &Input) {}
    /// Spinner period in this phase, if the agent animates anything.
    fn tick_ms(&self, _phase: Phase) -> Option<u64> {
        None
    }
    fn tick(&mut self, _cx: &mut Cx, _phase: Phase) {}
    fn on_timer(&mut self, _cx: &mut Cx, _id: TimerId) {}
    /// Enter pressed on a prompt: a turn starts.
    fn submit(&mut self, cx: &mut Cx, prompt: &str);
    fn work(&mut self, _cx: &mut Cx, _label: &str) {}
    fn say(&mut self, cx: &mut Cx, text: &str) {
        cx.line(text);
    }
    fn tool(&mut self, _cx: &mut Cx, _name: &str, _arg: &str) {}
    /// A prompt for the user appears.
    fn block(&mut self, cx: &mut Cx, b: &Block);
    /// A key that moves within `b` without answering it (a select list's
    /// arrows): true when the agent took it.
    fn dialog_key(&mut self, _cx: &mut Cx, _b: &Block, _key: Key) -> bool {
        false
    }
    /// Which key answers `b`, and how.
    fn answer_for(&self, b: &Block, key: Key) -> Option<Answer>;
    /// The prompt was answered. False when the turn ends there (a reject).
    fn unblock(&mut self, cx: &mut Cx, b: &Block, a: Answer) -> bool;
    /// Subagents start, and the foreground turns quiet (true) or busy again.
    fn subagents(&mut self, _cx: &mut Cx, _count: u32, _quiet: bool) {}
    fn subagents_done(&mut self, _cx: &mut Cx, _count: u32) {}
    /// The turn ends normally.
    fn stop(&mut self, cx: &mut Cx, last_message: &str);
    /// The foreground turn ends with background tasks still running. Only
    /// Claude was measured doing this; other agents carry on working.
    fn stop_background(&mut self, _cx: &mut Cx, _last_message: &str) {}
    /// Escape or Ctrl-C during a turn.
    fn interrupt(&mut self, cx: &mut Cx, key: Key, phase: Phase) -> Reaction;
    /// The process is about to exit.
    fn exit(&mut self, _cx: &mut Cx) {}
    /// The `drop-hooks` step: rewrite its own settings without termic's
    /// hooks and reload them. Only the simulated Claude does this.
    fn drop_hooks(&mut self, _cx: &mut Cx) {}
    /// Streaming output while busy (every 250 ms of scenario time).
    fn paint_activity(&mut self, cx: &mut Cx, elapsed_ms: u64) {
        cx.write(&format!("\r\x1b[K  working... {}s", elapsed_ms / 1000));
    }
}

/// The prompt box every agent draws, with the options numbered.
pub fn draw_prompt(cx: &Cx, heading: &str, options: &[&str]) {
    cx.line("");
    cx.line(heading);
    for (i, o) in options.iter().enumerate() {
        let marker = if i == 0 { ">" } else { " " };
        cx.line(&format!(" {marker} {}. {o}", i + 1));
    }
}

/// Title-case the first words of a prompt, the way the agents' session
/// titles read (`Reply With The Single Word`).
pub fn session_title(prompt: &str) -> String {
    prompt
        .split_whitespace()
        .take(5)
        .map(|w| {
            let mut c = w.chars();
            match c.next() {
                Some(f) => f.to_uppercase().chain(c).collect(),
                None => String::new(),
            }
        })
        .collect::<Vec<String>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_simulator_is_found_by_its_own_id_once() {
        for def in SIMS {
            let found = sim_for(def.id).expect("found");
            assert!(std::ptr::eq(found, def), "{} found as {}", def.id, found.id);
            assert_eq!(SIMS.iter().filter(|d| d.id == def.id).count(), 1);
        }
        assert!(sim_for("").is_none());
        assert!(sim_for("Claude").is_none(), "ids are exact");
    }
}
