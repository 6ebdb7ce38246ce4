//! Grok Build CLI, 0.2.111 (installable here, measured) or 1.0.5 (the plan's
//! measurements). Hooks run one by one, Claude-file hooks first, with
//! `GROK_HOOK_EVENT` / `GROK_HOOK_NAME` stamped and camelCase payloads; no
//! terminalSequence handling. Titles: a braille spinner at ~4 Hz,
//! `⚠ Action Required - ...` while blocked on 0.2.111, a spinner FROZEN on one
//! frame while blocked on 1.0.5. Interrupts: 1.0.5 fires StopCancelled and
//! then paints the idle title, 0.2.111 fires nothing and paints the idle
//! title 20 ms after the key.

pub mod config;
pub mod payload;

use std::time::Duration;

use serde_json::{json, Value};

use self::config::GrokVersion;
use super::{
    draw_prompt, listing_of, session_title, Agent, Answer, Block, Cx, Phase, Reaction, SimDef,
    TimerId,
};
use crate::config::{snake_case, Handler, Registry};
use crate::input::Key;

/// The simulated Grok, found by `termic-sim grok` through [`SIMS`](super::SIMS).
pub const SIM: SimDef = SimDef {
    id: "grok",
    build: |cfg, cx| Box::new(Grok::new(cx, cfg.grok_version)),
    hooks_listing: |cfg| {
        let flag = std::env::var("GROK_CLAUDE_HOOKS_ENABLED").ok();
        listing_of(&config::load(&cfg.home, cfg.grok_version, flag.as_deref()))
    },
};

const SPINNER: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
/// `notification` / `idle_prompt` ("Turn complete") 60 s after a turn.
const IDLE_PROMPT: TimerId = 1;

pub struct Grok {
    version: GrokVersion,
    hooks: Registry,
    spin: usize,
    status: String,
    session_title: Option<String>,
    pending_title: String,
    session_started: bool,
    blocked: bool,
}

impl Grok {
    pub fn new(cx: &Cx, version: GrokVersion) -> Grok {
        let env_flag = std::env::var("GROK_CLAUDE_HOOKS_ENABLED").ok();
        Grok {
            version,
            hooks: config::load(&cx.home, version, env_flag.as_deref()),
            spin: 0,
            status: String::new(),
            session_title: None,
            pending_title: String::new(),
            session_started: false,
            blocked: false,
        }
    }

    fn paint(&self, cx: &Cx) {
        let spin = SPINNER[self.spin % SPINNER.len()];
        let title = match (self.version, &self.session_title) {
            (GrokVersion::V0_2_111, Some(t)) => format!("{spin} - {} - {t} - grok", self.status),
            _ => format!("{spin} - {} - grok", self.status),
        };
        if self.blocked && self.version == GrokVersion::V0_2_111 {
            cx.title(&format!("⚠ Action Required - {title}"));
        } else {
            cx.title(&title);
        }
    }

    fn idle(&self, cx: &Cx) {
        match &self.session_title {
            Some(t) => cx.title(&format!("{t} - grok")),
            None => cx.title("grok"),
        }
    }

    /// Run `event`'s hooks in order, as grok does.
    fn fire(&self, cx: &Cx, event: &str, tool: Option<&str>, extra: Value) {
        let handlers = self.hooks.handlers(event, tool);
        if handlers.is_empty() {
            return;
        }
        let p = payload::payload(&cx.session, event, extra);
        let (sid, root) = (cx.session.id.clone(), cx.cwd.display().to_string());
        let snake = snake_case(event);
        let env = move |h: &Handler| {
            vec![
                ("GROK_HOOK_EVENT".to_string(), snake.clone()),
                ("GROK_HOOK_NAME".to_string(), h.name.clone()),
                ("GROK_SESSION_ID".to_string(), sid.clone()),
                ("GROK_WORKSPACE_ROOT".to_string(), root.clone()),
                ("CLAUDE_PROJECT_DIR".to_string(), root.clone()),
            ]
        };
        cx.run_hooks(event, &handlers, &p, &env, DEFAULT_TIMEOUT, false);
    }

    fn set_status(&mut self, cx: &Cx, status: &str) {
        self.status = status.to_string();
        self.paint(cx);
    }

    fn learn_title(&mut self) {
        if self.session_title.is_none() {
            self.session_title = Some(std::mem::take(&mut self.pending_title));
        }
    }

    fn end_turn(&mut self, cx: &mut Cx) {
        self.blocked = false;
        self.learn_title();
        self.idle(cx);
        cx.schedule(60_000, IDLE_PROMPT);
    }
}

impl Agent for Grok {
    fn startup(&mut self, cx: &mut Cx) {
        cx.title("grok");
        cx.line("grok (termic-sim)");
        for note in &self.hooks.notes {
            cx.line(&format!("  hooks: {note}"));
        }
        cx.write("\r\x1b[K> ");
    }

    fn tick_ms(&self, phase: Phase) -> Option<u64> {
        match phase {
            Phase::Idle => None,
            // 1.0.5 freezes on one frame while blocked (217 s measured).
            Phase::Blocked if self.version == GrokVersion::V1_0_5 => None,
            _ => Some(250),
        }
    }

    fn tick(&mut self, cx: &mut Cx, _phase: Phase) {
        self.spin += 1;
        self.paint(cx);
    }

