//! The task runtime against real PTYs: exit, output, input, resize, kill,
//! terminal replies end to end, scrollback.

use crate::runtime_support;

use std::collections::HashSet;
use std::path::PathBuf;
use std::time::Duration;

use runtime_support::*;
use termic_runtime::{RuntimeEvent, TaskStatus, TermSize};

const T: Duration = Duration::from_secs(10);

#[test]
fn exit_status_is_reported_after_the_last_output() {
    let (rt, events) = runtime();
    let id = rt.spawn(sh("exit", "printf 'last words'; exit 3")).unwrap();
    assert_eq!(wait_exit(&rt, &events, id, T), Some(3));
    let text = rt.with_screen(id, |s| s.contents()).unwrap();
    assert!(text.contains("last words"), "screen: {text:?}");
    assert_eq!(rt.info(id).unwrap().status, TaskStatus::Exited(Some(3)));
}

#[test]
fn dirty_is_sent_once_until_the_screen_is_read() {
    let (rt, events) = runtime();
    let id = rt
        .spawn(sh(
            "dirty",
            "i=0; while [ $i -lt 200 ]; do echo line $i; i=$((i+1)); done",
        ))
        .unwrap();
    wait_exit(&rt, &events, id, T);
    // Nobody read the screen, so at most one Dirty was queued for 200 lines.
    let dirties = events
        .try_iter()
        .filter(|e| *e == RuntimeEvent::Dirty(id))
        .count();
    assert!(dirties <= 1, "{dirties} Dirty events without a redraw");
    let text = rt.with_screen(id, |s| s.contents()).unwrap();
    assert!(text.contains("line 199"));
}

#[test]
fn input_reaches_the_child_and_its_echo_the_screen() {
    let (rt, events) = runtime();
    let id = rt.spawn(sh("cat", "head -n1")).unwrap();
    rt.write_input(id, b"hello termic\r").unwrap();
    assert_eq!(wait_exit(&rt, &events, id, T), Some(0));
    let text = rt.with_screen(id, |s| s.contents()).unwrap();
    // Once as the tty's echo, once as head's output.
    assert_eq!(text.matches("hello termic").count(), 2, "screen: {text:?}");
}

#[test]
fn resize_reaches_the_pty_and_the_screen_model() {
    let (rt, events) = runtime();
    let id = rt.spawn(sh("size", "read x; stty size")).unwrap();
    rt.resize(
        id,
        TermSize {
            rows: 30,
            cols: 100,
        },
    )
    .unwrap();
    rt.write_input(id, b"\r").unwrap();
    wait_exit(&rt, &events, id, T);
    let (text, size) = rt.with_screen(id, |s| (s.contents(), s.size())).unwrap();
    assert!(text.contains("30 100"), "screen: {text:?}");
    assert_eq!((size.0.get(), size.1.get()), (30, 100));
}

#[test]
fn cursor_report_reaches_the_child_in_order() {
    let (rt, events) = runtime();
    // Raw mode, print two chars, ask for the cursor, read the 6-byte reply.
    let script = "stty -icanon -echo min 6; printf 'ab\\033[6n'; \
                  r=$(dd bs=6 count=1 2>/dev/null); printf '\\ngot:%s' \"$r\" | od -An -c | tr -s ' '";
    let id = rt.spawn(sh("dsr", script)).unwrap();
    assert_eq!(
        wait_exit(&rt, &events, id, Duration::from_secs(10)),
        Some(0)
    );
    let text = rt.with_screen(id, |s| s.contents()).unwrap();
    // The reply is ESC [ 1 ; 3 R: row 1, column 3 (after "ab").
    assert!(text.contains("033 [ 1 ; 3 R"), "screen: {text:?}");
}

/// The pid a script printed as `bg=<pid>`.
fn background_pid(rt: &termic_runtime::Runtime, id: termic_runtime::TaskId) -> i32 {
    let text = wait_screen(rt, id, T, |t| t.contains("bg="));
    text.split("bg=")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|s| s.parse().ok())
        .expect("background pid on screen")
}

#[test]
fn kill_ends_the_whole_session_including_other_process_groups() {
    let (rt, events) = runtime();
    // With job control (set -m) the background job gets its OWN process
    // group, like Codex's app-server escaping a plain killpg.
    let id = rt
        .spawn(sh("kill", "set -m; sleep 1000 & echo bg=$!; sleep 1000"))
        .unwrap();
    let bg = background_pid(&rt, id);
    assert!(alive(bg));
    rt.kill(id).unwrap();
    assert_eq!(wait_exit(&rt, &events, id, T), None, "ended by a signal");
    assert!(wait_dead(bg, T), "background job {bg} survived the kill");
}

#[test]
fn leftovers_that_ignore_hangup_are_ended_when_the_task_exits() {
    let (rt, events) = runtime();
    // The Codex shape: the main process quits, a helper lives on holding the PTY.
    let id = rt
        .spawn(sh(
            "left",
            "(trap '' HUP; exec sleep 1000) & echo bg=$!; sleep 0.2; exit 0",
        ))
        .unwrap();
    let bg = background_pid(&rt, id);
    assert_eq!(wait_exit(&rt, &events, id, T), Some(0));
    assert!(
        wait_dead(bg, T),
        "leftover {bg} still running after the task exited"
    );
}

