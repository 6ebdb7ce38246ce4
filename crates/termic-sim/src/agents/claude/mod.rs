//! Claude Code (2.1.332, with the plan's 2.1.250 measurements where newer
//! ones are missing). Titles: `✳ Claude Code` idle, `◐`/`◑` alternating
//! every 960 ms while busy, the IDLE glyph ~25 ms before PermissionRequest
//! fires while blocked; OSC 9 "Claude needs your permission" with the
//! Notification hook 6 s into a permission prompt. OSC 7501 only once the
//! terminal answers the start-up probe, and then the title drops the glyph.
//! Hooks: matching handlers run in parallel; a synchronous hook's
//! `terminalSequence` is written to the PTY a few ms after it exits if it
//! passes the allowlist; an `async` hook's is dropped.

pub mod allowlist;
pub mod config;
pub mod payload;

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::{draw_prompt, listing_of, Agent, Answer, Block, Cx, Phase, Reaction, SimDef, TimerId};
use crate::config::{Handler, Registry};
use crate::hookrun::{self, terminal_sequence};
use crate::input::{Input, Key};
use crate::osc::{self, NativeState};

/// The simulated Claude, found by `termic-sim claude` through [`SIMS`](super::SIMS).
pub const SIM: SimDef = SimDef {
    id: "claude",
    build: |cfg, cx| Box::new(Claude::new(cx, cfg.probe, cfg.probe_wait_ms)),
    hooks_listing: |cfg| listing_of(&config::load(&cfg.home, &cfg.cwd)),
};

const APP: &str = "claude-code";
const IDLE: &str = "✳ Claude Code";
const SPIN: [&str; 2] = ["◐ Claude Code", "◑ Claude Code"];
const NATIVE_TITLE: &str = "Claude Code";
/// Claude's default hook timeout.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

const NOTIFY: TimerId = 1;
const FOLLOW_UP_AGENT: TimerId = 2;

pub struct Claude {
    hooks: Registry,
    /// `--no-native`: an older Claude that never probes.
    probe: bool,
    probe_wait_ms: u64,
    native: bool,
    spin: usize,
    blocked_tool: String,
    subagents_started: bool,
    /// The question list's highlighted row (0 is the first option).
    highlight: usize,
    /// A multi-select question's boxes, ticked or not.
    ticked: Vec<bool>,
    /// A multi-select question's review, once Submit was picked: its
    /// highlighted row (0 "Submit answers", 1 "Cancel").
    review: Option<usize>,
}

impl Claude {
    pub fn new(cx: &Cx, probe: bool, probe_wait_ms: u64) -> Claude {
        Claude {
            hooks: config::load(&cx.home, &cx.cwd),
            probe,
            probe_wait_ms,
            native: false,
            spin: 0,
            blocked_tool: String::new(),
            highlight: 0,
            ticked: Vec::new(),
            review: None,
            subagents_started: false,
        }
    }

    fn busy_title(&self, cx: &Cx) {
        if !self.native {
            cx.title(SPIN[self.spin % 2]);
        }
    }

    fn idle_title(&self, cx: &Cx) {
        if !self.native {
            cx.title(IDLE);
        }
    }

    fn status(&self, cx: &Cx, state: NativeState) {
        if self.native {
            cx.write(&osc::native_status(&state, APP, osc::ST));
            cx.trace("native", json!({ "state": format!("{state:?}") }));
        }
    }

