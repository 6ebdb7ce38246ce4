//! Issue 13 through the real binary with the simulated Claude (termic-sim,
//! termic's real hooks installed in the fixture HOME): a detached task in
//! the termic server, `wait --for needs-you` returning when it blocks on a
//! permission, `send` approving it, `ls --json` listing it, and
//! `server stop` leaving no process behind.

use serde_json::Value;

use super::support::Fixture;
use crate::process_table::processes_of;

const NO_PROBE: &str = "[terminal]\nnative_probe_reply = false\n";

fn ok(fx: &Fixture, args: &[&str]) -> String {
    let out = fx.termic(args);
    assert!(
        out.status.success(),
        "termic {args:?}: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Stops the fixture's server however the test ends.
struct StopOnDrop<'a>(&'a Fixture);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        let _ = self.0.termic(&["server", "stop"]);
    }
}

#[test]
fn a_detached_simulated_claude_is_waited_for_approved_listed_and_stopped() {
    let fx = Fixture::new();
    fx.config(&[("claude", "permission", &["--auto"])], NO_PROBE);
    ok(&fx, &["hooks", "install", "claude", "--yes"]);
    let _stop = StopOnDrop(&fx);
    let out = ok(&fx, &["run", "claude", "--name", "sim", "--detach"]);
    assert!(out.contains("Started task sim (claude)"), "{out}");

    // Blocked on "Write out.txt": the hook's attention, through the server.
    let out = ok(
        &fx,
        &["wait", "sim", "--for", "needs-you", "--timeout", "30"],
    );
    assert_eq!(out.trim(), "needs_you");
    let rows: Value = serde_json::from_str(&ok(&fx, &["ls", "--json"])).unwrap();
    let row = &rows.as_array().unwrap()[0];
    assert_eq!(row["name"], "sim");
    assert_eq!(row["agent"], "claude");
    assert_eq!(row["state"], "needs_you");
    assert_eq!(row["cwd"], fx.project().display().to_string());

    // "1" approves, as in the real Claude's prompt; the turn finishes.
    ok(&fx, &["send", "sim", "1"]);
    let out = ok(&fx, &["wait", "sim", "--for", "done", "--timeout", "30"]);
    assert_eq!(out.trim(), "done");

    let before = processes_of(&fx.data_dir());
    assert!(
        before.len() >= 2,
        "the server and the simulator: {before:?}"
    );
    assert!(ok(&fx, &["server", "stop"]).contains("stopped"));
    let left = processes_of(&fx.data_dir());
    assert!(left.is_empty(), "left after server stop: {left:?}");
}
