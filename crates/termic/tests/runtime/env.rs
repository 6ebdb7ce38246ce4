//! The spawn env contract, seen from inside a real child. termic's own env
//! must hold multiplexer variables, and setting them here would race the
//! other tests of this binary (run on other threads of the same process):
//! the test runs itself again in a child copy of the test binary whose env
//! has them from the start.

use crate::runtime_support;

use std::process::Command;
use std::time::Duration;

use runtime_support::*;

/// Set in the child copy of the test binary that runs the test's body.
const IN_CHILD: &str = "TERMIC_TEST_ENV_CHILD";

#[test]
fn child_gets_the_contract_and_no_multiplexer_vars() {
    if std::env::var_os(IN_CHILD).is_none() {
        // This test's name as the test binary knows it (no crate name).
        let module = module_path!().split_once("::").map_or("", |(_, m)| m);
        let name = format!("{module}::child_gets_the_contract_and_no_multiplexer_vars");
        let out = Command::new(std::env::current_exe().unwrap())
            .args([
                name.as_str(),
                "--exact",
                "--test-threads",
                "1",
                "--nocapture",
            ])
            .env(IN_CHILD, "1")
            .env("TMUX", "/tmp/tmux-1000/default,1,0")
            .env("TMUX_PANE", "%1")
            .env("STY", "1.pts-0.host")
            .env("ZELLIJ_SESSION_NAME", "dev")
            .env("TERMIC_TEST_KEEP", "kept")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains("1 passed"),
            "the child run of {name} failed:\n{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        return;
    }
    let (rt, events) = runtime();
    let script = "for v in TERMIC_TASK_ID TERMIC_PTY TERM COLORTERM TERM_PROGRAM TERMIC_TEST_KEEP \
                  TMUX TMUX_PANE STY ZELLIJ_SESSION_NAME; do eval \"printf '%s=%s\\n' $v \\\"\\${$v-UNSET}\\\"\"; done";
    let mut ids = Vec::new();
    for name in ["a", "b"] {
        ids.push(rt.spawn(sh(name, script)).unwrap());
    }
    let mut task_ids = Vec::new();
    for id in ids {
        wait_exit(&rt, &events, id, Duration::from_secs(10));
        let text = rt.with_screen(id, |s| s.contents()).unwrap();
        let get = |k: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(&format!("{k}=")))
                .unwrap_or_else(|| panic!("{k} missing in {text:?}"))
                .to_owned()
        };
        let info = rt.info(id).unwrap();
        assert_eq!(get("TERMIC_TASK_ID"), info.meta.task_id);
        assert_eq!(get("TERMIC_TASK_ID").len(), 32);
        assert_eq!(get("TERMIC_PTY"), info.meta.pty_path.to_str().unwrap());
        assert_eq!(get("TERM"), "xterm-256color");
        assert_eq!(get("COLORTERM"), "truecolor");
        assert_eq!(get("TERM_PROGRAM"), "iTerm.app");
        assert_eq!(get("TERMIC_TEST_KEEP"), "kept");
        for gone in ["TMUX", "TMUX_PANE", "STY", "ZELLIJ_SESSION_NAME"] {
            assert_eq!(get(gone), "UNSET", "{gone} leaked into the child");
        }
        task_ids.push(get("TERMIC_TASK_ID"));
    }
    assert_ne!(task_ids[0], task_ids[1], "task ids must be fresh per spawn");
}