    /// Run the hooks for `event`: sync ones in parallel (their
    /// terminalSequence lands `seq_delay_ms` after they exit), async ones in
    /// the background with their output dropped.
    fn fire(&self, cx: &Cx, event: &str, tool: Option<&str>, payload: Value) {
        let handlers = self.hooks.handlers(event, tool);
        if handlers.is_empty() {
            return;
        }
        let project = cx.cwd.display().to_string();
        let env = move |_: &Handler| vec![("CLAUDE_PROJECT_DIR".to_string(), project.clone())];
        let (background, sync): (Vec<_>, Vec<_>) = handlers.into_iter().partition(|h| h.is_async);
        for h in background {
            let (cwd, out, bytes, env) =
                (cx.cwd.clone(), cx.out.clone(), payload.to_string(), env(&h));
            let event = event.to_string();
            std::thread::spawn(move || {
                let r = hookrun::run(
                    &h,
                    bytes.as_bytes(),
                    &env,
                    &cwd,
                    hookrun::timeout_for(&h, DEFAULT_TIMEOUT),
                );
                out.lock().unwrap().trace_at(
                    r.exit_ts,
                    "hook_async_exit",
                    json!({ "event": event, "command": h.command, "dropped_output": !r.stdout.is_empty() }),
                );
            });
        }
        for (h, r) in cx.run_hooks(event, &sync, &payload, &env, DEFAULT_TIMEOUT, true) {
            if let Some(seq) = terminal_sequence(&r.stdout) {
                self.emit_sequence(cx, event, &h, seq);
            }
        }
    }

    fn emit_sequence(&self, cx: &Cx, event: &str, h: &Handler, seq: String) {
        let Some(allowed) = allowlist::claude_allowlist(&seq) else {
            cx.trace(
                "seq_refused",
                json!({ "event": event, "command": h.command, "seq": seq }),
            );
            return;
        };
        let out = cx.out.clone();
        let delay = Duration::from_millis(cx.opts.seq_delay_ms);
        let event = event.to_string();
        std::thread::spawn(move || {
            std::thread::sleep(delay);
            let mut o = out.lock().unwrap();
            // Stamped before the write: termic may act on the bytes at once.
            let ts = crate::clock::unix_ms();
            o.write(&allowed);
            o.trace_at(ts, "seq_written", json!({ "event": event, "seq": allowed }));
        });
    }

    /// A key on a multi-select question (as 2.1.332 takes it): the arrows
    /// move the highlight over the boxes, "Type something", Submit and
    /// "Chat about this"; Enter on a box ticks or unticks it, on Submit
    /// opens the review. On the review the arrows move between "Submit
    /// answers" and "Cancel", and Enter answers ([`Agent::answer_for`]).
    fn multi_key(&mut self, cx: &mut Cx, question: &str, options: &[String], key: Key) -> bool {
        let n = options.len();
        if self.review.is_some() {
            let to = match key {
                Key::Up => 0,
                Key::Down => 1,
                _ => return false,
            };
            self.review = Some(to);
            cx.write("\x1b[2A");
            draw_review_choices(cx, to);
            return true;
        }
        match key {
            Key::Up => self.highlight = self.highlight.saturating_sub(1),
            // The boxes, "Type something", Submit and "Chat about this".
            Key::Down => self.highlight = (self.highlight + 1).min(n + 2),
            Key::Enter if self.highlight < n => {
                self.ticked[self.highlight] = !self.ticked[self.highlight];
            }
            Key::Enter if self.highlight == n + 1 => {
                cx.write(&format!("\x1b[{}A\x1b[J", multi_rows(n)));
                let picked = self.ticked_labels(options);
                cx.line("Review your answers");
                cx.line(&format!(" ● {question}"));
                cx.line(&format!("   → {}", picked.join(", ")));
                self.review = Some(0);
                draw_review_choices(cx, 0);
                return true;
            }
            // Enter on "Type something" or "Chat about this": not here.
            Key::Enter => return true,
            _ => return false,
        }
        cx.write(&format!("\x1b[{}A", multi_rows(n)));
        let labels: Vec<&str> = options.iter().map(String::as_str).collect();
        draw_multi_list(cx, &labels, &self.ticked, self.highlight);
        true
    }

