//! Plays a scenario through one simulated agent: waits out each step's
//! offset, runs the step, and meanwhile handles keys (prompts, approvals,
//! Escape and Ctrl-C), spinner ticks, the agent's timers and streaming output.

use serde_json::json;

use crate::agents::{Agent, Answer, Block, Cx, Phase, Reaction};
use crate::input::{Input, Key};
use crate::scenario::{Action, Scenario};

/// Scenario time between two bursts of streaming output.
const ACTIVITY_MS: u64 = 250;
/// A subagent run is shown as this many stretches, some of them quiet.
const SUBAGENT_SEGMENTS: u64 = 10;

/// How a wait ended.
#[derive(Debug, PartialEq)]
enum WaitEnd {
    Deadline,
    Submitted(String),
    Answered(Answer),
    Interrupted,
    Exit,
}

/// Playback options.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Submit prompts without waiting for Enter.
    pub auto: bool,
    /// With `auto`: approve a prompt after this much scenario time.
    pub auto_approve_ms: Option<u64>,
    /// Exit when the scenario ends instead of idling.
    pub exit_at_end: bool,
    /// Printed once the agent has started (`termic demo` says whose HOME
    /// this is).
    pub banner: Option<String>,
}

pub struct Runner<'a> {
    agent: &'a mut dyn Agent,
    cx: &'a mut Cx,
    opts: RunOptions,
    typed: String,
    busy_since: u64,
    last_activity: u64,
    /// A prompt submitted while the scenario was still between steps.
    early: Option<String>,
}

impl<'a> Runner<'a> {
    pub fn new(agent: &'a mut dyn Agent, cx: &'a mut Cx, opts: RunOptions) -> Self {
        Runner {
            agent,
            cx,
            opts,
            typed: String::new(),
            busy_since: 0,
            last_activity: 0,
            early: None,
        }
    }

    /// Play the scenario; returns when the agent exits.
    pub fn run(&mut self, scenario: &Scenario) {
        self.agent.startup(self.cx);
        if let Some(b) = &self.opts.banner {
            self.cx.line("");
            self.cx.line(b);
        }
        let mut i = 0;
        let mut phase = Phase::Idle;
        let mut last_say = String::new();
        while i < scenario.steps.len() {
            let step = &scenario.steps[i];
            i += 1;
            self.cx.trace(
                "step",
                json!({ "line": step.line, "action": format!("{:?}", step.action) }),
            );
            let deadline = self.cx.clock.now() + step.offset_ms;
            let mut end = self.wait(Some(deadline), phase, None);
            while let WaitEnd::Submitted(text) = end {
                self.early = Some(text);
                end = self.wait(Some(deadline), phase, None);
            }
            if end == WaitEnd::Deadline {
                end = self.act(&step.action, &mut phase, &mut last_say);
            }
            match end {
                WaitEnd::Exit => return self.finish(),
                WaitEnd::Interrupted => {
                    phase = Phase::Idle;
                    i = next_prompt(scenario, i);
                }
                _ => {}
            }
            if step.action == Action::Loop {
                i = 0;
            }
        }
        if self.opts.exit_at_end {
            return self.finish();
        }
        // The scenario is over; the agent sits at its prompt until it exits.
        while self.wait(None, Phase::Idle, None) != WaitEnd::Exit {}
        self.finish()
    }

    fn finish(&mut self) {
        self.agent.exit(self.cx);
        self.cx.trace("exit", json!({}));
    }

    fn act(&mut self, action: &Action, phase: &mut Phase, last_say: &mut String) -> WaitEnd {
        match action {
            Action::Prompt { text } => {
                let submitted = if let Some(early) = self.early.take() {
                    if early.is_empty() {
                        text.clone()
                    } else {
                        early
                    }
                } else if self.opts.auto {
                    text.clone()
                } else {
                    match self.wait(None, Phase::Idle, None) {
                        WaitEnd::Submitted(t) if t.is_empty() => text.clone(),
                        WaitEnd::Submitted(t) => t,
                        other => return other,
                    }
                };
                self.cx.session.turn += 1;
                self.cx.trace("submit", json!({ "prompt": submitted }));
                self.agent.submit(self.cx, &submitted);
                *phase = Phase::Busy;
                self.busy_since = self.cx.clock.now();
                WaitEnd::Deadline
            }
            Action::Work { ms, label } => {
                self.agent.work(self.cx, label);
                let until = self.cx.clock.now() + ms;
                self.wait(Some(until), Phase::Busy, None)
            }
            Action::Say { text } => {
                self.agent.say(self.cx, text);
                last_say.clone_from(text);
                WaitEnd::Deadline
            }
            Action::Tool { name, arg } => {
                self.agent.tool(self.cx, name, arg);
                WaitEnd::Deadline
            }
            Action::Permission { tool, arg } => self.blocked(Block::Permission {
                tool: tool.clone(),
                arg: arg.clone(),
            }),
            Action::Question {
                text,
                options,
                multi,
            } => self.blocked(Block::Question {
                text: text.clone(),
                options: options.clone(),
                multi: *multi,
            }),
            Action::Plan { text } => self.blocked(Block::Plan { text: text.clone() }),
            Action::Subagents { count, ms } => self.subagents(*count, *ms),
            Action::Stop => {
                self.agent.stop(self.cx, last_say);
                *phase = Phase::Idle;
                WaitEnd::Deadline
            }
            Action::StopBackground => {
                self.agent.stop_background(self.cx, last_say);
                *phase = Phase::Quiet;
                WaitEnd::Deadline
            }
            Action::Exit => WaitEnd::Exit,
            Action::Loop => WaitEnd::Deadline,
            Action::DropHooks => {
                self.agent.drop_hooks(self.cx);
                WaitEnd::Deadline
            }
        }
    }

