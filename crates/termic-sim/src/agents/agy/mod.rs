//! Antigravity (agy 1.1.22): no titles and no OSC at all. Hooks from the
//! named entries in `~/.gemini/config/hooks.json` (PreInvocation, PreToolUse,
//! PostToolUse, PostInvocation, Stop); no attention event, and an interrupt
//! publishes nothing: the output just stops.

pub mod config;
pub mod payload;

use std::time::Duration;

use serde_json::{json, Value};

use super::{draw_prompt, Agent, Answer, Block, Cx, Phase, Reaction, SimDef};
use crate::config::Registry;
use crate::input::Key;

/// The simulated Agy, found by `termic-sim agy` through [`SIMS`](super::SIMS).
pub const SIM: SimDef = SimDef {
    id: "agy",
    build: |_, cx| Box::new(Agy::new(cx)),
    // agy prints its notes as they are, then its own `/hooks` listing.
    hooks_listing: |cfg| {
        let reg = config::load(&cfg.home);
        let mut s = reg.notes.join("\n");
        s.push('\n');
        s.push_str(&config::listing(&reg));
        s
    },
};

const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

pub struct Agy {
    hooks: Registry,
}

impl Agy {
    pub fn new(cx: &Cx) -> Agy {
        Agy {
            hooks: config::load(&cx.home),
        }
    }

    /// `agy -p "/hooks"`.
    pub fn listing(&self) -> String {
        let mut s = String::new();
        for n in &self.hooks.notes {
            s.push_str(n);
            s.push('\n');
        }
        s.push_str(&config::listing(&self.hooks));
        s
    }

    fn fire(&self, cx: &Cx, event: &str, tool: Option<&str>, extra: Value) {
        let handlers = self.hooks.handlers(event, tool);
        if handlers.is_empty() {
            return;
        }
        let p = payload::payload(&cx.session, event, extra);
        cx.run_hooks(
            event,
            &handlers,
            &p,
            &|_| Vec::new(),
            DEFAULT_TIMEOUT,
            false,
        );
    }
}

impl Agent for Agy {
    fn startup(&mut self, cx: &mut Cx) {
        cx.line("Antigravity (termic-sim)");
        if let Some(n) = self.hooks.notes.first() {
            cx.line(&format!("  {n}"));
        }
        cx.write("\r\x1b[K> ");
    }

    fn submit(&mut self, cx: &mut Cx, prompt: &str) {
        cx.line("");
        cx.line(&format!("> {prompt}"));
        self.fire(cx, "PreInvocation", None, json!({ "prompt": prompt }));
    }

    fn tool(&mut self, cx: &mut Cx, name: &str, arg: &str) {
        let input = json!({ "toolName": name, "toolInput": { "path": arg } });
        self.fire(cx, "PreToolUse", Some(name), input.clone());
        cx.line(&format!("  {name} {arg}"));
        self.fire(cx, "PostToolUse", Some(name), input);
    }

    fn block(&mut self, cx: &mut Cx, b: &Block) {
        let heading = match b {
            Block::Permission { tool, arg } => format!("Allow {tool} on {arg}?"),
            Block::Question { text, .. } | Block::Plan { text } => text.clone(),
        };
        draw_prompt(cx, &heading, &["Allow", "Deny"]);
    }

    fn answer_for(&self, _b: &Block, key: Key) -> Option<Answer> {
        match key {
            Key::Enter | Key::Char('1' | 'y') => Some(Answer::Approve),
            Key::Char('2' | 'n') => Some(Answer::Reject),
            _ => None,
        }
    }

    fn unblock(&mut self, cx: &mut Cx, _b: &Block, a: Answer) -> bool {
        if a == Answer::Reject {
            cx.line("Denied");
            self.fire(cx, "PostInvocation", None, json!({}));
            self.fire(
                cx,
                "Stop",
                None,
                json!({ "terminationReason": "USER_DENIED" }),
            );
            return false;
        }
        true
    }

    fn stop(&mut self, cx: &mut Cx, _last: &str) {
        self.fire(cx, "PostInvocation", None, json!({}));
        self.fire(cx, "Stop", None, json!({}));
        cx.write("\r\x1b[K> ");
    }

    fn interrupt(&mut self, cx: &mut Cx, _key: Key, _phase: Phase) -> Reaction {
        // No hook, no title: only the UI says so, then silence.
        cx.sleep(50);
        cx.line("Interrupted");
        cx.write("\r\x1b[K> ");
        Reaction::Interrupted
    }
}