    /// The labels of the ticked boxes, in order.
    fn ticked_labels<'a>(&self, options: &'a [String]) -> Vec<&'a str> {
        options
            .iter()
            .zip(&self.ticked)
            .filter(|(_, t)| **t)
            .map(|(o, _)| o.as_str())
            .collect()
    }

    fn block_state(&self, cx: &Cx, b: &Block) -> NativeState {
        match b {
            Block::Permission { tool, arg } => NativeState::Blocked {
                kind: "permission",
                msg: format!("approve {tool}: {}", cx.cwd.join(arg).display()),
            },
            Block::Question { text, options, .. } => NativeState::Blocked {
                kind: "question",
                msg: format!("answer: {text} ({})", options.join(" · ")),
            },
            Block::Plan { text } => NativeState::Blocked {
                kind: "permission",
                msg: format!("approve plan: {text}"),
            },
        }
    }
}

impl Agent for Claude {
    fn startup(&mut self, cx: &mut Cx) {
        if self.probe {
            cx.write(osc::NATIVE_PROBE);
        }
        cx.write("\x1b[>0q\x1b[>5u\x1b[?2004h\x1b[?2031h\x1b[?1004h\x1b[?1049h");
        cx.write("\x1b[?1000h\x1b[?1002h\x1b[?1003h\x1b[?1006h");
        if self.probe {
            // Bounded wait for the reply; anything else read meanwhile is kept.
            let deadline = Instant::now() + Duration::from_millis(self.probe_wait_ms);
            let mut other = Vec::new();
            while Instant::now() < deadline {
                match cx.next_input(deadline) {
                    Some(Input::Osc(o)) if osc::is_probe_reply(&o) => {
                        self.native = true;
                        break;
                    }
                    Some(i) => other.push(i),
                    None if cx.at_eof() => break,
                    None => {}
                }
            }
            other.into_iter().for_each(|i| cx.push_back(i));
            cx.trace("probe", json!({ "answered": self.native }));
        }
        cx.title(if self.native { NATIVE_TITLE } else { IDLE });
        self.status(cx, NativeState::Idle);
        cx.line("Claude Code (termic-sim)");
        for note in &self.hooks.notes {
            cx.line(&format!("  settings: {note}"));
        }
        self.fire(
            cx,
            "SessionStart",
            None,
            payload::payload(&cx.session, "SessionStart", json!({"source": "startup"})),
        );
        cx.write("\r\x1b[K> ");
    }

    fn on_input(&mut self, _cx: &mut Cx, input: &Input) {
        if let Input::Focus(f) = input {
            _cx.focused = *f;
        }
    }

    fn tick_ms(&self, phase: Phase) -> Option<u64> {
        (phase == Phase::Busy).then_some(960)
    }

    fn tick(&mut self, cx: &mut Cx, _phase: Phase) {
        // Unfocused, the glyph stays busy but stops alternating (measured).
        if cx.focused {
            self.spin += 1;
            self.busy_title(cx);
        }
    }

    fn on_timer(&mut self, cx: &mut Cx, id: TimerId) {
        match id {
            NOTIFY => {
                let p = payload::payload(
                    &cx.session,
                    "Notification",
                    json!({
                        "message": format!("Claude needs your permission to use {}", self.blocked_tool),
                        "notification_type": "permission_prompt",
                    }),
                );
                self.fire(cx, "Notification", None, p);
                cx.write(&osc::notify9("Claude needs your permission"));
                cx.trace("notify9", json!({ "text": "Claude needs your permission" }));
            }
            FOLLOW_UP_AGENT => {
                let p = payload::payload(
                    &cx.session,
                    "SubagentStop",
                    json!({ "agent_type": "", "last_assistant_message": "Suggested follow-up: run the tests", "stop_hook_active": false }),
                );
                self.fire(cx, "SubagentStop", None, p);
            }
            _ => {}
        }
    }

    fn submit(&mut self, cx: &mut Cx, prompt: &str) {
        let entered = cx.clock.now();
        cx.cancel(FOLLOW_UP_AGENT);
        cx.line("");
        cx.line(&format!("> {prompt}"));
        cx.sleep(10);
        self.fire(
            cx,
            "UserPromptSubmit",
            None,
            payload::payload(&cx.session, "UserPromptSubmit", json!({ "prompt": prompt })),
        );
        self.spin = 0;
        self.busy_title(cx);
        if self.native {
            cx.sleep((entered + 90).saturating_sub(cx.clock.now()));
            self.status(cx, NativeState::Working);
        }
        cx.line("● Thinking…");
    }

