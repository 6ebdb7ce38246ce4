//! opencode: plugins from plugin/ AND plugins/ in node, the measured event
//! sequence, in-process error isolation, subagent sessions, interrupts.

use std::time::Duration;

use crate::harness::{eventually, Home, Sim, SEC};

fn recorder(home: &Home, rel: &str, tag: &str) {
    let log = home.path().join("plugin.log");
    home.write(
        rel,
        &format!(
            r#"import fs from "node:fs";
const log = (s) => fs.appendFileSync({log:?}, "{tag} " + s + "\n");
export const Recorder = async (ctx) => {{
  log("init " + (ctx && ctx.directory ? "ctx" : "noctx"));
  return {{
    "chat.message": async (input, output) => log("chat.message " + input.sessionID + " " + output.parts[0].text),
    event: async ({{ event }}) => {{
      const p = event.properties || {{}};
      let extra = p.sessionID || (p.info && p.info.id) || "";
      if (event.type === "session.created" && p.info && p.info.parentID) {{
        const got = await ctx.client.session.get({{ path: {{ id: p.info.id }} }});
        extra += " parent=" + got.data.parentID;
      }}
      if (event.type === "session.status") extra += " " + p.status.type;
      if (event.type === "permission.replied") extra += " " + p.reply;
      log(event.type + " " + extra);
    }},
  }};
}};
"#
        ),
    );
}

fn log_lines(home: &Home) -> Vec<String> {
    std::fs::read_to_string(home.path().join("plugin.log"))
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

fn wait_log(home: &Home, needle: &str) {
    if eventually(5 * SEC, || {
        log_lines(home).iter().any(|l| l.contains(needle))
    }) {
        return;
    }
    panic!("{needle:?} not in plugin log: {:#?}", log_lines(home));
}

#[test]
fn permission_turn_event_sequence() {
    let home = Home::new();
    recorder(&home, ".config/opencode/plugins/rec.js", "A");
    let sim = Sim::auto("opencode", "permission", &home, &[]);
    wait_log(&home, "permission.asked");
    sim.send(b"\r");
    wait_log(&home, "session.idle");
    let kinds: Vec<String> = log_lines(&home)
        .iter()
        .map(|l| l.split(' ').nth(1).unwrap().to_string())
        .collect();
    assert_eq!(
        kinds,
        [
            "init",
            "session.created",
            "chat.message",
            "message.updated",
            "session.status",
            "session.updated",
            "permission.asked",
            "permission.replied",
            "session.status",
            "session.idle"
        ]
    );
    let lines = log_lines(&home);
    assert!(lines[0].ends_with("ctx"));
    assert!(lines[2].ends_with("Create out.txt containing hello"));
    assert!(lines[4].ends_with("busy") && lines[8].ends_with("idle"));
    assert!(lines[7].ends_with("once"));
    let out = sim.output();
    assert!(
        out.contains("\x1b]0;OpenCode\x07")
            && out.contains("\x1b]0;OC | Create Out.txt Containing Hello\x07")
    );
}

#[test]
fn plugin_and_plugins_both_load_so_a_double_install_double_fires() {
    let home = Home::new();
    recorder(&home, ".config/opencode/plugins/termic.js", "A");
    recorder(&home, ".config/opencode/plugin/termic.js", "B");
    let _sim = Sim::auto("opencode", "simple", &home, &[]);
    wait_log(&home, "A session.idle");
    wait_log(&home, "B session.idle");
    let chat = log_lines(&home)
        .iter()
        .filter(|l| l.contains("chat.message"))
        .count();
    assert_eq!(chat, 2);
}

#[test]
fn a_throwing_plugin_never_stops_the_others() {
    let home = Home::new();
    home.write(
        ".config/opencode/plugins/a-bad.js",
        "export const Bad = async () => ({ event: async () => { throw new Error('boom') }, 'chat.message': () => Promise.reject(new Error('no')) });\n\
         export const WorseInit = async () => { throw new Error('init') };\n",
    );
    home.write(".config/opencode/plugins/b-syntax.js", "export const = ;\n");
    recorder(&home, ".config/opencode/plugins/c-rec.js", "A");
    let sim = Sim::auto("opencode", "simple", &home, &[]);
    wait_log(&home, "A session.idle");
    let trace = sim.trace();
    let plugins = trace.iter().find(|v| v["ev"] == "plugins").unwrap();
    assert_eq!(plugins["ready"]["plugins"], 2, "{plugins}");
    assert!(trace
        .iter()
        .any(|v| v["ev"] == "plugin_event" && !v["errors"].as_array().unwrap().is_empty()));
}

#[test]
fn subagent_sessions_carry_their_parent() {
    let home = Home::new();
    recorder(&home, ".config/opencode/plugins/rec.js", "A");
    let _sim = Sim::auto("opencode", "subagents", &home, &["--speed", "200"]);
    wait_log(&home, "_sub4");
    let lines = log_lines(&home);
    let root = lines
        .iter()
        .find(|l| l.contains("session.created"))
        .unwrap()
        .split(' ')
        .nth(2)
        .unwrap()
        .to_string();
    assert!(
        lines
            .iter()
            .any(|l| l.contains("session.created") && l.contains(&format!("parent={root}"))),
        "{lines:#?}"
    );
    eventually(5 * SEC, || {
        log_lines(&home)
            .iter()
            .any(|l| l == &format!("A session.idle {root}"))
    });
    let lines = log_lines(&home);
    let root_idle = lines
        .iter()
        .position(|l| l == &format!("A session.idle {root}"))
        .expect("root idle");
    let child_idles = lines
        .iter()
        .filter(|l| l.starts_with("A session.idle") && l.contains("_sub"))
        .count();
    assert_eq!(child_idles, 4);
    assert!(
        lines
            .iter()
            .position(|l| l.starts_with("A session.idle") && l.contains("_sub"))
            .unwrap()
            < root_idle
    );
}

#[test]
fn first_escape_is_ignored_second_errors_then_idles() {
    let home = Home::new();
    recorder(&home, ".config/opencode/plugins/rec.js", "A");
    let sim = Sim::auto("opencode", "interrupt", &home, &[]);
    wait_log(&home, "session.status");
    sim.escape();
    sim.wait_for("esc again to interrupt", SEC);
    // Not a wait: a session.error would land in this window.
    std::thread::sleep(Duration::from_millis(300));
    assert!(!log_lines(&home).iter().any(|l| l.contains("session.error")));
    let before = sim.output().len();
    assert!(
        eventually(SEC, || sim.output().len() > before),
        "still streaming after one Escape"
    );
    sim.escape();
    wait_log(&home, "session.idle");
    let lines = log_lines(&home);
    let err = lines
        .iter()
        .position(|l| l.contains("session.error"))
        .unwrap();
    let idle = lines
        .iter()
        .position(|l| l.contains("session.idle"))
        .unwrap();
    assert!(err < idle);
}

#[test]
fn ctrl_c_errors_idles_and_exits() {
    let home = Home::new();
    recorder(&home, ".config/opencode/plugins/rec.js", "A");
    let mut sim = Sim::auto("opencode", "interrupt", &home, &[]);
    wait_log(&home, "session.status");
    sim.send(b"\x03");
    assert!(sim.exited_within(3 * SEC));
    let lines = log_lines(&home);
    assert!(lines.iter().any(|l| l.contains("session.error")));
    assert!(lines.last().unwrap().contains("session.idle"));
}
