//! Issue 27: a server killed with SIGKILL (or by the OOM killer) cannot end
//! its tasks. Their processes must not live on untracked: the next start of
//! a server of the same data dir ends them and says so, and leaves alone
//! what is not provably a dead server's (another live server's tasks, a
//! live owner's, a process that only inherited a task id).

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::process_table::{alive, processes_of};
use crate::served::{text, Served};
use crate::wait::eventually;

/// Processes a test started or found; SIGKILLed when it ends, however it
/// ends, so a failing run leaves nothing behind.
#[derive(Default)]
struct KillOnDrop {
    pids: Vec<i32>,
    children: Vec<Child>,
}

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        for &pid in &self.pids {
            // SAFETY: plain syscall on a pid this test recorded.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
        for child in &mut self.children {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The pid a task script wrote to `file` in the work dir.
fn pid_in(dir: &Path, file: &str) -> i32 {
    let path = dir.join(file);
    let mut content = String::new();
    assert!(
        eventually(Duration::from_secs(20), || {
            content = std::fs::read_to_string(&path).unwrap_or_default();
            content.ends_with('\n')
        }),
        "{} never appeared",
        path.display()
    );
    content.trim().parse().unwrap()
}

fn kill_9(pid: i32) {
    // SAFETY: plain syscall on the test's own server.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGKILL) }, 0);
    assert!(
        eventually(Duration::from_secs(10), || !alive(pid)),
        "the server outlived SIGKILL"
    );
}

#[test]
fn the_tasks_of_a_killed_server_are_ended_by_the_next_start_and_the_user_is_told() {
    let s = Served::new("sleep 600");
    let mut guard = KillOnDrop::default();
    // A plain program; a child that leaves the session (setsid); a shell
    // and its child that ignore SIGHUP and SIGTERM; background jobs.
    let tasks: [(&str, &str); 4] = [
        ("plain", "sleep 600"),
        (
            "setsid",
            "/usr/bin/setsid sleep 600 & echo $! > setsid.pid; sleep 600",
        ),
        (
            "stubborn",
            "trap '' HUP TERM; echo $$ > stubborn.pid; sleep 600",
        ),
        ("jobs", "sleep 600 & sleep 600 & wait"),
    ];
    for (name, script) in tasks {
        s.expect(
            &["run", "--detach", "--name", name, "--", "sh", "-c", script],
            0,
        );
    }
    let setsid_child = pid_in(&s.f.work, "setsid.pid");
    let stubborn = pid_in(&s.f.work, "stubborn.pid");
    let server = s.server_pid();
    let before: Vec<i32> = processes_of(&s.f.data_dir)
        .into_iter()
        .filter(|&p| p != server)
        .collect();
    guard.pids.extend(&before);
    assert!(before.len() >= 7, "every task runs: {before:?}");

    kill_9(server);
    // What the kill leaves: the PTYs' hang-up ends only what heeds SIGHUP
    // in each session; these two cannot be reached by it.
    let survivors: Vec<i32> = processes_of(&s.f.data_dir);
    assert!(
        alive(setsid_child) && alive(stubborn),
        "precondition: the kill leaves processes behind ({survivors:?})"
    );

    // The next start (a `run` starts the server on demand).
    let out = s.termic(&["run", "--detach", "--name", "after", "--", "sleep", "600"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let after_server = s.server_pid();
    assert_ne!(after_server, server);
    let left = |p: &i32| *p != after_server && alive(*p) && survivors.contains(p);
    let mut still: Vec<i32> = Vec::new();
    let ended = eventually(Duration::from_secs(15), || {
        still = processes_of(&s.f.data_dir)
            .into_iter()
            .filter(left)
            .collect();
        still.is_empty()
    });
    assert!(
        ended,
        "processes of the killed server's tasks survived the next start: {still:?} (of {survivors:?})"
    );
    // Told: by the command that started the server, and in its log.
    let told = text(&out.stderr);
    assert!(
        told.contains("left by a termic server that stopped without ending its tasks"),
        "stderr: {told}"
    );
    // They were counted (at least the two that ignore the hang-up and the
    // one that left the session).
    let count: usize = told
        .split("Ended ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(count >= 3, "{told}");
    let log = std::fs::read_to_string(s.f.data_dir.join("server.log")).unwrap();
    assert!(
        log.contains("left by a termic server that stopped"),
        "{log}"
    );
    // The new server's own task was not taken for an orphan.
    let rows = s.ls();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["name"], "after");
    assert_ne!(rows[0]["state"], "exited", "{rows:?}");
    // Told once: the next client hears nothing more.
    let again = s.termic(&["ls"]);
    assert!(
        !text(&again.stderr).contains("Ended"),
        "{}",
        text(&again.stderr)
    );
}

/// A `sleep 600` started by the test with `env` (a task's variables),
/// killed when the test ends.
fn sleeper(guard: &mut KillOnDrop, env: &[(&str, String)]) -> i32 {
    let mut cmd = Command::new("sleep");
    cmd.arg("600")
        .env_remove("TERMIC_TASK_ID")
        .env_remove("TERMIC_OWNER")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let child = cmd.spawn().unwrap();
    let pid = child.id() as i32;
    guard.children.push(child);
    pid
}

#[test]
fn only_the_processes_of_a_gone_owner_of_the_same_data_dir_are_ended() {
    use termic_runtime::orphans::Owner;
    let mut guard = KillOnDrop::default();
    // Another live server, of another data dir, with a task.
    let other = Served::new("sleep 600");
    other.expect(
        &["run", "--detach", "--name", "theirs", "--", "sleep", "600"],
        0,
    );
    let other_server = other.server_pid();
    let theirs: Vec<i32> = processes_of(&other.f.data_dir)
        .into_iter()
        .filter(|&p| p != other_server)
        .collect();
    assert!(!theirs.is_empty());

    let s = Served::new("sleep 600");
    // This test process stands for a live owner of the same data dir, as a
    // second termic (the in-process demo) would be.
    let live = Owner::of_this_process(&s.f.data_dir).expect("/proc");
    let dead = Owner {
        start: live.start + 1, // this pid with another start time: gone
        ..live
    };
    let dead_elsewhere = Owner {
        scope: live.scope ^ 1,
        ..dead
    };
    let task = |owner: &Owner| {
        vec![
            (
                "TERMIC_TASK_ID",
                "0123456789abcdef0123456789abcdef".to_owned(),
            ),
            ("TERMIC_OWNER", owner.env_value()),
        ]
    };
    let of_dead = sleeper(&mut guard, &task(&dead));
    let of_live = sleeper(&mut guard, &task(&live));
    let of_dead_elsewhere = sleeper(&mut guard, &task(&dead_elsewhere));
    // Inherited an owner but is no task's (no TERMIC_TASK_ID).
    let inherited = sleeper(&mut guard, &[("TERMIC_OWNER", dead.env_value())]);

    // The start sends every hang-up before it answers, so once `run`
    // returned, anything wrongly taken (these all die of SIGHUP) is gone.
    let out = s.termic(&["run", "--detach", "--name", "mine", "--", "sleep", "600"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        eventually(Duration::from_secs(10), || !alive(of_dead)),
        "the process of a gone owner was not ended"
    );
    assert!(
        text(&out.stderr).contains("Ended 1 process left by a termic server"),
        "{}",
        text(&out.stderr)
    );
    for (what, pid) in [
        ("a live owner's task", of_live),
        ("another data dir's task", of_dead_elsewhere),
        ("a process that only inherited an owner", inherited),
    ] {
        assert!(alive(pid), "{what} was ended");
    }
    for pid in theirs {
        assert!(
            alive(pid),
            "another live server's task process {pid} was ended"
        );
    }
    assert_eq!(other.ls().len(), 1, "the other server lives on");
}
