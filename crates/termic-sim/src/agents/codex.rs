//! Codex 0.171.0: no hooks; OSC 7501 always (idle, working, blocked with
//! kind=permission, done, idle WITHOUT done on an interrupt, clear at exit).
//! Titles: `proj` idle, `<braille> <thread title> | proj` busy, and
//! `[ . ] Action Required | ...` alternating with `[ ! ]` every second, held
//! until 1 s after the last key press. A plain BEL when unfocused at an
//! approval request and at each turn end.

use serde_json::json;

use super::{
    draw_prompt, session_title, Agent, Answer, Block, Cx, Phase, Reaction, SimDef, TimerId,
};
use crate::input::{Input, Key};
use crate::osc::{self, NativeState};

/// The simulated Codex, found by `termic-sim codex` through [`SIMS`](super::SIMS).
pub const SIM: SimDef = SimDef {
    id: "codex",
    build: |_, cx| Box::new(Codex::new(cx)),
    hooks_listing: |_| "codex: hooks are not simulated (native status only)\n".into(),
};

const APP: &str = "codex";
const SPINNER: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const SHOW_APPROVAL: TimerId = 1;

pub struct Codex {
    proj: String,
    thread: String,
    spin: usize,
    approval_shown: bool,
    bang: bool,
}

impl Codex {
    pub fn new(cx: &Cx) -> Codex {
        Codex {
            proj: cx
                .cwd
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "codex".into()),
            thread: String::new(),
            spin: 0,
            approval_shown: false,
            bang: false,
        }
    }

    fn status(&self, cx: &Cx, state: NativeState) {
        cx.write(&osc::native_status(&state, APP, osc::BEL));
        cx.trace("native", json!({ "state": format!("{state:?}") }));
    }

    fn busy(&self, cx: &Cx) {
        let spin = SPINNER[self.spin % SPINNER.len()];
        cx.title(&format!("{spin} {} | {}", self.thread, self.proj));
    }

    fn action_required(&self, cx: &Cx) {
        let mark = if self.bang { "!" } else { "." };
        cx.title(&format!(
            "[ {mark} ] Action Required | {} | {}",
            self.thread, self.proj
        ));
    }
}

impl Agent for Codex {
    fn startup(&mut self, cx: &mut Cx) {
        cx.write("\x1b[?2004h\x1b[>4;0m\x1b[>7u\x1b[?1004h\x1b[?u\x1b[?1007$p\x1b[c\x1b[6n");
        cx.write("\x1b]10;?\x1b\\\x1b]11;?\x1b\\\x1b[?1049h");
        self.status(cx, NativeState::Idle);
        cx.title(&self.proj);
        cx.line("OpenAI Codex (termic-sim)");
        cx.write("\r\x1b[K› ");
    }

    fn on_input(&mut self, cx: &mut Cx, input: &Input) {
        if let Input::Focus(f) = input {
            cx.focused = *f;
        }
    }

    fn tick_ms(&self, phase: Phase) -> Option<u64> {
        match phase {
            Phase::Idle => None,
            Phase::Blocked => Some(1000),
            _ => Some(250),
        }
    }

    fn tick(&mut self, cx: &mut Cx, phase: Phase) {
        if phase == Phase::Blocked {
            if self.approval_shown {
                self.bang = !self.bang;
                self.action_required(cx);
            }
        } else {
            self.spin += 1;
            self.busy(cx);
        }
    }

    fn on_timer(&mut self, cx: &mut Cx, id: TimerId) {
        if id == SHOW_APPROVAL {
            self.approval_shown = true;
            self.bang = false;
            self.action_required(cx);
            draw_prompt(
                cx,
                "Would you like to run the following command?",
                &[
                    "Yes, proceed (y)",
                    "Yes, and don't ask again (a)",
                    "No, and tell Codex what to do differently (esc)",
                ],
            );
        }
    }

    fn submit(&mut self, cx: &mut Cx, prompt: &str) {
        cx.line("");
        cx.line(&format!("› {prompt}"));
        self.thread = session_title(prompt);
        self.spin = 0;
        cx.sleep(30);
        self.status(cx, NativeState::Working);
        self.busy(cx);
    }

    fn tool(&mut self, cx: &mut Cx, name: &str, arg: &str) {
        cx.line(&format!("• Ran {name} {arg}"));
    }

    fn block(&mut self, cx: &mut Cx, b: &Block) {
        let msg = match b {
            Block::Permission { tool, arg } => format!("{tool} {arg}"),
            Block::Question { text, .. } | Block::Plan { text } => text.clone(),
        };
        self.status(
            cx,
            NativeState::Blocked {
                kind: "permission",
                msg,
            },
        );
        if !cx.focused {
            cx.write("\x07");
        }
        // The prompt and its title wait until 1 s after the last key press.
        let at = (cx.last_key_at + 1000).max(cx.clock.now());
        cx.schedule_at(at, SHOW_APPROVAL);
    }

    fn answer_for(&self, _b: &Block, key: Key) -> Option<Answer> {
        match key {
            Key::Enter | Key::Char('y' | '1' | 'a' | '2') => Some(Answer::Approve),
            Key::Char('n' | '3') => Some(Answer::Reject),
            _ => None,
        }
    }

    fn unblock(&mut self, cx: &mut Cx, _b: &Block, a: Answer) -> bool {
        cx.cancel(SHOW_APPROVAL);
        self.approval_shown = false;
        if a == Answer::Reject {
            self.status(cx, NativeState::Idle);
            cx.title(&self.proj);
            return false;
        }
        self.status(cx, NativeState::Working);
        self.busy(cx);
        true
    }

    fn stop(&mut self, cx: &mut Cx, _last: &str) {
        self.status(cx, NativeState::Done);
        cx.title(&self.proj);
        if !cx.focused {
            cx.write("\x07");
        }
        cx.write("\r\x1b[K› ");
    }

    fn interrupt(&mut self, cx: &mut Cx, _key: Key, _phase: Phase) -> Reaction {
        cx.cancel(SHOW_APPROVAL);
        self.approval_shown = false;
        cx.sleep(20);
        // Measured: idle without done.
        self.status(cx, NativeState::Idle);
        cx.title(&self.proj);
        cx.line("■ Conversation interrupted");
        cx.write("\r\x1b[K› ");
        Reaction::Interrupted
    }

    fn exit(&mut self, cx: &mut Cx) {
        self.status(cx, NativeState::Clear);
        cx.write("\x1b[?1049l");
    }
}