#[test]
fn scrollback_keeps_the_configured_number_of_lines() {
    let (rt, events) = runtime();
    let id = rt.spawn(sh("scroll", "seq 1 12000")).unwrap();
    wait_exit(&rt, &events, id, T);
    assert_eq!(rt.history_len(id), 10_000);
    // 12000 lines + the final empty row on a 24-row screen: the view 10,000
    // lines up starts at the oldest kept line.
    let top = rt
        .with_scrolled_screen(id, 10_000, |s| {
            s.contents().lines().next().map(str::to_owned)
        })
        .unwrap();
    assert_eq!(top.as_deref(), Some("1978"));
    let live = rt.with_scrolled_screen(id, 0, |s| s.contents()).unwrap();
    assert!(live.contains("12000"));
}

/// A flood much larger than the reader's in-flight bound (2 MiB) reaches the
/// screen model whole and in order: every kept history line follows the one
/// before it, the live screen ends on the last line, and the exit is
/// reported only after the screen has it all.
#[test]
fn a_flood_reaches_the_screen_whole_and_in_order() {
    let (rt, events) = runtime();
    let last: u64 = 1_500_000; // about 11 MB of output
    let id = rt.spawn(sh("flood", &format!("seq 1 {last}"))).unwrap();
    wait_exit(&rt, &events, id, Duration::from_secs(120));
    let kept = rt.history_len(id);
    assert_eq!(kept, 10_000);
    // The live screen: lines up to `last`, then the empty row.
    let live = rt.with_scrolled_screen(id, 0, |s| s.contents()).unwrap();
    assert_eq!(live.lines().last(), Some(last.to_string().as_str()));
    let first_live = last - 22;
    // Walk the history one screen at a time from the oldest line.
    let mut expected = first_live - kept as u64;
    let mut offset = kept;
    while offset > 0 {
        let rows = rt
            .with_scrolled_screen(id, offset, |s| {
                s.contents().lines().map(str::to_owned).collect::<Vec<_>>()
            })
            .unwrap();
        for row in rows.iter().take(offset.min(24)) {
            assert_eq!(row, &expected.to_string(), "history {offset} lines up");
            expected += 1;
        }
        offset = offset.saturating_sub(24);
    }
    assert_eq!(expected, first_live);
}

#[test]
fn concurrent_spawns_each_get_their_own_pty_path() {
    let (rt, events) = runtime();
    let script = "printf 'tty=%s env=%s end\\n' \"$(tty)\" \"$TERMIC_PTY\"; read x";
    let handles: Vec<_> = (0..16)
        .map(|i| {
            let rt = rt.clone();
            std::thread::spawn(move || rt.spawn(sh(&format!("t{i}"), script)).unwrap())
        })
        .collect();
    let ids: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    let mut seen = HashSet::new();
    for &id in &ids {
        let text = wait_screen(&rt, id, T, |t| t.contains(" end"));
        let line = text.lines().find(|l| l.starts_with("tty=")).unwrap();
        let tty = line
            .split_whitespace()
            .next()
            .unwrap()
            .trim_start_matches("tty=");
        let env = line
            .split_whitespace()
            .nth(1)
            .unwrap()
            .trim_start_matches("env=");
        assert_eq!(tty, env, "child's tty differs from its TERMIC_PTY");
        assert_eq!(PathBuf::from(env), rt.info(id).unwrap().meta.pty_path);
        assert!(seen.insert(env.to_owned()), "{env} given to two live tasks");
    }
    for &id in &ids {
        rt.write_input(id, b"\r").unwrap();
    }
    for &id in &ids {
        wait_exit(&rt, &events, id, T);
    }
}

#[test]
fn spawn_errors_name_the_problem() {
    let (rt, _events) = runtime();
    let mut spec = sh("x", "true");
    spec.cwd = PathBuf::from("/no/such/dir");
    let err = rt.spawn(spec).unwrap_err().to_string();
    assert!(err.contains("/no/such/dir"), "{err}");
    let mut spec = sh("x", "true");
    spec.argv = vec!["termic-no-such-program".into()];
    let err = rt.spawn(spec).unwrap_err().to_string();
    assert!(err.contains("termic-no-such-program"), "{err}");
}

#[test]
fn input_to_a_program_that_is_not_reading_never_blocks_the_caller() {
    let (rt, events) = runtime();
    // Prints for a while and never reads its input.
    let id = rt
        .spawn(sh(
            "busy",
            "stty raw -echo; for i in 1 2 3 4 5 6 7 8; do echo tick$i; sleep 0.1; done",
        ))
        .unwrap();
    let start = std::time::Instant::now();
    // Far more than a PTY's input buffer holds.
    for _ in 0..64 {
        rt.write_input(id, &[b'x'; 16 * 1024]).unwrap();
    }
    assert!(
        start.elapsed() < Duration::from_millis(500),
        "writes blocked for {:?}",
        start.elapsed()
    );
    // The output side kept flowing meanwhile.
    wait_screen(&rt, id, T, |t| t.contains("tick8"));
    wait_exit(&rt, &events, id, T);
    let err = rt.write_input(id, b"late").unwrap_err().to_string();
    assert!(err.contains("has exited"), "{err}");
    assert!(!err.contains("TaskId"), "no internal id: {err}");
}