    fn say(&mut self, cx: &mut Cx, text: &str) {
        cx.line(&format!("● {text}"));
    }

    fn tool(&mut self, cx: &mut Cx, name: &str, arg: &str) {
        cx.line(&format!("● {name}({arg})"));
    }

    fn block(&mut self, cx: &mut Cx, b: &Block) {
        let (tool, input, heading, options): (&str, Value, String, Vec<&str>) = match b {
            Block::Permission { tool, arg } => (
                tool,
                json!({ "file_path": cx.cwd.join(arg), "content": "hello\n" }),
                format!("Do you want to create {arg}?"),
                vec![
                    "Yes",
                    "Yes, allow all edits during this session",
                    "No, and tell Claude what to do differently (esc)",
                ],
            ),
            Block::Question {
                text,
                options,
                multi,
            } => (
                "AskUserQuestion",
                json!({ "questions": [{ "question": text, "multiSelect": multi, "options": options.iter().map(|o| json!({"label": o})).collect::<Vec<_>>() }] }),
                text.clone(),
                options.iter().map(String::as_str).collect(),
            ),
            Block::Plan { text } => (
                "ExitPlanMode",
                json!({ "plan": text }),
                format!("Here is Claude's plan: {text}\r\nWould you like to proceed?"),
                vec![
                    "Yes, and auto-accept edits",
                    "Yes, and manually approve edits",
                    "No, keep planning",
                ],
            ),
        };
        self.blocked_tool = tool.to_string();
        // The title claims idle as the prompt opens, before the hook fires.
        self.idle_title(cx);
        self.status(cx, self.block_state(cx, b));
        if let Block::Question { multi: true, .. } = b {
            self.highlight = 0;
            self.ticked = vec![false; options.len()];
            self.review = None;
            draw_multi(cx, &heading, &options, &self.ticked, 0);
        } else if let Block::Question { .. } = b {
            self.highlight = 0;
            draw_question(cx, &heading, &options, 0);
        } else {
            draw_prompt(cx, &heading, &options);
        }
        cx.sleep(25);
        let p = payload::payload(
            &cx.session,
            "PermissionRequest",
            json!({ "tool_name": tool, "tool_input": input, "permission_suggestions": [], "effort": "medium" }),
        );
        self.fire(cx, "PermissionRequest", Some(tool), p);
        if matches!(b, Block::Permission { .. }) {
            cx.schedule(6000, NOTIFY);
        }
    }

    fn dialog_key(&mut self, cx: &mut Cx, b: &Block, key: Key) -> bool {
        if let Block::Question {
            text,
            options,
            multi: true,
        } = b
        {
            return self.multi_key(cx, text, options, key);
        }
        let Block::Question { options, .. } = b else {
            return false;
        };
        // The options, "Type something." and "Chat about this".
        let last = options.len() + 1;
        self.highlight = match key {
            Key::Up => self.highlight.saturating_sub(1),
            Key::Down => (self.highlight + 1).min(last),
            _ => return false,
        };
        // Up to the top of the list, then paint it again.
        cx.write(&format!("\x1b[{}A", question_rows(options.len())));
        let labels: Vec<&str> = options.iter().map(String::as_str).collect();
        draw_question_list(cx, &labels, self.highlight);
        true
    }

