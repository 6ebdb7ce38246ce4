//! opencode 1.18.33: plugins from `plugin/` AND `plugins/` run in-process
//! (here: in the node host) and get the `chat.message` hook and the bus
//! events measured: session.created, message.updated, session.status
//! busy/idle (busy stays on while a permission waits), permission.asked /
//! permission.replied, session.idle, session.error. Subagents are child
//! sessions with a parentID. Titles: `OpenCode`, then `OC | <title>`, with
//! no state. The first Escape is ignored; the second fires session.error
//! then session.idle; Ctrl-C does the same and exits.

pub mod config;
pub mod host;

use serde_json::{json, Value};

use self::host::OpencodeHost;
use super::{draw_prompt, session_title, Agent, Answer, Block, Cx, Phase, Reaction, SimDef};
use crate::input::Key;

/// The simulated Opencode, found by `termic-sim opencode` through [`SIMS`](super::SIMS).
pub const SIM: SimDef = SimDef {
    id: "opencode",
    build: |_, cx| Box::new(Opencode::new(cx)),
    // opencode has plugins, not hooks: one line per plugin file it loads.
    hooks_listing: |cfg| {
        use std::fmt::Write as _;
        let xdg = std::env::var_os("XDG_CONFIG_HOME").map(std::path::PathBuf::from);
        let mut s = String::new();
        for f in config::plugin_files(&config::config_dir(&cfg.home, xdg.as_deref())) {
            let _ = writeln!(s, "plugin {}", f.display());
        }
        s
    },
};

pub struct Opencode {
    host: Option<OpencodeHost>,
    session: String,
    title: Option<String>,
    escapes: u32,
    children: Vec<String>,
    permission: u32,
    message: u32,
}

impl Opencode {
    pub fn new(cx: &Cx) -> Opencode {
        let xdg = std::env::var_os("XDG_CONFIG_HOME").map(std::path::PathBuf::from);
        let files = config::plugin_files(&config::config_dir(&cx.home, xdg.as_deref()));
        let host = if files.is_empty() {
            None
        } else {
            match OpencodeHost::start(&files, &cx.cwd) {
                Ok(h) => {
                    cx.trace("plugins", json!({ "files": files, "ready": h.ready }));
                    Some(h)
                }
                Err(e) => {
                    cx.trace("plugins", json!({ "files": files, "error": e }));
                    None
                }
            }
        };
        Opencode {
            host,
            session: format!("ses_{}", &cx.session.id[..8]),
            title: None,
            escapes: 0,
            children: Vec::new(),
            permission: 0,
            message: 0,
        }
    }

    fn event(&mut self, cx: &Cx, kind: &str, props: Value) {
        if let Some(h) = self.host.as_mut() {
            let ack = h.event(kind, props);
            cx.trace(
                "plugin_event",
                json!({ "type": kind, "errors": ack["errors"] }),
            );
        }
    }

    fn status(&mut self, cx: &Cx, session: &str, busy: bool) {
        let kind = if busy { "busy" } else { "idle" };
        self.event(
            cx,
            "session.status",
            json!({ "sessionID": session, "status": { "type": kind } }),
        );
    }

    fn end_turn(&mut self, cx: &Cx) {
        let s = self.session.clone();
        self.status(cx, &s, false);
        self.event(cx, "session.idle", json!({ "sessionID": s }));
    }
}

impl Agent for Opencode {
    fn startup(&mut self, cx: &mut Cx) {
        cx.write(
            "\x1b]99;i=opentui-notifications:p=?;\x1b\\\x1b]10;?\x07\x1b]11;?\x07\x1b]4;0;?\x07",
        );
        cx.title("OpenCode");
        cx.line("opencode (termic-sim)");
        if let Some(h) = &self.host {
            cx.line(&format!("  plugins: {}", h.ready["plugins"]));
        }
        cx.write("\r\x1b[K> ");
    }

    fn submit(&mut self, cx: &mut Cx, prompt: &str) {
        self.escapes = 0;
        cx.line("");
        cx.line(&format!("> {prompt}"));
        let s = self.session.clone();
        if self.title.is_none() {
            let info = json!({ "id": s, "title": "New session", "directory": cx.cwd });
            self.event(cx, "session.created", json!({ "info": info }));
        }
        self.message += 1;
        let msg_id = format!("msg_{}", self.message);
        if let Some(h) = self.host.as_mut() {
            let ack = h.hook(
                "chat.message",
                json!({ "sessionID": s, "agent": "build", "model": { "providerID": "sim", "modelID": "sim-1" }, "messageID": msg_id }),
                json!({ "message": { "id": msg_id, "sessionID": s, "role": "user" }, "parts": [{ "type": "text", "text": prompt }] }),
            );
            cx.trace(
                "plugin_hook",
                json!({ "name": "chat.message", "errors": ack["errors"] }),
            );
        }
        self.event(
            cx,
            "message.updated",
            json!({ "info": { "id": msg_id, "sessionID": s, "role": "user" } }),
        );
        self.status(cx, &s, true);
        if self.title.is_none() {
            let t = session_title(prompt);
            cx.title(&format!("OC | {t}"));
            self.event(
                cx,
                "session.updated",
                json!({ "info": { "id": s, "title": t } }),
            );
            self.title = Some(t);
        }
    }