    fn on_timer(&mut self, cx: &mut Cx, id: TimerId) {
        if id == IDLE_PROMPT {
            self.fire(
                cx,
                "Notification",
                None,
                json!({ "notificationType": "idle_prompt", "message": "Turn complete", "level": "info" }),
            );
        }
    }

    fn submit(&mut self, cx: &mut Cx, prompt: &str) {
        cx.cancel(IDLE_PROMPT);
        cx.line("");
        cx.line(&format!("> {prompt}"));
        if !self.session_started {
            // Deferred to the first prompt (measured on 0.2.111).
            self.session_started = true;
            self.fire(cx, "SessionStart", None, json!({ "source": "startup" }));
            self.pending_title = session_title(prompt);
        }
        let wrapped = format!("<user_query>\n{prompt}\n</user_query>");
        self.fire(cx, "UserPromptSubmit", None, json!({ "prompt": wrapped }));
        self.spin = 0;
        self.set_status(cx, "Waiting for response…");
    }

    fn work(&mut self, cx: &mut Cx, label: &str) {
        let status = if label.is_empty() {
            "Waiting for response…"
        } else {
            label
        };
        self.set_status(cx, status);
    }

    fn say(&mut self, cx: &mut Cx, text: &str) {
        self.learn_title();
        self.set_status(cx, "Responding");
        cx.line(text);
    }

    fn tool(&mut self, cx: &mut Cx, name: &str, arg: &str) {
        self.learn_title();
        let input = json!({ "file_path": cx.cwd.join(arg) });
        self.fire(
            cx,
            "PreToolUse",
            Some(name),
            json!({ "toolName": name, "toolInput": input }),
        );
        self.set_status(cx, &format!("Running: {name}"));
        self.fire(
            cx,
            "PostToolUse",
            Some(name),
            json!({ "toolName": name, "toolInput": input }),
        );
    }

    fn block(&mut self, cx: &mut Cx, b: &Block) {
        self.learn_title();
        let (tool, heading) = match b {
            Block::Permission { tool, arg } => {
                (tool.to_lowercase(), format!("Allow {tool} {arg}?"))
            }
            Block::Question { text, .. } => ("ask".into(), text.clone()),
            Block::Plan { text } => (
                "exit_plan_mode".into(),
                format!("Approve this plan? {text}"),
            ),
        };
        let input = json!({ "file_path": cx.cwd.join("out.txt"), "content": "hello\n" });
        self.fire(
            cx,
            "PreToolUse",
            Some(&tool),
            json!({ "toolName": tool, "toolInput": input }),
        );
        if self.version == GrokVersion::V0_2_111 {
            self.status = format!("Running: {tool}");
        }
        self.blocked = true;
        // 0.2.111 says "Action Required"; 1.0.5 keeps its last frame.
        if self.version == GrokVersion::V0_2_111 {
            self.paint(cx);
        }
        draw_prompt(
            cx,
            &heading,
            &["Yes, always", "Yes, for this session", "Yes, once", "No"],
        );
        self.fire(
            cx,
            "Notification",
            None,
            json!({ "notificationType": "permission_prompt", "message": "Tool permission requested", "level": "warning" }),
        );
    }

    fn answer_for(&self, _b: &Block, key: Key) -> Option<Answer> {
        match key {
            Key::Enter | Key::Char('1' | '2' | '3' | 'y') => Some(Answer::Approve),
            Key::Char('4' | 'n') => Some(Answer::Reject),
            _ => None,
        }
    }

    fn unblock(&mut self, cx: &mut Cx, _b: &Block, a: Answer) -> bool {
        self.blocked = false;
        if a == Answer::Reject {
            self.fire(
                cx,
                "PermissionDenied",
                None,
                json!({ "reason": "user_denied" }),
            );
            if self.version == GrokVersion::V1_0_5 {
                self.fire(
                    cx,
                    "StopCancelled",
                    None,
                    json!({ "reason": "permission_denied" }),
                );
            }
            self.end_turn(cx);
            return false;
        }
        self.fire(cx, "PostToolUse", None, json!({ "toolName": "write" }));
        self.paint(cx);
        true
    }

    fn stop(&mut self, cx: &mut Cx, last: &str) {
        self.fire(
            cx,
            "Stop",
            None,
            json!({
                "promptId": cx.session.prompt_id(), "reason": "end_turn", "stopHookActive": false,
                "lastAssistantMessage": last, "backgroundTasks": [], "sessionCrons": [],
            }),
        );
        self.end_turn(cx);
        cx.write("\r\x1b[K> ");
    }

    fn interrupt(&mut self, cx: &mut Cx, key: Key, _phase: Phase) -> Reaction {
        match self.version {
            // No hook; the idle title 10-26 ms after the key (measured).
            GrokVersion::V0_2_111 => cx.sleep(20),
            // StopCancelled 350 ms after Escape, 40 ms after Ctrl-C (the
            // plan's interrupt table; its appendix saw 435 ms for Escape).
            // When the title goes idle was not measured: it is painted right
            // after the hook, as after Stop, so the hook is the signal.
            GrokVersion::V1_0_5 => {
                cx.sleep(if key == Key::CtrlC { 40 } else { 350 });
                self.fire(
                    cx,
                    "StopCancelled",
                    None,
                    json!({ "reason": "user_interrupt" }),
                );
            }
        }
        self.end_turn(cx);
        cx.line("Interrupted");
        cx.write("\r\x1b[K> ");
        Reaction::Interrupted
    }
}
