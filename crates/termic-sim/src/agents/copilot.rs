//! GitHub Copilot CLI 1.0.102 (measured offline in its BYOK mode,
//! termic-fakemodel's fakemodel/more.rs). Hooks from
//! `~/.copilot/settings.json`: `hooks.<camelCaseEvent>` lists of
//! `{"type": "command", "bash": ..., "timeoutSec": N}`, run one by one WITH
//! the controlling terminal, camelCase payloads (`sessionId`, `timestamp`
//! in ms, `cwd`). Its title is `GitHub Copilot`, then `<first prompt> -
//! GitHub Copilot`, whatever it does. With TERM_PROGRAM=ghostty it sends
//! `OSC 9;4;3;0` from the turn's start to `OSC 9;4;0;0` at its end, kept
//! while a permission prompt waits. Turn: sessionStart (first prompt only),
//! userPromptSubmitted; at a write preToolUse, permissionRequest ~30 ms
//! later, notification `permission_prompt` ~30 ms after that; postToolUse;
//! agentStop. Escape mid-answer fired no hook.

use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};

use super::{listing_of, Agent, Answer, Block, Cx, Phase, Reaction, SimDef};
use crate::config::{parse_strict_json, Handler, Registry};
use crate::input::Key;
use crate::payload;

/// The simulated Copilot, found by `termic-sim copilot` through [`SIMS`](super::SIMS).
pub const SIM: SimDef = SimDef {
    id: "copilot",
    build: |_, cx| Box::new(Copilot::new(cx)),
    hooks_listing: |cfg| listing_of(&load(&cfg.home)),
};

const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// The hooks in `~/.copilot/settings.json`.
pub fn load(home: &Path) -> Registry {
    let path = home.join(".copilot/settings.json");
    let mut reg = Registry::default();
    let Ok(bytes) = std::fs::read(&path) else {
        return reg;
    };
    let value = match parse_strict_json(&bytes) {
        Ok(v) => v,
        Err(e) => {
            reg.notes.push(format!("{}: {e}", path.display()));
            return reg;
        }
    };
    let Some(Value::Object(events)) = value.get("hooks") else {
        return reg;
    };
    for (event, entries) in events {
        for entry in entries.as_array().into_iter().flatten() {
            let Some(command) = entry.get("bash").and_then(Value::as_str) else {
                reg.notes.push(format!(
                    "{}: hooks.{event}: an entry without bash",
                    path.display()
                ));
                continue;
            };
            let handler = Handler {
                command: command.to_string(),
                args: None,
                timeout_s: entry.get("timeoutSec").and_then(Value::as_f64),
                is_async: false,
                matcher: None,
                name: String::new(),
                source: path.clone(),
                runs: true,
            };
            reg.hooks.push((event.clone(), handler));
        }
    }
    reg
}

pub struct Copilot {
    hooks: Registry,
    session_started: bool,
    progress: bool,
}

impl Copilot {
    pub fn new(cx: &Cx) -> Copilot {
        Copilot {
            hooks: load(&cx.home),
            session_started: false,
            progress: std::env::var("TERM_PROGRAM").is_ok_and(|t| t == "ghostty"),
        }
    }

    fn fire(&self, cx: &Cx, event: &str, extra: Value) {
        let handlers = self.hooks.handlers(event, None);
        if handlers.is_empty() {
            return;
        }
        let base = json!({
            "sessionId": cx.session.id,
            "timestamp": crate::clock::unix_ms() as u64,
            "cwd": cx.session.cwd,
        });
        let payload = payload::merge(base, extra);
        cx.run_hooks_attached(event, &handlers, &payload, DEFAULT_TIMEOUT);
    }

    fn progress(&self, cx: &Cx, busy: bool) {
        if self.progress {
            cx.write(if busy {
                "\x1b]9;4;3;0\x07"
            } else {
                "\x1b]9;4;0;0\x07"
            });
        }
    }
}

impl Agent for Copilot {
    fn startup(&mut self, cx: &mut Cx) {
        cx.write("\x1b]10;?\x1b\\\x1b]11;?\x1b\\");
        cx.title("GitHub Copilot");
        cx.line("GitHub Copilot CLI 1.0.102 (termic-sim)");
        cx.write("\r\x1b[K  ❯ ");
    }