    fn blocked(&mut self, block: Block) -> WaitEnd {
        self.agent.block(self.cx, &block);
        let auto_deadline = match (self.opts.auto, self.opts.auto_approve_ms) {
            (true, Some(ms)) => Some(self.cx.clock.now() + ms),
            _ => None,
        };
        let answer = match self.wait(auto_deadline, Phase::Blocked, Some(&block)) {
            WaitEnd::Answered(a) => a,
            WaitEnd::Deadline => Answer::Approve,
            other => return other,
        };
        if self.agent.unblock(self.cx, &block, answer) {
            WaitEnd::Deadline
        } else {
            WaitEnd::Interrupted
        }
    }

    fn subagents(&mut self, count: u32, ms: u64) -> WaitEnd {
        let segment = (ms / SUBAGENT_SEGMENTS).max(1);
        for s in 0..SUBAGENT_SEGMENTS {
            // The measured run looked idle for ~30% of the window.
            let quiet = matches!(s, 2 | 3 | 7);
            self.agent.subagents(self.cx, count, quiet);
            let phase = if quiet { Phase::Quiet } else { Phase::Busy };
            let until = self.cx.clock.now() + segment;
            let end = self.wait(Some(until), phase, None);
            if end != WaitEnd::Deadline {
                return end;
            }
        }
        self.agent.subagents_done(self.cx, count);
        WaitEnd::Deadline
    }

    /// Wait until `deadline` (virtual; `None` = until an input ends it),
    /// handling inputs, ticks, timers and streaming output for `phase`.
    fn wait(&mut self, deadline: Option<u64>, phase: Phase, block: Option<&Block>) -> WaitEnd {
        let mut next_tick = self.agent.tick_ms(phase).map(|t| self.cx.clock.now() + t);
        loop {
            let now = self.cx.clock.now();
            for id in self.cx.take_due(now) {
                self.agent.on_timer(self.cx, id);
            }
            if let Some(t) = next_tick.filter(|t| *t <= now) {
                self.agent.tick(self.cx, phase);
                next_tick =
                    self.agent
                        .tick_ms(phase)
                        .map(|p| if t + p > now { t + p } else { now + p });
            }
            if phase == Phase::Busy && now >= self.last_activity + ACTIVITY_MS {
                self.last_activity = now;
                self.agent
                    .paint_activity(self.cx, now.saturating_sub(self.busy_since));
            }
            if deadline.is_some_and(|d| now >= d) {
                return WaitEnd::Deadline;
            }
            let mut wake = deadline.unwrap_or(now + 1000);
            wake = wake.min(next_tick.unwrap_or(u64::MAX));
            wake = wake.min(self.cx.next_timer().map_or(u64::MAX, |(at, _)| at));
            if phase == Phase::Busy {
                wake = wake.min(self.last_activity + ACTIVITY_MS);
            }
            let Some(input) = self.cx.next_input(self.cx.clock.instant_at(wake)) else {
                if self.cx.at_eof() && deadline.is_none() && !self.opts.auto {
                    return WaitEnd::Exit;
                }
                continue;
            };
            if let Some(end) = self.handle(input, phase, block) {
                return end;
            }
        }
    }

    fn handle(&mut self, input: Input, phase: Phase, block: Option<&Block>) -> Option<WaitEnd> {
        let Input::Key(key) = input else {
            self.agent.on_input(self.cx, &input);
            return None;
        };
        self.cx.trace("key", json!({ "key": format!("{key:?}") }));
        if let Some(b) = block {
            if self.agent.dialog_key(self.cx, b, key) {
                return None;
            }
            if let Some(a) = self.agent.answer_for(b, key) {
                return Some(WaitEnd::Answered(a));
            }
        }
        match (phase, key) {
            (Phase::Idle, Key::CtrlC | Key::CtrlD) => Some(WaitEnd::Exit),
            (Phase::Idle, Key::Enter) => Some(WaitEnd::Submitted(std::mem::take(&mut self.typed))),
            (Phase::Idle, Key::Backspace) => {
                self.typed.pop();
                None
            }
            (Phase::Idle, Key::Char(c)) => {
                self.typed.push(c);
                self.cx.write(&c.to_string());
                None
            }
            (Phase::Idle, _) => None,
            (_, Key::Escape | Key::CtrlC) => match self.agent.interrupt(self.cx, key, phase) {
                Reaction::Ignored => None,
                Reaction::Interrupted => Some(WaitEnd::Interrupted),
                Reaction::Exit => Some(WaitEnd::Exit),
            },
            _ => None,
        }
    }
}

/// Index of the next `prompt` step at or after `from` (or the end).
fn next_prompt(scenario: &Scenario, from: usize) -> usize {
    scenario.steps[from..]
        .iter()
        .position(|s| matches!(s.action, Action::Prompt { .. } | Action::Loop))
        .map_or(scenario.steps.len(), |p| from + p)
}