    fn answer_for(&self, b: &Block, key: Key) -> Option<Answer> {
        match (b, key) {
            // As 2.1.332: Enter picks the highlighted option; a typed digit
            // does nothing; "Type something." and "Chat about this" are
            // not answers here. A multi-select question is answered on its
            // review: "Submit answers" or "Cancel".
            (Block::Question { multi: true, .. }, Key::Enter) => match self.review {
                Some(0) => Some(Answer::Approve),
                Some(_) => Some(Answer::Reject),
                None => None,
            },
            (Block::Question { options, .. }, Key::Enter) => {
                (self.highlight < options.len()).then_some(Answer::Approve)
            }
            (Block::Question { .. }, _) => None,
            (_, Key::Enter | Key::Char('1' | '2' | 'y')) => Some(Answer::Approve),
            (_, Key::Char('3' | 'n')) => Some(Answer::Reject),
            _ => None,
        }
    }

    fn unblock(&mut self, cx: &mut Cx, b: &Block, a: Answer) -> bool {
        cx.cancel(NOTIFY);
        if let (
            Block::Question {
                options,
                multi: true,
                ..
            },
            Answer::Approve,
        ) = (b, a)
        {
            // What the model gets: the ticked labels, as 2.1.332's tool
            // result carries them ("Cheese, Basil").
            let picked = self.ticked_labels(options);
            cx.trace("answered", json!({ "answers": picked }));
            cx.line(&format!("  ⎿  {}", picked.join(", ")));
        }
        if a == Answer::Reject {
            cx.line("  ⎿  User rejected");
            self.idle_title(cx);
            self.status(cx, NativeState::Idle);
            return false;
        }
        self.busy_title(cx);
        self.status(cx, NativeState::Working);
        true
    }

    fn subagents(&mut self, cx: &mut Cx, count: u32, quiet: bool) {
        if !self.subagents_started {
            self.subagents_started = true;
            for n in 1..=count {
                cx.line(&format!("● Task(audit part {n})"));
            }
        }
        // Measured: the title claims idle for part of a subagent run.
        if quiet {
            self.idle_title(cx);
        } else {
            self.busy_title(cx);
        }
    }

    fn subagents_done(&mut self, cx: &mut Cx, count: u32) {
        self.subagents_started = false;
        for _ in 0..count {
            let p = payload::payload(
                &cx.session,
                "SubagentStop",
                json!({ "agent_type": "general-purpose", "stop_hook_active": false }),
            );
            self.fire(cx, "SubagentStop", None, p);
        }
    }

    fn stop(&mut self, cx: &mut Cx, last: &str) {
        self.fire(cx, "Stop", None, payload::stop(&cx.session, last, vec![]));
        cx.sleep(12);
        self.idle_title(cx);
        self.status(cx, NativeState::Done);
        // Claude's follow-up-suggestion agent, ~1.8 s after every Stop.
        cx.schedule(1800, FOLLOW_UP_AGENT);
        cx.write("\r\x1b[K> ");
    }

    fn stop_background(&mut self, cx: &mut Cx, last: &str) {
        let task = json!({
            "id": "bg-1", "type": "bash", "status": "running",
            "description": "Run the test suite", "command": "cargo test",
        });
        self.fire(
            cx,
            "Stop",
            None,
            payload::stop(&cx.session, last, vec![task]),
        );
        cx.sleep(12);
        self.idle_title(cx);
        cx.line("  ⎿  1 background task still running");
    }

    fn interrupt(&mut self, cx: &mut Cx, key: Key, _phase: Phase) -> Reaction {
        cx.cancel(NOTIFY);
        cx.sleep(if key == Key::CtrlC { 40 } else { 110 });
        self.idle_title(cx);
        self.status(cx, NativeState::Idle);
        cx.line("  ⎿  Interrupted by user");
        cx.write("\r\x1b[K> ");
        Reaction::Interrupted
    }

    fn drop_hooks(&mut self, cx: &mut Cx) {
        let result = config::drop_termic_hooks(&cx.home);
        cx.trace("drop_hooks", json!({ "ok": result.is_ok() }));
        if let Err(e) = result {
            cx.line(&format!("  settings: {e}"));
        }
        self.hooks = config::load(&cx.home, &cx.cwd);
    }

