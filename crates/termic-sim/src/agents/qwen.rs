//! Qwen Code 0.24.4 (measured offline, termic-fakemodel's
//! fakemodel/more.rs). Hooks from `~/.qwen/settings.json` (the Claude
//! shape and names, `timeout` in seconds), run one by one, detached, with
//! NO controlling terminal. Titles on OSC 0 and OSC 2, padded to 80
//! columns: `Qwen - <dir>` idle, `◐︎ Qwen - <dir>` busy (not animated),
//! `✳︎ Qwen - <dir>` blocked (Claude Code's idle star). Turn: the busy title,
//! UserPromptSubmit 20-1600 ms later; PermissionRequest, the ✳ title 63-560
//! ms later, Notification `permission_prompt`; after the approval
//! PreToolUse, PostToolUse, PostToolBatch and UserPromptSubmit with an empty
//! prompt; Stop, the idle title 70-560 ms later, Notification `idle_prompt`.
//! A hook's `terminalSequence` reaches the terminal only from the
//! `idle_prompt` Notification. Escape: no Stop, the idle title, then
//! `idle_prompt`.

use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};

use super::{listing_of, Agent, Answer, Block, Cx, Phase, Reaction, SimDef};
use crate::agents::claude::payload::payload as claude_payload;
use crate::config::settings_hooks;
use crate::config::Registry;
use crate::hookrun::terminal_sequence;
use crate::input::Key;

/// The simulated Qwen, found by `termic-sim qwen` through [`SIMS`](super::SIMS).
pub const SIM: SimDef = SimDef {
    id: "qwen",
    build: |_, cx| Box::new(Qwen::new(cx)),
    hooks_listing: |cfg| listing_of(&load(&cfg.home)),
};

const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The hooks in `~/.qwen/settings.json` (Claude-shaped, seconds).
pub fn load(home: &Path) -> Registry {
    settings_hooks::load_file(&home.join(".qwen/settings.json"), 1.0)
}

pub struct Qwen {
    hooks: Registry,
    dir: String,
}

impl Qwen {
    pub fn new(cx: &Cx) -> Qwen {
        Qwen {
            hooks: load(&cx.home),
            dir: cx
                .cwd
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        }
    }

    /// `glyph` then ` Qwen - <dir>` (or the bare idle form), on OSC 0 and 2.
    fn title(&self, cx: &Cx, glyph: Option<char>) {
        let text = match glyph {
            Some(g) => format!("{g}\u{FE0E} Qwen - {}", self.dir),
            None => format!("Qwen - {}", self.dir),
        };
        let padded = format!("{text:<80}");
        cx.title(&padded);
        cx.write(&format!("\x1b]2;{padded}\x07"));
    }

    /// Runs `event`'s hooks; a terminalSequence they print is shown only
    /// from the idle_prompt Notification (dropped everywhere else).
    fn fire(&self, cx: &Cx, event: &str, tool: Option<&str>, extra: Value) {
        let handlers = self.hooks.handlers(event, tool);
        if handlers.is_empty() {
            return;
        }
        let shows_sequence = extra["notification_type"] == "idle_prompt";
        let p = claude_payload(&cx.session, event, extra);
        let results = cx.run_hooks(
            event,
            &handlers,
            &p,
            &|_| Vec::new(),
            DEFAULT_TIMEOUT,
            false,
        );
        if shows_sequence {
            for (_, r) in results {
                if let Some(seq) = terminal_sequence(&r.stdout) {
                    cx.write(&seq);
                }
            }
        }
    }
}

impl Agent for Qwen {
    fn startup(&mut self, cx: &mut Cx) {
        cx.write("\x1b]11;?\x1b\\\x1b[?1004h");
        cx.line(">_ Qwen Code (v0.24.4) (termic-sim)");
        self.fire(cx, "SessionStart", None, json!({ "source": "startup" }));
        self.title(cx, None);
        cx.write("\r\x1b[K  > ");
    }

