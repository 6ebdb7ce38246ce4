//! Every hook agent as a Docker agent from config.toml: its Docker target
//! reads wired, and its hooks, run inside the container from the mounted
//! termic-owned dir with container paths, drive the badge through working,
//! needs you (no done before it) and done, exactly as on the host.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::docker_support::{
    containers_of, docker_agent_toml, image, wait_containers, CONFIG_HEAD,
};
use crate::support::{count, log_lines, to_and_rule, trace, Fixture, SEC};

/// Claude's idle glyph while blocked would settle to a false done after 5 s;
/// wait past that before judging (as the host spec does).
const PAST_SETTLE: Duration = Duration::from_millis(6500);

struct Case {
    base: &'static str,
    scenario: &'static str,
    /// The key that approves the prompt; `None` for agy, which has no
    /// attention event (its turn is its hooks' working and done).
    approve: Option<&'static [u8]>,
    /// Where its config dir is mounted in the container.
    inside: &'static str,
}

const CASES: [Case; 4] = [
    Case {
        base: "claude",
        scenario: "permission",
        approve: Some(b"1"),
        inside: "/root/.claude",
    },
    Case {
        base: "grok",
        scenario: "permission",
        approve: Some(b"3"),
        inside: "/root/.grok",
    },
    Case {
        base: "opencode",
        scenario: "permission",
        approve: Some(b"\r"),
        inside: "/root/.config/opencode",
    },
    Case {
        base: "agy",
        scenario: "simple",
        approve: None,
        inside: "/root/.gemini",
    },
];

fn events(log: &Path) -> Vec<Value> {
    log_lines(log)
}

fn steps(log: &Path) -> Vec<String> {
    to_and_rule(&log_lines(log))
}

fn states(log: &Path) -> Vec<String> {
    events(log)
        .iter()
        .map(|v| v["to"].as_str().unwrap_or("").to_owned())
        .collect()
}

fn wait_event(log: &Path, to: &str, timeout: Duration) -> Value {
    let end = Instant::now() + timeout;
    while Instant::now() < end {
        if let Some(v) = events(log).into_iter().find(|v| v["to"] == to) {
            return v;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("no transition to {to} in {timeout:?}: {:?}", steps(log));
}

fn run_case(image: &str, case: &Case) {
    let fx = Fixture::new();
    let id = format!("{}-box", case.base);
    let trace_file = fx.project().join(format!("trace-{}.jsonl", case.base));
    let command: Vec<String> = [
        "termic-sim",
        case.base,
        case.scenario,
        "--auto",
        "--trace",
        trace_file.to_str().unwrap(),
    ]
    .map(String::from)
    .to_vec();
    let config = format!(
        "{CONFIG_HEAD}{}",
        docker_agent_toml(&id, case.base, image, &command)
    );
    std::fs::write(fx.config_dir().join("config.toml"), config).unwrap();

    let out = fx.termic(&["hooks", "install", case.base, "--yes"]);
    assert!(
        out.status.success(),
        "{}: hooks install: {}",
        case.base,
        String::from_utf8_lossy(&out.stderr)
    );
    let target = format!("docker:{id}");
    let rows = fx.hooks_status();
    let state = rows
        .iter()
        .find(|(a, t, _)| a == case.base && *t == target)
        .map(|(_, _, s)| s.clone());
    assert_eq!(state.as_deref(), Some("wired"), "{}: {rows:?}", case.base);

    let log = fx.log_path();
    let mut t = fx.start_termic(&["run", &id, "--event-log", log.to_str().unwrap()]);
    // The server the workspace started owns the task and its container.
    let pid = super::lifecycle::server_pid(&fx);
    let running = wait_containers(pid, "the task's container", 30 * SEC, |c| c.len() == 1);
    assert!(
        running[0].starts_with(&format!("termic-{id}-")),
        "{running:?}"
    );

    if let Some(approve) = case.approve {
        let needs = wait_event(&log, "needs_you", 30 * SEC);
        assert_eq!(
            needs["rule"],
            "hook_attention",
            "{}: {:?}",
            case.base,
            steps(&log)
        );
        t.wait_within("the needs-you badge", 5 * SEC, |s| s.contains("needs you"));
        // Not a wait: no done may come while the dialog waits, past the settle.
        std::thread::sleep(PAST_SETTLE);
        assert_eq!(
            states(&log),
            ["working", "needs_you"],
            "{}: no false done past the settle: {:?}",
            case.base,
            steps(&log)
        );
        t.send(approve);
    } else {
        let working = wait_event(&log, "working", 30 * SEC);
        assert_eq!(
            working["rule"],
            "hook_working",
            "{}: {:?}",
            case.base,
            steps(&log)
        );
    }
    let done = wait_event(&log, "done", 20 * SEC);
    assert_eq!(
        done["rule"],
        "hook_done",
        "{}: {:?}",
        case.base,
        steps(&log)
    );
    t.wait_within("the done badge", 5 * SEC, |s| {
        s.lines().any(|l| l.trim_start().starts_with("done "))
    });
    assert_eq!(
        count(&states(&log), "done"),
        1,
        "{}: {:?}",
        case.base,
        steps(&log)
    );
    assert!(
        states(&log).first().is_some_and(|s| s == "working"),
        "{}: {:?}",
        case.base,
        steps(&log)
    );

    // The hooks ran inside the container, from the mounted dir, by their
    // container paths, and each exited 0 (opencode's run in its plugin).
    let tr = trace(&trace_file);
    assert!(
        !tr.is_empty(),
        "{}: the simulator wrote its trace",
        case.base
    );
    if case.base != "opencode" {
        let spawned: Vec<&str> = tr
            .iter()
            .filter(|v| v["ev"] == "hook_spawn")
            .filter_map(|v| v["command"].as_str())
            .collect();
        let prefix = format!("{}/termic-hooks/", case.inside);
        assert!(
            !spawned.is_empty() && spawned.iter().all(|c| c.contains(&prefix)),
            "{}: hook commands {spawned:?}",
            case.base
        );
        assert!(
            tr.iter()
                .filter(|v| v["ev"] == "hook_exit")
                .all(|v| v["rc"] == 0),
            "{}: every hook exits 0",
            case.base
        );
    }

    assert!(t.quit(), "{}: termic quits on prefix q", case.base);
    wait_containers(pid, "after quit", 20 * SEC, <[String]>::is_empty);
    assert!(containers_of(pid).is_empty());
}

#[test]
#[ignore = "needs a Docker engine: run by .ci/run's Docker step"]
fn every_hook_agent_in_docker_is_wired_and_its_badge_goes_working_needs_you_done() {
    let Some(image) = image() else { return };
    // The four agents at once: each waits past the settle, so in parallel
    // the test costs one agent's time.
    let failures: Vec<String> = std::thread::scope(|s| {
        let runs: Vec<_> = CASES
            .iter()
            .map(|case| (case.base, s.spawn(|| run_case(&image, case))))
            .collect();
        runs.into_iter()
            .filter_map(|(base, h)| {
                h.join().err().map(|e| {
                    let msg = e
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default();
                    format!("{base}: {msg}")
                })
            })
            .collect()
    });
    assert!(failures.is_empty(), "{failures:#?}");
}