    fn exit(&mut self, cx: &mut Cx) {
        self.status(cx, NativeState::Clear);
        cx.write("\x1b[?1049l\x1b[?1004l\x1b[?2004l\x1b[<u");
    }

    fn paint_activity(&mut self, cx: &mut Cx, elapsed_ms: u64) {
        cx.write(&format!(
            "\r\x1b[K✻ Working… ({}s · esc to interrupt)",
            elapsed_ms / 1000
        ));
    }
}

/// AskUserQuestion's dialog as Claude Code 2.1.332 paints it (captured in
/// crates/termic-signal/tests/screens/claude-2.1.332-question.txt): the
/// question's tab, the question, the numbered options with `❯` on the
/// highlighted one, "Type something.", a rule, "Chat about this" and the
/// footer. Enter picks the highlighted option, the arrows move it.
fn draw_question(cx: &Cx, heading: &str, options: &[&str], highlight: usize) {
    cx.line(RULE);
    cx.line(" ☐ Question");
    cx.line("");
    cx.line(heading);
    cx.line("");
    draw_question_list(cx, options, highlight);
}

const RULE: &str = "────────────────────────────────────────";

/// AskUserQuestion with `multiSelect` as Claude Code 2.1.332 paints it
/// (captured in crates/termic-signal/tests/screens/
/// claude-2.1.332-multi-select.txt): the tab row, the question, each option
/// as a box with a description row under it, "Type something", an
/// unnumbered Submit row, a rule, "Chat about this" and the footer.
fn draw_multi(cx: &Cx, heading: &str, options: &[&str], ticked: &[bool], highlight: usize) {
    cx.line(RULE);
    cx.line("←  ☐ Question  ✔ Submit  →");
    cx.line(heading);
    draw_multi_list(cx, options, ticked, highlight);
}

/// The rows [`draw_multi_list`] paints for `options`.
fn multi_rows(options: usize) -> usize {
    2 * options + 5
}

/// The multi-select list from the first box to the footer, the cursor
/// left below it.
fn draw_multi_list(cx: &Cx, options: &[&str], ticked: &[bool], highlight: usize) {
    let marker = |i: usize| if i == highlight { "❯" } else { " " };
    for (i, o) in options.iter().enumerate() {
        let tick = if ticked.get(i) == Some(&true) {
            "✔"
        } else {
            " "
        };
        cx.line(&format!("{} {}. [{tick}] {o}", marker(i), i + 1));
        cx.line(&format!("         Pick {o}."));
    }
    let n = options.len();
    cx.line(&format!("{} {}. [ ] Type something", marker(n), n + 1));
    cx.line(&format!("{}    Submit", marker(n + 1)));
    cx.line(RULE);
    cx.line(&format!("{} {}. Chat about this", marker(n + 2), n + 2));
    cx.line("Enter to select · ↑/↓ to navigate · Esc to cancel");
}

/// The review's two choices, the cursor left below them.
fn draw_review_choices(cx: &Cx, highlight: usize) {
    let marker = |i: usize| if i == highlight { "❯" } else { " " };
    cx.line(&format!("{} 1. Submit answers", marker(0)));
    cx.line(&format!("{} 2. Cancel", marker(1)));
}

/// The rows [`draw_question_list`] paints for `options`.
fn question_rows(options: usize) -> usize {
    options + 5
}

/// The list from the first option to the footer, the cursor left below it.
fn draw_question_list(cx: &Cx, options: &[&str], highlight: usize) {
    let marker = |i: usize| if i == highlight { "❯" } else { " " };
    for (i, o) in options.iter().enumerate() {
        cx.line(&format!("{} {}. {o}", marker(i), i + 1));
    }
    let n = options.len();
    cx.line(&format!("{} {}. Type something.", marker(n), n + 1));
    cx.line(RULE);
    cx.line(&format!("{} {}. Chat about this", marker(n + 1), n + 2));
    cx.line("");
    cx.line("Enter to select · ↑/↓ to navigate · Esc to cancel");
}