    fn submit(&mut self, cx: &mut Cx, prompt: &str) {
        cx.line("");
        cx.line(&format!("  ❯ {prompt}"));
        if !self.session_started {
            // Lazily, at the first prompt (measured).
            self.session_started = true;
            self.fire(
                cx,
                "sessionStart",
                json!({ "source": "new", "initialPrompt": prompt }),
            );
            cx.title(&format!("{prompt} - GitHub Copilot"));
        }
        self.fire(cx, "userPromptSubmitted", json!({ "prompt": prompt }));
        self.progress(cx, true);
    }

    fn tool(&mut self, cx: &mut Cx, name: &str, arg: &str) {
        let args = json!({ "path": cx.cwd.join(arg) });
        self.fire(
            cx,
            "preToolUse",
            json!({ "toolName": name, "toolArgs": args }),
        );
        self.fire(
            cx,
            "postToolUse",
            json!({ "toolName": name, "toolArgs": args }),
        );
    }

    fn block(&mut self, cx: &mut Cx, b: &Block) {
        let arg = match b {
            Block::Permission { arg, .. } => arg.clone(),
            Block::Question { text, .. } | Block::Plan { text } => text.clone(),
        };
        let path = cx.cwd.join(&arg);
        self.fire(
            cx,
            "preToolUse",
            json!({ "toolName": "create", "toolArgs": { "path": path, "file_text": "hello\n" } }),
        );
        cx.sleep(30);
        self.fire(
            cx,
            "permissionRequest",
            json!({ "hookName": "permissionRequest", "toolName": "edit",
                    "toolInput": { "file_path": path, "diff": "" }, "permissionSuggestions": [] }),
        );
        cx.sleep(30);
        self.fire(
            cx,
            "notification",
            json!({ "message": format!("Edit file: {}", path.display()), "title": "Permission needed",
                    "hook_event_name": "Notification", "notification_type": "permission_prompt" }),
        );
        // The progress is re-sent while it waits (measured on ghostty).
        self.progress(cx, true);
        cx.line("╭──────────────────────────────────────────────────────╮");
        cx.line(&format!(
            "│ Do you want to create {:<31}│",
            format!("{arg}?")
        ));
        cx.line("│                                                      │");
        cx.line("│ ❯ 1. Yes                                             │");
        cx.line("│   2. Yes, and don't ask again for file operations    │");
        cx.line("│   3. No, and tell Copilot what to do differently     │");
        cx.line("│                                                      │");
        cx.line("│ ↑/↓ to navigate · enter to select · esc to cancel    │");
        cx.line("╰──────────────────────────────────────────────────────╯");
    }

    fn answer_for(&self, _b: &Block, key: Key) -> Option<Answer> {
        match key {
            Key::Enter | Key::Char('1' | '2') => Some(Answer::Approve),
            Key::Char('3') | Key::Escape => Some(Answer::Reject),
            _ => None,
        }
    }

    fn unblock(&mut self, cx: &mut Cx, _b: &Block, a: Answer) -> bool {
        if a == Answer::Reject {
            self.progress(cx, false);
            return false;
        }
        self.fire(cx, "postToolUse", json!({ "toolName": "create" }));
        true
    }

    fn stop(&mut self, cx: &mut Cx, _last: &str) {
        self.fire(
            cx,
            "agentStop",
            json!({ "transcriptPath": cx.session.transcript, "stopReason": "end_turn",
                    "stop_hook_active": false }),
        );
        self.progress(cx, false);
        cx.write("\r\x1b[K  ❯ ");
    }

    fn interrupt(&mut self, cx: &mut Cx, _key: Key, _phase: Phase) -> Reaction {
        // 1.0.102 fired no hook within 5 s of an Escape mid-answer; what it
        // paints then was not measured (the progress is cleared here).
        self.progress(cx, false);
        cx.line("Cancelled.");
        cx.write("\r\x1b[K  ❯ ");
        Reaction::Interrupted
    }

    fn exit(&mut self, cx: &mut Cx) {
        self.fire(cx, "sessionEnd", json!({ "reason": "exit" }));
    }
}
