//! Gemini CLI 0.61.0 (measured offline, termic-fakemodel's
//! fakemodel/more.rs). Hooks from `~/.gemini/settings.json` (the Claude
//! shape, `timeout` in milliseconds), run one by one WITH the controlling
//! terminal. Titles (OSC 0, one write per change, padded to 80 columns):
//! `◇  Ready (<dir>)`, `✦  Working… (<dir>)`, `✋  Action Required (<dir>)`.
//! Turn: BeforeAgent, the Working title 7-110 ms later; at a tool that needs
//! approval BeforeTool, Notification `ToolPermission`, the Action Required
//! title 44-430 ms later; after the approval AfterTool; AfterAgent, the
//! Ready title 32-250 ms later. Escape fires AfterAgent too, then Ready.

use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};

use super::{listing_of, Agent, Answer, Block, Cx, Phase, Reaction, SimDef};
use crate::config::settings_hooks;
use crate::config::Registry;
use crate::input::Key;
use crate::payload;

/// The simulated Gemini, found by `termic-sim gemini` through [`SIMS`](super::SIMS).
pub const SIM: SimDef = SimDef {
    id: "gemini",
    build: |_, cx| Box::new(Gemini::new(cx)),
    hooks_listing: |cfg| listing_of(&load(&cfg.home)),
};

/// Gemini CLI's own default hook timeout (60 s).
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The hooks in `~/.gemini/settings.json`: Claude-shaped entries whose
/// `timeout` is in milliseconds.
pub fn load(home: &Path) -> Registry {
    settings_hooks::load_file(&home.join(".gemini/settings.json"), 0.001)
}

pub struct Gemini {
    hooks: Registry,
    dir: String,
    prompt: String,
}

impl Gemini {
    pub fn new(cx: &Cx) -> Gemini {
        Gemini {
            hooks: load(&cx.home),
            dir: cx
                .cwd
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            prompt: String::new(),
        }
    }

    fn title(&self, cx: &Cx, state: &str) {
        cx.title(&format!("{:<80}", format!("{state} ({})", self.dir)));
    }

    fn fire(&self, cx: &Cx, event: &str, extra: Value) {
        let handlers = self.hooks.handlers(event, None);
        if handlers.is_empty() {
            return;
        }
        let base = json!({
            "session_id": cx.session.id, "transcript_path": cx.session.transcript,
            "cwd": cx.session.cwd, "hook_event_name": event,
            "timestamp": crate::clock::unix_ms() as u64,
        });
        let payload = payload::merge(base, extra);
        cx.run_hooks_attached(event, &handlers, &payload, DEFAULT_TIMEOUT);
    }
}

impl Agent for Gemini {
    fn startup(&mut self, cx: &mut Cx) {
        cx.write("\x1b]11;?\x1b\\");
        cx.line("Gemini CLI v0.61.0 (termic-sim)");
        self.fire(cx, "SessionStart", json!({ "source": "startup" }));
        self.title(cx, "◇  Ready");
        cx.write("\r\x1b[K > ");
    }

    fn submit(&mut self, cx: &mut Cx, prompt: &str) {
        cx.line("");
        cx.line(&format!(" > {prompt}"));
        self.prompt = prompt.to_string();
        self.fire(cx, "BeforeAgent", json!({ "prompt": prompt }));
        cx.sleep(15);
        self.title(cx, "✦  Working…");
    }

    fn say(&mut self, cx: &mut Cx, text: &str) {
        cx.line(&format!("✦ {text}"));
    }

    fn tool(&mut self, cx: &mut Cx, name: &str, arg: &str) {
        let input = json!({ "file_path": cx.cwd.join(arg) });
        self.fire(
            cx,
            "BeforeTool",
            json!({ "tool_name": name, "tool_input": input }),
        );
        self.fire(
            cx,
            "AfterTool",
            json!({ "tool_name": name, "tool_input": input }),
        );
    }

    fn block(&mut self, cx: &mut Cx, b: &Block) {
        let (tool, arg) = match b {
            Block::Permission { tool, arg } => (tool.clone(), arg.clone()),
            Block::Question { text, .. } | Block::Plan { text } => {
                ("ask_user".into(), text.clone())
            }
        };
        let path = cx.cwd.join(&arg);
        self.fire(
            cx,
            "BeforeTool",
            json!({ "tool_name": "write_file", "tool_input": { "file_path": path } }),
        );
        self.fire(
            cx,
            "Notification",
            json!({
                "notification_type": "ToolPermission",
                "message": format!("Tool {tool} requires editing"),
                "details": { "type": "edit", "filePath": path, "fileDiff": "" },
            }),
        );
        cx.sleep(50);
        self.title(cx, "✋  Action Required");
        // The dialog as 0.61.0 paints it (termic's screen rule reads the
        // two first choices inside the box).
        cx.line("╭──────────────────────────────────────────────────╮");
        cx.line(&format!("│ ? WriteFile  Writing to {arg:<25}│"));
        cx.line("│ Apply this change?                               │");
        cx.line("│                                                  │");
        cx.line("│ ● 1. Allow once                                  │");
        cx.line("│   2. Allow for this session                      │");
        cx.line("│   3. Modify with external editor                 │");
        cx.line("│   4. No, suggest changes (esc)                   │");
        cx.line("╰──────────────────────────────────────────────────╯");
    }

    fn answer_for(&self, _b: &Block, key: Key) -> Option<Answer> {
        match key {
            Key::Enter | Key::Char('1' | '2') => Some(Answer::Approve),
            Key::Char('4') | Key::Escape => Some(Answer::Reject),
            _ => None,
        }
    }

    fn unblock(&mut self, cx: &mut Cx, _b: &Block, a: Answer) -> bool {
        if a == Answer::Reject {
            self.title(cx, "◇  Ready");
            cx.write("\r\x1b[K > ");
            return false;
        }
        self.title(cx, "✦  Working…");
        self.fire(cx, "AfterTool", json!({ "tool_name": "write_file" }));
        true
    }

    fn stop(&mut self, cx: &mut Cx, last: &str) {
        self.fire(
            cx,
            "AfterAgent",
            json!({ "prompt": self.prompt, "prompt_response": last, "stop_hook_active": false }),
        );
        cx.sleep(40);
        self.title(cx, "◇  Ready");
        cx.write("\r\x1b[K > ");
    }

    fn interrupt(&mut self, cx: &mut Cx, _key: Key, _phase: Phase) -> Reaction {
        // Measured on Escape mid-answer: AfterAgent as for a finished turn
        // (the partial answer in prompt_response) ~80 ms after the key,
        // the Ready title ~220 ms after it.
        cx.sleep(80);
        self.fire(
            cx,
            "AfterAgent",
            json!({ "prompt": self.prompt, "prompt_response": "", "stop_hook_active": false }),
        );
        cx.sleep(140);
        self.title(cx, "◇  Ready");
        cx.line("Request cancelled.");
        cx.write("\r\x1b[K > ");
        Reaction::Interrupted
    }

    fn exit(&mut self, cx: &mut Cx) {
        self.fire(cx, "SessionEnd", json!({ "reason": "exit" }));
    }
}
