//! Issue 13 through the real binary with the simulated Claude (termic-sim,
//! termic's real hooks installed in the fixture HOME): a detached task in
//! the termic server, `wait --for needs-you` returning when it blocks on a
//! permission, `send` approving it, `ls --json` listing it, and
//! `server stop` leaving no process behind.

use serde_json::Value;

use super::binary::{StopOnDrop, NO_PROBE};
use super::support::Fixture;
use crate::process_table::processes_of;

#[test]
fn a_detached_simulated_claude_is_waited_for_approved_listed_and_stopped() {
    let fx = Fixture::new();
    fx.config(&[("claude", "permission", &["--auto"])], NO_PROBE);
    fx.termic_ok(&["hooks", "install", "claude", "--yes"]);
    let _stop = StopOnDrop(&fx);
    let out = fx.termic_ok(&["run", "claude", "--name", "sim", "--detach"]);
    assert!(out.contains("Started task sim (claude)"), "{out}");

    // Blocked on "Write out.txt": the hook's attention, through the server.
    let out = fx.termic_ok(&["wait", "sim", "--for", "needs-you", "--timeout", "30"]);
    assert_eq!(out.trim(), "needs_you");
    let rows: Value = serde_json::from_str(&fx.termic_ok(&["ls", "--json"])).unwrap();
    let row = &rows.as_array().unwrap()[0];
    assert_eq!(row["name"], "sim");
    assert_eq!(row["agent"], "claude");
    assert_eq!(row["state"], "needs_you");
    assert_eq!(row["cwd"], fx.project().display().to_string());

    // "1" approves, as in the real Claude's prompt; the turn finishes.
    fx.termic_ok(&["send", "sim", "1"]);
    let out = fx.termic_ok(&["wait", "sim", "--for", "done", "--timeout", "30"]);
    assert_eq!(out.trim(), "done");

    let before = processes_of(&fx.data_dir());
    assert!(
        before.len() >= 2,
        "the server and the simulator: {before:?}"
    );
    assert!(fx.termic_ok(&["server", "stop"]).contains("stopped"));
    let left = processes_of(&fx.data_dir());
    assert!(left.is_empty(), "left after server stop: {left:?}");
}