/// Codex's shape, measured on 0.171.0: the TUI starts `codex app-server`
/// daemons that call setsid (own session and group), close their terminal
/// and outlive the TUI, reparented to init. They keep the task's env.
const DAEMON: &str = "setsid sleep 1000 </dev/null >/dev/null 2>&1 & echo bg=$!";

#[test]
fn a_daemon_in_its_own_session_is_ended_when_the_task_exits() {
    let (rt, events) = runtime();
    let id = rt
        .spawn(sh("daemon", &format!("{DAEMON}; sleep 0.3; exit 0")))
        .unwrap();
    let bg = background_pid(&rt, id);
    assert!(alive(bg));
    assert_eq!(wait_exit(&rt, &events, id, T), Some(0));
    assert!(wait_dead(bg, T), "daemon {bg} outlived its task");
}

#[test]
fn kill_ends_a_daemon_in_its_own_session() {
    let (rt, events) = runtime();
    let id = rt
        .spawn(sh("daemon-kill", &format!("{DAEMON}; sleep 1000")))
        .unwrap();
    let bg = background_pid(&rt, id);
    assert!(alive(bg));
    rt.kill(id).unwrap();
    wait_exit(&rt, &events, id, T);
    assert!(wait_dead(bg, T), "daemon {bg} survived the kill");
}

/// Ending a task whose shell has a child (`sh -c 'sleep 600; true'`: dash
/// forks the sleep) takes as long as the processes take to die, not the
/// whole grace period: the orphaned child stays a zombie for as long as
/// PID 1 leaves it, and in a container PID 1 often never reaps (here it is
/// no init), so a zombie must not count as alive. Quitting termic waited
/// 1.2 to 1.9 s for it before.
#[test]
fn ending_a_task_does_not_wait_for_its_zombies() {
    let (rt, _events) = runtime();
    let id = rt.spawn(sh("zombie", "sleep 600; true")).unwrap();
    let processes = rt.info(id).unwrap().meta.processes();
    assert!(
        eventually(T, || processes.members().len() >= 2),
        "the shell and its sleep started"
    );
    let ended = std::time::Instant::now();
    rt.kill(id).unwrap();
    termic_runtime::session::wait_for_reapers();
    let took = ended.elapsed();
    assert!(!termic_runtime::session::task_alive(&processes));
    assert!(
        took < termic_runtime::session::KILL_GRACE / 2,
        "ending took {took:?}: the grace was waited out"
    );
}

/// Issue 28: a task's number is the smallest no listed task holds (an
/// exited task not closed still holds its own), and a restart in place
/// keeps it, with the old task gone in the same step.
#[test]
fn numbers_are_the_smallest_free_and_a_restart_keeps_its_number() {
    let (rt, events) = runtime();
    let number = |id| rt.info(id).unwrap().meta.number;
    let a = rt.spawn(sh("a", "exit 0")).unwrap();
    let b = rt.spawn(sh("b", "sleep 30")).unwrap();
    let c = rt.spawn(sh("c", "sleep 30")).unwrap();
    assert_eq!((number(a), number(b), number(c)), (1, 2, 3));
    // Exited but still listed: 1 stays taken.
    assert_eq!(wait_exit(&rt, &events, a, T), Some(0));
    let d = rt.spawn(sh("d", "sleep 30")).unwrap();
    assert_eq!(number(d), 4);
    // Closing 2 frees it for the next task, not 5.
    rt.remove(b).unwrap();
    let e = rt.spawn(sh("e", "sleep 30")).unwrap();
    assert_eq!(number(e), 2);
    // Restarting 1 in place: the new task is 1 and the old one is gone.
    let a2 = rt.spawn_replacing(a, sh("a", "sleep 30")).unwrap();
    assert_ne!(a2, a);
    assert_eq!(number(a2), 1);
    assert!(rt.info(a).is_none(), "the old task is no longer listed");
    let mut numbers: Vec<u32> = rt.tasks().iter().map(|t| t.meta.number).collect();
    numbers.sort_unstable();
    assert_eq!(numbers, [1, 2, 3, 4]);
    // Every client hears the old task leave (it was sent before the call
    // returned: a deadline only guards against a hang).
    let removed = std::iter::from_fn(|| events.recv_timeout(T).ok())
        .find(|ev| matches!(ev, RuntimeEvent::Removed(_)) && *ev != RuntimeEvent::Removed(b));
    assert_eq!(removed, Some(RuntimeEvent::Removed(a)));
    for t in rt.tasks() {
        rt.remove(t.meta.id).unwrap();
    }
}