    fn submit(&mut self, cx: &mut Cx, prompt: &str) {
        cx.line("");
        cx.line(&format!("  > {prompt}"));
        self.title(cx, Some('\u{25D0}'));
        cx.sleep(50);
        self.fire(cx, "UserPromptSubmit", None, json!({ "prompt": prompt }));
    }

    fn tool(&mut self, cx: &mut Cx, name: &str, arg: &str) {
        let input = json!({ "file_path": cx.cwd.join(arg) });
        let extra = json!({ "tool_name": name, "tool_input": input });
        self.fire(cx, "PreToolUse", Some(name), extra.clone());
        self.fire(cx, "PostToolUse", Some(name), extra);
    }

    fn block(&mut self, cx: &mut Cx, b: &Block) {
        let arg = match b {
            Block::Permission { arg, .. } => arg.clone(),
            Block::Question { text, .. } | Block::Plan { text } => text.clone(),
        };
        let input = json!({ "file_path": cx.cwd.join(&arg), "content": "hello\n" });
        self.fire(
            cx,
            "PermissionRequest",
            Some("write_file"),
            json!({ "tool_name": "write_file", "tool_input": input }),
        );
        cx.sleep(75);
        self.title(cx, Some('\u{2733}'));
        cx.line(&format!("  ? WriteFile Writing to {arg} ←"));
        cx.line("   Apply this change?");
        cx.line("   › 1. Yes, allow once");
        cx.line("     2. Yes, allow always");
        cx.line("     3. No, suggest changes (esc)");
        cx.write("\r\x1b[K  ⠏ Waiting for user confirmation...");
        cx.sleep(45);
        self.fire(
            cx,
            "Notification",
            None,
            json!({ "notification_type": "permission_prompt", "message": "Qwen Code needs your permission to use write_file" }),
        );
    }

    fn answer_for(&self, _b: &Block, key: Key) -> Option<Answer> {
        match key {
            Key::Enter | Key::Char('1' | '2') => Some(Answer::Approve),
            Key::Char('3') | Key::Escape => Some(Answer::Reject),
            _ => None,
        }
    }

    fn unblock(&mut self, cx: &mut Cx, _b: &Block, a: Answer) -> bool {
        cx.line("");
        if a == Answer::Reject {
            self.title(cx, None);
            return false;
        }
        let extra = json!({ "tool_name": "write_file" });
        self.fire(cx, "PreToolUse", Some("write_file"), extra.clone());
        self.title(cx, Some('\u{25D0}'));
        self.fire(cx, "PostToolUse", Some("write_file"), extra);
        self.fire(cx, "PostToolBatch", None, json!({}));
        self.fire(cx, "UserPromptSubmit", None, json!({ "prompt": "" }));
        true
    }

    fn stop(&mut self, cx: &mut Cx, last: &str) {
        self.fire(
            cx,
            "Stop",
            None,
            json!({ "last_assistant_message": last, "stop_hook_active": false }),
        );
        cx.sleep(90);
        self.title(cx, None);
        cx.write("\r\x1b[K  > ");
        self.fire(
            cx,
            "Notification",
            None,
            json!({ "notification_type": "idle_prompt", "message": "Qwen Code is waiting for your input" }),
        );
    }

    fn interrupt(&mut self, cx: &mut Cx, _key: Key, _phase: Phase) -> Reaction {
        // Measured on Escape mid-answer: no Stop; the idle title ~390 ms
        // after the key, then the idle_prompt Notification.
        cx.sleep(390);
        self.title(cx, None);
        cx.line("Request cancelled.");
        cx.write("\r\x1b[K  > ");
        self.fire(
            cx,
            "Notification",
            None,
            json!({ "notification_type": "idle_prompt", "message": "Qwen Code is waiting for your input" }),
        );
        Reaction::Interrupted
    }

    fn exit(&mut self, cx: &mut Cx) {
        self.fire(cx, "SessionEnd", None, json!({ "reason": "exit" }));
    }
}
