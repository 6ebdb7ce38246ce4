//! The hostile status corpus (tests/fixtures/hostile/status): fake OSC 7501
//! states, OSC 9/777/99 notifications, Action Required titles, bells and
//! forged termic hook messages (wrong, empty, over-long ids, malformed
//! fields), printed by real tasks in real PTYs.
//!
//! - In a command, shell or generic task, printed text moves nothing (only
//!   `exited`), runs nothing (no marker file), and what was ignored is in
//!   the Inspector's timeline with why it was not obeyed.
//! - In an agent task whose real hooks are wired, forged hook messages are
//!   recorded, not obeyed: only the agent's own hooks move it.

use std::path::{Path, PathBuf};

use termic_hooks::agents::AgentSchema;
use termic_runtime::{TaskId, TaskSpec, TermSize};

use super::support::{no_native, sim_binary, Fixture, Session, SEC};

fn status_file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/hostile/status")
        .join(name)
}

/// Every file of the status corpus, with what its Inspector entries must
/// say when a task that does not speak it prints it.
const CORPUS: &[(&str, &[&str])] = &[
    (
        "native-7501.txt",
        &["not obeyed: this task's program does not speak native status"],
    ),
    ("notifications.txt", &["notification (", "not obeyed"]),
    ("titles-bells.txt", &[]),
    (
        "hook-messages.txt",
        &["not obeyed", "rejected hook message"],
    ),
];

fn spawn(s: &Session, fx: &Fixture, name: &str, profile: &str, script: &str) -> TaskId {
    s.rt.spawn(TaskSpec {
        name: name.into(),
        agent: profile.into(),
        argv: vec!["sh".into(), "-c".into(), script.into()],
        cwd: fx.project(),
        env: vec![("HOME".into(), fx.home().into())],
        profile: profile.into(),
        size: TermSize {
            rows: 30,
            cols: 100,
        },
        container: None,
    })
    .unwrap()
}

#[test]
fn the_status_corpus_printed_by_a_command_or_shell_moves_nothing_and_runs_nothing() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hostile/status");
    let on_disk = std::fs::read_dir(&dir).unwrap().count();
    assert_eq!(
        on_disk,
        CORPUS.len(),
        "every file in {} is listed",
        dir.display()
    );
    let fx = Fixture::new();
    let s = Session::start(&fx, Default::default());
    let marker = fx.project().join("marker");
    for (file, says) in CORPUS {
        for profile in ["command", "shell", "generic"] {
            let name = format!("{profile}-{file}");
            let script = format!("cat '{}'", status_file(file).display());
            let id = spawn(&s, &fx, &name, profile, &script);
            s.wait_state(&name, "exited", 20 * SEC);
            let states = s.states(&name);
            // A command (and a shell with no integration marks) reads
            // working while output flows, then idle; no task ever reads
            // needs you, done or interrupted from text.
            let allowed: &[&str] = match profile {
                "generic" => &["exited"],
                _ => &["working", "idle", "exited"],
            };
            assert!(
                states.iter().all(|st| allowed.contains(&st.as_str())),
                "{name}: {:?}",
                s.steps(&name)
            );
            assert_eq!(states.last().map(String::as_str), Some("exited"));
            assert!(!marker.exists(), "{name}: printed text ran a command");
            let log: Vec<String> = s.rt.drain_log(id).into_iter().map(|e| e.text).collect();
            for needle in *says {
                assert!(
                    log.iter().any(|l| l.contains(needle)),
                    "{name}: no Inspector entry says {needle:?}:\n{log:#?}"
                );
            }
        }
    }
}

#[test]
fn forged_hook_messages_in_an_agent_task_are_recorded_not_obeyed() {
    let fx = Fixture::new();
    fx.install(&[AgentSchema::CLAUDE]);
    let s = Session::start(&fx, no_native());
    s.rt.set_hooks_wired("claude", true);
    // The forged messages come first, from the agent task's own PTY, then
    // the simulated Claude runs one turn with its real (installed) hooks.
    let script = format!(
        "cat '{}'; exec '{}' claude simple --auto --trace '{}'",
        status_file("hook-messages.txt").display(),
        sim_binary().display(),
        fx.trace_path("t").display()
    );
    let id = spawn(&s, &fx, "t", "claude", &script);
    s.wait_state("t", "done", 20 * SEC);
    s.rt.kill(id).unwrap();
    s.wait_state("t", "exited", 20 * SEC);
    assert_eq!(
        s.steps("t"),
        ["working:hook_working", "done:hook_done", "exited:exit"],
        "only the agent's own hooks move it"
    );
    assert!(!fx.project().join("marker").exists());
    let log: Vec<String> = s.rt.drain_log(id).into_iter().map(|e| e.text).collect();
    let forged = |event: &str| {
        log.iter().any(|l| {
            l.starts_with(&format!("hook {event}"))
                && l.contains("0123456789abcdef0123456789abcdef")
                && l.ends_with("recorded, not obeyed")
        })
    };
    for event in ["working", "attention", "done", "released"] {
        assert!(forged(event), "forged {event} not recorded:\n{log:#?}");
    }
    // Empty, over-long and malformed ids are rejected by the wire parser.
    let rejected = log
        .iter()
        .filter(|l| l.starts_with("rejected hook message"))
        .count();
    assert!(rejected >= 5, "{rejected} rejected:\n{log:#?}");
}
