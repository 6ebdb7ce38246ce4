//! The spawn env contract, seen from inside a real child. It sets
//! multiplexer variables in termic's own env: in a child copy of the test
//! binary (`in_a_child_with_env`), not beside the binary's other tests.

use crate::runtime_support;

use std::time::Duration;

use runtime_support::*;

#[test]
fn child_gets_the_contract_and_no_multiplexer_vars() {
    let env = [
        ("TMUX", "/tmp/tmux-1000/default,1,0"),
        ("TMUX_PANE", "%1"),
        ("STY", "1.pts-0.host"),
        ("ZELLIJ_SESSION_NAME", "dev"),
        ("TERMIC_TEST_KEEP", "kept"),
    ];
    if !in_a_child_with_env(
        module_path!(),
        "child_gets_the_contract_and_no_multiplexer_vars",
        &env,
    ) {
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