    fn tool(&mut self, cx: &mut Cx, name: &str, arg: &str) {
        let s = self.session.clone();
        let input = json!({ "tool": name.to_lowercase(), "sessionID": s, "callID": format!("call_{}", self.message) });
        if let Some(h) = self.host.as_mut() {
            let ack = h.hook(
                "tool.execute.before",
                input.clone(),
                json!({ "args": { "filePath": arg } }),
            );
            // In opencode a throw here blocks the tool.
            let blocked = ack["errors"].as_array().is_some_and(|e| !e.is_empty());
            cx.trace(
                "plugin_hook",
                json!({ "name": "tool.execute.before", "tool_blocked": blocked }),
            );
            h.hook(
                "tool.execute.after",
                input,
                json!({ "title": arg, "output": "", "metadata": {} }),
            );
        }
        cx.line(&format!("  {name} {arg}"));
    }

    fn block(&mut self, cx: &mut Cx, b: &Block) {
        self.permission += 1;
        let (permission, pattern, heading) = match b {
            Block::Permission { tool, arg } => (
                "edit",
                arg.clone(),
                format!("Permission required: {tool} {arg}"),
            ),
            Block::Question { text, .. } | Block::Plan { text } => {
                ("bash", String::new(), text.clone())
            }
        };
        let s = self.session.clone();
        let props = json!({
            "id": format!("per_{}", self.permission), "sessionID": s, "permission": permission,
            "patterns": [pattern], "metadata": {}, "always": [],
            "tool": { "messageID": format!("msg_{}", self.message), "callID": format!("call_{}", self.message) },
        });
        draw_prompt(cx, &heading, &["Allow once", "Allow always", "Reject"]);
        self.event(cx, "permission.asked", props);
    }

    fn answer_for(&self, _b: &Block, key: Key) -> Option<Answer> {
        match key {
            Key::Enter | Key::Char('1' | '2' | 'y' | 'a') => Some(Answer::Approve),
            Key::Char('3' | 'n' | 'r') => Some(Answer::Reject),
            _ => None,
        }
    }

    fn unblock(&mut self, cx: &mut Cx, _b: &Block, a: Answer) -> bool {
        let reply = if a == Answer::Approve {
            "once"
        } else {
            "reject"
        };
        let s = self.session.clone();
        let id = format!("per_{}", self.permission);
        self.event(
            cx,
            "permission.replied",
            json!({ "sessionID": s, "requestID": id, "reply": reply }),
        );
        if a == Answer::Reject {
            self.end_turn(cx);
            return false;
        }
        true
    }

    fn subagents(&mut self, cx: &mut Cx, count: u32, _quiet: bool) {
        if !self.children.is_empty() {
            return;
        }
        for n in 1..=count {
            let child = format!("{}_sub{n}", self.session);
            let info =
                json!({ "id": child, "parentID": self.session, "title": format!("Subagent {n}") });
            self.event(cx, "session.created", json!({ "info": info }));
            self.status(cx, &child, true);
            self.children.push(child);
        }
    }

    fn subagents_done(&mut self, cx: &mut Cx, _count: u32) {
        for child in std::mem::take(&mut self.children) {
            self.status(cx, &child, false);
            self.event(cx, "session.idle", json!({ "sessionID": child }));
        }
    }

    fn stop(&mut self, cx: &mut Cx, _last: &str) {
        self.end_turn(cx);
        cx.write("\r\x1b[K> ");
    }

    fn interrupt(&mut self, cx: &mut Cx, key: Key, _phase: Phase) -> Reaction {
        if key == Key::Escape {
            self.escapes += 1;
            if self.escapes < 2 {
                cx.line("  esc again to interrupt");
                return Reaction::Ignored;
            }
        }
        cx.sleep(30);
        let s = self.session.clone();
        let error = json!({ "name": "MessageAbortedError", "data": { "message": "The operation was aborted." } });
        self.event(
            cx,
            "session.error",
            json!({ "sessionID": s, "error": error }),
        );
        self.end_turn(cx);
        if key == Key::CtrlC {
            return Reaction::Exit;
        }
        cx.write("\r\x1b[K> ");
        Reaction::Interrupted
    }

    fn exit(&mut self, _cx: &mut Cx) {
        self.host = None;
    }
}
