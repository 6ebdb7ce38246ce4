//! `termic demo`: a task per simulated agent in a throwaway HOME, a
//! permission prompt raising needs-you, the Inspector, and the user's real
//! HOME left exactly as it was.

use std::time::Duration;

use portable_pty::{native_pty_system, CommandBuilder, PtySize};

use super::binary::{tree, COLS, ROWS};
use super::support::{Fixture, SEC};

#[test]
fn demo_runs_every_agent_in_a_throwaway_home() {
    let fx = Fixture::new();
    let real_home = fx.home();
    std::fs::create_dir_all(real_home.join(".claude")).unwrap();
    std::fs::write(
        real_home.join(".claude/settings.json"),
        "{\"model\": \"mine\"}\n",
    )
    .unwrap();
    let tmp = fx.root.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let before = tree(&real_home);
    super::support::sim_binary();

    let pair = native_pty_system()
        .openpty(PtySize {
            rows: ROWS,
            cols: COLS,
            pixel_width: 0,
            pixel_height: 0,
        })
        .unwrap();
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_termic"));
    let log = fx.log_path();
    cmd.args(["demo", "--speed", "4", "--event-log"]);
    cmd.arg(&log);
    cmd.cwd(fx.project());
    cmd.env("HOME", &real_home);
    cmd.env("TMPDIR", &tmp);
    cmd.env("TERM", "xterm-256color");
    cmd.env_remove("TERMIC_EVENT_LOG");
    cmd.env_remove("TMUX");
    let mut child = pair.slave.spawn_command(cmd).unwrap();
    drop(pair.slave);
    let screen = std::sync::Arc::new(std::sync::Mutex::new(vt100::Parser::new(
        std::num::NonZeroU16::new(ROWS).unwrap(),
        std::num::NonZeroU16::new(COLS).unwrap(),
        0,
    )));
    let mut reader = pair.master.try_clone_reader().unwrap();
    let s2 = screen.clone();
    std::thread::spawn(move || {
        let mut buf = [0u8; 16384];
        while let Ok(n) = std::io::Read::read(&mut reader, &mut buf) {
            if n == 0 {
                break;
            }
            s2.lock().unwrap().process(&buf[..n]);
        }
    });
    let mut writer = pair.master.take_writer().unwrap();
    let text = || screen.lock().unwrap().screen().contents();
    let wait = |what: &str, pred: &dyn Fn(&str) -> bool, secs: u64| {
        let end = std::time::Instant::now() + Duration::from_secs(secs);
        while std::time::Instant::now() < end {
            if pred(&text()) {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("demo never showed {what}:\n{}", text());
    };

    wait(
        "a task per agent",
        &|s| {
            [
                "claude-demo",
                "grok-demo",
                "agy-demo",
                "opencode-demo",
                "codex-demo",
            ]
            .iter()
            .all(|t| s.contains(t))
        },
        15,
    );
    // The focused task's pane (right of the sidebar), however it wrapped.
    let pane_text = |s: &str| -> String {
        s.lines()
            .filter_map(|l| l.split_once('│').map(|(_, pane)| pane.to_owned()))
            .collect::<String>()
            .split_whitespace()
            .collect()
    };
    wait(
        "the throwaway HOME notice",
        &|s| pane_text(s).contains("yourrealHOMEisnotreadorchanged"),
        10,
    );
    // The demo's second turn asks permission: needs-you, from hooks or native status.
    let needs = |task: &str| {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .find(|v| v["task"] == task && v["to"] == "needs_you")
    };
    let end = std::time::Instant::now() + 20 * SEC;
    while std::time::Instant::now() < end
        && ["claude-demo", "grok-demo", "opencode-demo", "codex-demo"]
            .iter()
            .any(|t| needs(t).is_none())
    {
        std::thread::sleep(Duration::from_millis(100));
    }
    for t in ["claude-demo", "grok-demo", "opencode-demo", "codex-demo"] {
        let v = needs(t).unwrap_or_else(|| panic!("{t} never needed you"));
        let rule = v["rule"].as_str().unwrap();
        assert!(
            rule == "hook_attention" || rule == "native_blocked",
            "{t}: {v}"
        );
    }
    wait("a needs-you badge", &|s| s.contains("needs you"), 5);
    // The Inspector opens on the focused task.
    std::io::Write::write_all(&mut writer, b"\x1di").unwrap();
    wait("the Inspector", &|s| s.contains("Inspector: "), 5);
    std::io::Write::write_all(&mut writer, b"\x1b").unwrap();
    std::thread::sleep(Duration::from_millis(300));
    std::io::Write::write_all(&mut writer, b"\x1dq").unwrap();
    std::thread::sleep(Duration::from_millis(300));
    std::io::Write::write_all(&mut writer, b"y").unwrap();
    let end = std::time::Instant::now() + 10 * SEC;
    let mut exited = false;
    while std::time::Instant::now() < end {
        if let Ok(Some(_)) = child.try_wait() {
            exited = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    assert!(exited, "demo quits on prefix q:\n{}", text());
    assert!(
        tree(&real_home) == before,
        "the real HOME is byte-identical"
    );
    let left: Vec<_> = std::fs::read_dir(&tmp)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(
        left.iter()
            .all(|n| !n.to_string_lossy().starts_with("termic-demo-")),
        "throwaway dir removed: {left:?}"
    );
}
