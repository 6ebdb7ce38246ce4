//! End-to-end through the real binary: detached tasks in the termic server,
//! driven by the scripting verbs (`run --detach`, `ls --json`, `wait`,
//! `send`, `kill`, `server stop`), the process table checked afterwards,
//! and the socket's refusals (another protocol version, another uid,
//! hostile frames).

use crate::harness;
use crate::process_table;
use crate::served;

use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::{Duration, Instant};

use harness::hook;
use process_table::{alive, processes_of};
use serde_json::Value;
use served::{text, Served};

/// A simulated agent (claude-based, hooks printed as termic's OSC 777):
/// working, then blocked on a permission until a line is typed, then done.
/// It records its pid and a background child's that ignores SIGHUP and
/// SIGTERM, so `server stop` has a stubborn tree to end.
fn turn_script() -> String {
    [
        "(trap '' HUP TERM; exec sleep 600) & echo $$ $! > pids".to_string(),
        hook("working", ""),
        "sleep 1".into(),
        hook("attention", ";kind=permission"),
        "read answer".into(),
        "echo \"got:$answer\" > answer.txt".into(),
        hook("done", ""),
        "sleep 600".into(),
    ]
    .join("; ")
}

fn wait_file(path: &Path) -> String {
    let start = Instant::now();
    loop {
        if let Ok(s) = std::fs::read_to_string(path) {
            if s.ends_with('\n') {
                return s;
            }
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "{} never appeared",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_detached_task_is_listed_waited_for_typed_into_and_stopped_with_nothing_left() {
    let s = Served::new(&turn_script());
    assert!(s.ls().is_empty(), "no server, no task, and ls started none");
    assert!(!s.socket().exists(), "ls does not start a server");

    // Relative: the server runs in `/`, the path is the client's.
    let out = s.expect(
        &[
            "--event-log",
            "events.jsonl",
            "run",
            "fake",
            "--name",
            "t1",
            "--detach",
        ],
        0,
    );
    assert!(out.contains("Started task t1"), "{out}");
    // The socket: 0600 in a 0700 directory.
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&s.socket()), 0o600);
    assert_eq!(mode(s.socket().parent().unwrap()), 0o700);

    // The simulated agent blocks on a permission prompt.
    let reached = s.expect(&["wait", "t1", "--for", "needs-you", "--timeout", "30"], 0);
    assert_eq!(reached.trim(), "needs_you");
    let rows = s.ls();
    assert_eq!(rows.len(), 1, "{rows:?}");
    let row = &rows[0];
    assert_eq!(row["name"], "t1");
    assert_eq!(row["agent"], "fake");
    assert_eq!(row["state"], "needs_you");
    assert_eq!(row["cwd"], s.f.work.display().to_string());
    assert!(row["worktree"].is_null());
    assert!(row["since"].as_u64().unwrap() > 1_700_000_000_000, "{row}");
    let human = s.expect(&["ls"], 0);
    assert!(
        human.contains("t1") && human.contains("needs you"),
        "{human}"
    );

    // A wait that cannot be met in time says so by its exit code.
    let timed_out = s.expect(&["wait", "t1", "--for", "exited", "--timeout", "0.5"], 124);
    assert_eq!(timed_out.trim(), "timeout");

    // send types into the task; Enter answers the prompt.
    s.expect(&["send", "t1", "yes", "--enter"], 0);
    let done = s.expect(&["wait", "1", "--for", "done", "--timeout", "30"], 0);
    assert_eq!(done.trim(), "done");
    assert_eq!(wait_file(&s.f.work.join("answer.txt")), "got:yes\n");
    // The server keeps the event log the first run asked for.
    let log = std::fs::read_to_string(s.f.work.join("events.jsonl")).unwrap();
    let moves: Vec<String> = log
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["to"].to_string())
        .collect();
    assert!(
        moves.contains(&"\"needs_you\"".to_string()) && moves.contains(&"\"done\"".to_string()),
        "{moves:?}"
    );

    let pids: Vec<i32> = wait_file(&s.f.work.join("pids"))
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect();
    assert!(
        pids.iter().all(|&p| alive(p)),
        "the task tree runs: {pids:?}"
    );
    let before = processes_of(&s.f.data_dir);
    assert!(before.len() >= 3, "server and task tree: {before:?}");

    let out = s.expect(&["server", "stop"], 0);
    assert!(out.contains("stopped"), "{out}");
    // At once: stop returns when the server and every task process is gone,
    // including the child that ignores SIGHUP and SIGTERM.
    let left = processes_of(&s.f.data_dir);
    assert!(left.is_empty(), "left running after server stop: {left:?}");
    assert!(pids.iter().all(|&p| !alive(p)), "{pids:?}");
    assert!(!s.socket().exists(), "the socket is removed");
    assert!(s.ls().is_empty());
}

#[test]
fn an_ambiguous_name_is_an_error_listing_the_matches_and_kill_ends_the_tree() {
    let s = Served::new(&turn_script());
    for _ in 0..2 {
        s.expect(
            &[
                "run",
                "--detach",
                "--name",
                "dup",
                "--",
                "sh",
                "-c",
                "trap '' HUP TERM; echo $$ >> pids; while :; do sleep 1; done",
            ],
            0,
        );
    }
    let out = s.termic(&["kill", "dup"]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("2 tasks are named \"dup\""), "{err}");
    assert!(
        err.contains("numbers 1 (") && err.contains(", 2 ("),
        "{err}"
    );
    let err = text(&s.termic(&["send", "nosuch", "x"]).stderr);
    assert!(err.contains("termic ls"), "{err}");

    let start = Instant::now();
    let pids = loop {
        let p: Vec<i32> = std::fs::read_to_string(s.f.work.join("pids"))
            .unwrap_or_default()
            .split_whitespace()
            .map(|p| p.parse().unwrap())
            .collect();
        if p.len() == 2 {
            break p;
        }
        assert!(start.elapsed() < Duration::from_secs(30), "{p:?}");
        std::thread::sleep(Duration::from_millis(50));
    };
    // kill by id returns once the task (which ignores HUP and TERM) is gone.
    s.expect(&["kill", "1"], 0);
    let rows = s.ls();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["id"], 2);
    let killed: Vec<i32> = pids.iter().copied().filter(|&p| !alive(p)).collect();
    assert_eq!(killed.len(), 1, "exactly the killed task ended: {pids:?}");
    s.expect(&["kill", "dup"], 0);
    assert!(s.ls().is_empty());
    assert!(pids.iter().all(|&p| !alive(p)), "{pids:?}");

    // A wait for a state the task never reaches ends when it exits (code 3).
    s.expect(
        &["run", "--detach", "--name", "brief", "--", "sleep", "1"],
        0,
    );
    let out = s.expect(
        &["wait", "brief", "--for", "needs-you", "--timeout", "30"],
        3,
    );
    assert_eq!(out.trim(), "exited");
    let rows = s.ls();
    assert_eq!(rows[0]["state"], "exited");
    assert_eq!(rows[0]["exit_code"], 0);

    // A task someone else kills while we wait has exited too (code 3, not
    // the error code 1 it gave on 0f06027).
    s.expect(
        &["run", "--detach", "--name", "killed", "--", "sleep", "600"],
        0,
    );
    let waiter = std::process::Command::new(env!("CARGO_BIN_EXE_termic"))
        .args(["wait", "killed", "--for", "done", "--timeout", "60"])
        .current_dir(&s.f.work)
        .env_clear()
        .env("HOME", &s.f.home)
        .env("TERMIC_CONFIG_DIR", &s.f.config_dir)
        .env("TERMIC_DATA_DIR", &s.f.data_dir)
        .env("PATH", s.f.path_var())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    wait_until_blocked_reading(waiter.id());
    s.expect(&["kill", "killed"], 0);
    let out = waiter.wait_with_output().unwrap();
    assert_eq!(
        (out.status.code(), text(&out.stdout).trim()),
        (Some(3), "exited"),
        "stderr: {}",
        text(&out.stderr)
    );
}

/// Until `pid` sleeps in a read on its socket: `termic wait` has sent its
/// request and waits for the answer.
fn wait_until_blocked_reading(pid: u32) {
    let start = Instant::now();
    loop {
        let wchan = std::fs::read_to_string(format!("/proc/{pid}/wchan")).unwrap_or_default();
        if wchan.contains("unix_stream") || wchan.contains("wait_woken") {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "termic wait never blocked on its answer (wchan {wchan:?})"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn a_detached_task_survives_its_terminal_closing() {
    let s = Served::new(&turn_script());
    // A shell in a PTY starts the task, then the terminal goes away: the
    // shell gets SIGHUP and the PTY closes, as when a window closes or SSH
    // drops.
    let mut cmd = portable_pty::CommandBuilder::new("sh");
    cmd.args([
        "-c",
        &format!(
            "{} run --detach --name keep -- sh -c 'echo $$ > keep.pid; exec sleep 600'; echo launched; exec sleep 600",
            env!("CARGO_BIN_EXE_termic")
        ),
    ]);
    cmd.cwd(&s.f.work);
    cmd.env_clear();
    cmd.env("HOME", &s.f.home);
    cmd.env("TERMIC_CONFIG_DIR", &s.f.config_dir);
    cmd.env("TERMIC_DATA_DIR", &s.f.data_dir);
    cmd.env("PATH", s.f.path_var());
    let mut terminal = harness::Termic::spawn(cmd);
    terminal.wait_text("launched");
    let task_pid: i32 = wait_file(&s.f.work.join("keep.pid"))
        .trim()
        .parse()
        .unwrap();
    // SAFETY: SIGHUP to the shell this test started.
    unsafe {
        libc::kill(terminal.pid() as i32, libc::SIGHUP);
    }
    assert!(terminal.exit_within(Duration::from_secs(10)).is_some());
    let rows = s.ls();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["name"], "keep");
    assert_ne!(rows[0]["state"], "exited");
    assert!(alive(task_pid), "the task outlived its terminal");
    // Last: dropping the PTY harness stops the fixture's server.
    drop(terminal);
}

/// A frame: 4-byte big-endian length, JSON body.
fn frame(body: &[u8]) -> Vec<u8> {
    let mut f = (body.len() as u32).to_be_bytes().to_vec();
    f.extend_from_slice(body);
    f
}

/// A connection to the fixture's server that said this build's hello and
/// was welcomed.
fn welcomed(s: &served::Served) -> UnixStream {
    let hello = format!(
        r#"{{"hello":{{"protocol":{},"version":"{}"}}}}"#,
        termic::server::protocol::PROTOCOL,
        env!("CARGO_PKG_VERSION")
    );
    let mut c = UnixStream::connect(s.socket()).unwrap();
    c.write_all(&frame(hello.as_bytes())).unwrap();
    assert!(read_reply(&mut c)["welcome"].is_object());
    c
}

fn read_reply(stream: &mut UnixStream) -> Value {
    let mut len = [0u8; 4];
    stream.read_exact(&mut len).unwrap();
    let mut body = vec![0u8; u32::from_be_bytes(len) as usize];
    stream.read_exact(&mut body).unwrap();
    serde_json::from_slice(&body).unwrap()
}

#[test]
fn another_version_hostile_frames_and_another_uid_are_refused_and_the_server_lives_on() {
    let s = Served::new(&turn_script());
    s.expect(
        &["run", "--detach", "--name", "idle", "--", "sleep", "600"],
        0,
    );

    // A client of another protocol version is told what to run.
    let mut c = UnixStream::connect(s.socket()).unwrap();
    c.write_all(&frame(br#"{"hello":{"protocol":999,"version":"9.9.9"}}"#))
        .unwrap();
    let reply = read_reply(&mut c);
    let message = reply["refused"]["message"].as_str().unwrap();
    assert!(message.contains("termic server stop"), "{message}");
    assert!(message.contains("9.9.9"), "{message}");

    // Hostile bytes: a huge length, garbage JSON, a request before hello,
    // a half frame. Each connection is dropped; the server keeps serving.
    let hostile: Vec<Vec<u8>> = vec![
        u32::MAX.to_be_bytes().to_vec(),
        frame(b"\xff\xfe{{{"),
        frame(br#"{"stop":null}"#),
        frame(br#"{"hello":{"protocol":"one"}}"#),
        vec![0, 0, 0, 50, b'{'],
    ];
    for bytes in hostile {
        let mut c = UnixStream::connect(s.socket()).unwrap();
        let _ = c.write_all(&bytes);
        let _ = c.shutdown(std::net::Shutdown::Write);
        let mut rest = Vec::new();
        let _ = c.read_to_end(&mut rest);
    }
    assert_eq!(s.ls().len(), 1, "the server survived and kept its task");

    // A request this server does not know (a newer client's, protocol 9
    // on) is answered with what to do, then the connection ends.
    let mut c = welcomed(&s);
    c.write_all(&frame(br#"{"rebase_everything":{"task":"1"}}"#))
        .unwrap();
    assert_eq!(
        read_reply(&mut c)["error"]["message"],
        termic::server::protocol::UNKNOWN_REQUEST
    );
    let mut rest = Vec::new();
    c.read_to_end(&mut rest).unwrap();
    assert!(rest.is_empty(), "the connection ended: {rest:?}");

    // Well-formed but hostile requests after a correct hello: a 65535x65535
    // task, a wait with a timeout past the clock's range.
    // An attached client's input without an attach is refused; an attach
    // at 65535x65535 gets a frame at a bounded size, and a hang-up ends it.
    let mut c = welcomed(&s);
    c.write_all(&frame(br#"{"input":{"focus":true}}"#)).unwrap();
    assert!(read_reply(&mut c)["error"].is_object());
    let attach = serde_json::json!({"attach": {"task": null,
        "cwd": s.f.work.display().to_string(), "path_var": s.f.path_var(),
        "cols": 65535, "rows": 65535}});
    c.write_all(&frame(attach.to_string().as_bytes())).unwrap();
    assert_eq!(read_reply(&mut c), serde_json::json!("attached"));
    let mut len = [0u8; 4];
    c.read_exact(&mut len).unwrap();
    assert!(u32::from_be_bytes(len) as usize <= termic::server::protocol::MAX_FRAME);
    drop(c);

    // A view of no such task is refused; one at 65535x65535 gets frames
    // under the limit, and a hang-up ends it.
    let mut c = welcomed(&s);
    c.write_all(&frame(br#"{"view":{"task":"nope","cols":1,"rows":1}}"#))
        .unwrap();
    assert!(read_reply(&mut c)["error"].is_object());
    let mut c = welcomed(&s);
    c.write_all(&frame(
        br#"{"view":{"task":"1","cols":65535,"rows":65535}}"#,
    ))
    .unwrap();
    assert!(read_reply(&mut c)["viewing"].is_object());
    assert_eq!(
        read_reply(&mut c),
        serde_json::json!({"view_size": {"cols": 1000, "rows": 500}})
    );
    c.read_exact(&mut len).unwrap();
    assert!(u32::from_be_bytes(len) as usize <= termic::server::protocol::MAX_FRAME);
    drop(c);

    let mut c = welcomed(&s);
    let run = serde_json::json!({"run": {
        "program": {"command": {"argv": ["sleep", "600"]}},
        "name": "huge", "worktree": false,
        "cwd": s.f.work.display().to_string(), "path_var": s.f.path_var(),
        "cols": 65535, "rows": 65535}});
    c.write_all(&frame(run.to_string().as_bytes())).unwrap();
    assert!(read_reply(&mut c)["started"].is_object());
    let wait =
        serde_json::json!({"wait": {"task": "huge", "states": ["done"], "timeout_ms": u64::MAX}});
    c.write_all(&frame(wait.to_string().as_bytes())).unwrap();
    drop(c);
    assert_eq!(s.ls().len(), 2, "the server survived and started the task");

    // Another uid reaching the socket (here through permissions opened on
    // purpose) is refused by the peer credential check.
    // SAFETY: geteuid cannot fail.
    if unsafe { libc::geteuid() } == 0 {
        let dir = s.socket().parent().unwrap().to_path_buf();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::set_permissions(s.socket(), std::fs::Permissions::from_mode(0o666)).unwrap();
        let reply = connect_as(65534, &s.socket());
        assert!(reply.len() > 4, "the server answered the other uid");
        let reply: Value = serde_json::from_slice(&reply[4..]).unwrap();
        let message = reply["refused"]["message"].as_str().unwrap();
        assert!(message.contains("another user"), "{message}");
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    } else {
        // Not root: another uid cannot be had here; the 0700 directory keeps
        // every other user out before the credential check.
        let err = std::fs::metadata(s.socket().parent().unwrap()).unwrap();
        assert_eq!(err.permissions().mode() & 0o077, 0);
    }
    assert_eq!(s.ls().len(), 2);
}

/// Connects to `socket` from a forked child running as `uid` and returns
/// what the server sent. Only raw syscalls run in the child.
fn connect_as(uid: u32, socket: &Path) -> Vec<u8> {
    use std::os::fd::FromRawFd;
    use std::os::unix::ffi::OsStrExt;
    // SAFETY: plain data; the path fits (a temp dir path).
    let mut addr: libc::sockaddr_un = unsafe { std::mem::zeroed() };
    addr.sun_family = libc::AF_UNIX as libc::sa_family_t;
    let path = socket.as_os_str().as_bytes();
    assert!(path.len() < addr.sun_path.len());
    for (dst, &src) in addr.sun_path.iter_mut().zip(path) {
        *dst = src as libc::c_char;
    }
    // Prepared before the fork: a correct hello, so only the uid check
    // can refuse it.
    let hello = frame(
        format!(
            r#"{{"hello":{{"protocol":1,"version":"{}"}}}}"#,
            env!("CARGO_PKG_VERSION")
        )
        .as_bytes(),
    );
    let mut fds = [0; 2];
    // SAFETY: fork with only async-signal-safe syscalls in the child.
    unsafe {
        assert_eq!(libc::pipe(fds.as_mut_ptr()), 0);
        let pid = libc::fork();
        assert!(pid >= 0);
        if pid == 0 {
            libc::close(fds[0]);
            if libc::setgid(uid) != 0 || libc::setuid(uid) != 0 {
                libc::_exit(2);
            }
            let sock = libc::socket(libc::AF_UNIX, libc::SOCK_STREAM, 0);
            let len = std::mem::size_of::<libc::sockaddr_un>() as libc::socklen_t;
            if libc::connect(sock, (&addr as *const libc::sockaddr_un).cast(), len) != 0 {
                libc::_exit(3);
            }
            libc::write(sock, hello.as_ptr().cast(), hello.len());
            libc::shutdown(sock, libc::SHUT_WR);
            let mut buf = [0u8; 4096];
            loop {
                let n = libc::read(sock, buf.as_mut_ptr().cast(), buf.len());
                if n <= 0 {
                    break;
                }
                libc::write(fds[1], buf.as_ptr().cast(), n as usize);
            }
            libc::_exit(0);
        }
        libc::close(fds[1]);
        let mut out = Vec::new();
        let mut pipe = std::fs::File::from_raw_fd(fds[0]);
        pipe.read_to_end(&mut out).unwrap();
        let mut status = 0;
        libc::waitpid(pid, &mut status, 0);
        assert_eq!(libc::WEXITSTATUS(status), 0, "the child could not connect");
        out
    }
}

/// What fish's completion asks of `termic` for the command line `words`
/// (the last word is the one being completed): one `value\thelp` line
/// per candidate.
fn complete(s: &Served, words: &[&str]) -> Vec<String> {
    let mut args = vec!["--", "termic"];
    args.extend_from_slice(words);
    let out = s.f.cli_with_env(&s.f.work, &args, &[("COMPLETE", "fish")]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        out.stderr.is_empty(),
        "completion printed: {}",
        text(&out.stderr)
    );
    text(&out.stdout).lines().map(str::to_owned).collect()
}

#[test]
fn the_shell_completes_the_servers_task_numbers_and_names_and_the_agents() {
    let s = Served::new("sleep 60");
    // No server: no task offered, and none started.
    assert!(!complete(&s, &["send", ""])
        .iter()
        .any(|l| l.starts_with('1')));
    assert!(!s.socket().exists(), "completion started a server");

    s.expect(&["run", "fake", "--name", "alpha", "--detach"], 0);
    s.expect(
        &[
            "run", "--detach", "--name", "beta", "--", "sh", "-c", "sleep 60",
        ],
        0,
    );
    let all = complete(&s, &["send", ""]);
    let tasks: Vec<&String> = all.iter().filter(|l| !l.starts_with('-')).collect();
    assert_eq!(tasks.len(), 4, "{all:?}");
    assert!(tasks[0].starts_with("1\talpha ("), "{all:?}");
    assert!(tasks[1].starts_with("2\tbeta ("), "{all:?}");
    assert_eq!(tasks[2], "alpha\ttask 1");
    assert_eq!(tasks[3], "beta\ttask 2");
    // By prefix, for every verb that takes a task.
    for verb in ["kill", "wait", "attach", "send", "rename"] {
        assert_eq!(complete(&s, &[verb, "be"]), ["beta\ttask 2"], "{verb}");
    }
    // Agents: the built-ins and the one in config.toml.
    let agents = complete(&s, &["run", "fa"]);
    assert_eq!(agents.len(), 1, "{agents:?}");
    assert!(agents[0].starts_with("fake\t"), "{agents:?}");
    assert!(complete(&s, &["hooks", "install", "cl"])
        .iter()
        .any(|l| l.starts_with("claude\t")));
    // Hosts: config.toml's, by name, with the destination as help.
    let config = s.f.config_dir.join("config.toml");
    let mut text = std::fs::read_to_string(&config).unwrap_or_default();
    text.push_str("\n[hosts.devbox]\ndestination = \"me@devbox.example\"\n");
    std::fs::write(&config, text).unwrap();
    assert_eq!(
        complete(&s, &["ls", "--host", "de"]),
        ["devbox\tme@devbox.example"]
    );
    assert_eq!(
        complete(&s, &["run", "--host", ""]),
        ["devbox\tme@devbox.example"]
    );
    // The script `completions` prints asks the same way.
    let script = s.expect(&["completions", "fish"], 0);
    assert!(script.contains("COMPLETE=fish termic --"), "{script}");
}

/// The lines of event log `path` (none when it does not exist), parsed.
fn log_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The task names an event log holds lines of, each once, sorted.
fn logged_tasks(path: &Path) -> Vec<String> {
    let mut names: Vec<String> = log_lines(path)
        .iter()
        .map(|l| l["task"].as_str().unwrap().to_string())
        .collect();
    names.sort();
    names.dedup();
    names
}

fn eventually(what: &str, pred: impl Fn() -> bool) {
    let start = Instant::now();
    while !pred() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Issue 28: `--event-log` and `--record` are the flags of the client that
/// starts a task, and only that task's. On 479b296 they went to the server
/// that client started: ignored when a server already ran, and after a
/// restart the first task's log got every later task's transitions.
#[test]
fn event_log_and_record_apply_to_the_tasks_their_client_starts_and_no_other() {
    let s = Served::new("");
    let run = |flags: &[&str], name: &str, script: &str| {
        let mut args: Vec<&str> = flags.to_vec();
        args.extend(["run", "--detach", "--name", name, "--", "sh", "-c", script]);
        s.expect(&args, 0);
    };
    let state = |name: &str| {
        s.ls()
            .iter()
            .find(|r| r["name"] == name)
            .map(|r| r["state"].as_str().unwrap().to_string())
    };
    let exited = |name: &str| {
        eventually(&format!("{name} exited"), || {
            state(name).as_deref() == Some("exited")
        })
    };
    let first_log = s.f.work.join("first.jsonl");
    let later_log = s.f.work.join("later.jsonl");

    // The first task starts the server, with a log.
    run(&["--event-log", "first.jsonl"], "first", "exit 0");
    exited("first");
    // Later tasks, with no flag or another log, against the running server.
    run(&[], "plain", "exit 0");
    run(
        &["--event-log", later_log.to_str().unwrap()],
        "later",
        "exit 0",
    );
    exited("plain");
    exited("later");
    // A task's lines are written before `ls` says it exited.
    assert_eq!(logged_tasks(&first_log), ["first"]);
    assert_eq!(logged_tasks(&later_log), ["later"]);
    let last = log_lines(&later_log).pop().unwrap();
    assert_eq!(last["to"], "exited", "{last}");

    // After a restart of the server, the same.
    s.expect(&["server", "stop"], 0);
    run(&["--event-log", "first.jsonl"], "again", "exit 0");
    run(&[], "after", "exit 0");
    exited("again");
    exited("after");
    assert_eq!(logged_tasks(&first_log), ["again", "first"]);
    assert_eq!(logged_tasks(&later_log), ["later"]);

    // A rename is the task's name in its log's next lines.
    let renamed_log = s.f.work.join("renamed.jsonl");
    run(
        &["--event-log", renamed_log.to_str().unwrap()],
        "before",
        "read l; exit 0",
    );
    let out = s.expect(&["rename", "before", "after-rename"], 0);
    assert_eq!(
        out.trim(),
        format!("Renamed task {} to after-rename.", s.ls().len())
    );
    s.expect(&["send", "after-rename", "go", "--enter"], 0);
    exited("after-rename");
    let last = log_lines(&renamed_log).pop().unwrap();
    assert_eq!(
        (&last["task"], &last["to"]),
        (&"after-rename".into(), &"exited".into()),
        "{last}"
    );

    // --record: a recording of that task only, holding what it printed.
    let casts = s.f.work.join("casts");
    run(&["--record", "casts"], "rec", "echo REC-MARK; exit 0");
    run(&[], "norec", "echo NOT-RECORDED; exit 0");
    exited("rec");
    exited("norec");
    let files: Vec<_> = std::fs::read_dir(&casts)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let name = files[0].file_name().unwrap().to_str().unwrap().to_string();
    assert!(name.starts_with("rec-"), "{name}");
    let cast = std::fs::read_to_string(&files[0]).unwrap();
    assert!(cast.contains("REC-MARK") && !cast.contains("NOT-RECORDED"));

    // A log or a recording directory that cannot be opened is refused with
    // the reason, which names its cause once, though the error quotes it
    // and keeps it as its source (printed twice until 2026-12-07); nothing
    // starts.
    let tasks = s.ls().len();
    let refused = |args: &[&str], what: &str| {
        let out = s.termic(args);
        assert_eq!(out.status.code(), Some(1));
        let err = text(&out.stderr);
        assert!(err.contains(what), "{err}");
        assert_eq!(err.matches("No such file or directory").count(), 1, "{err}");
    };
    refused(
        &[
            "--event-log",
            "/nonexistent-dir/x.jsonl",
            "run",
            "--detach",
            "--name",
            "bad",
            "--",
            "sh",
            "-c",
            "sleep 30",
        ],
        "cannot append to the event log /nonexistent-dir/x.jsonl",
    );
    refused(
        &[
            "run",
            "--detach",
            "--record",
            "/proc/no-such-dir",
            "--",
            "true",
        ],
        "cannot record into /proc/no-such-dir",
    );
    assert_eq!(s.ls().len(), tasks, "no task started");
}

/// Protocol 8 (issue 29): `timeline` answers a task's Inspector entries
/// (its transitions with their reasons); `restart` refuses a running task
/// and starts an exited one again under its number, answered `started`.
/// What the workspace sends a host for a remote task's Inspector and
/// restart.
#[test]
fn timeline_and_restart_requests_answer_over_the_socket() {
    let s = Served::new(&[hook("working", ""), "read l".to_string(), "exit 3".into()].join("; "));
    s.expect(&["run", "fake", "--name", "t", "--detach"], 0);
    let mut c = welcomed(&s);
    let mut ask = |request: Value| {
        c.write_all(&frame(request.to_string().as_bytes())).unwrap();
        read_reply(&mut c)
    };
    let start = Instant::now();
    let entries = loop {
        let answer = ask(serde_json::json!({"timeline": {"task": "t"}}));
        let entries = answer["timeline"].as_array().cloned().unwrap_or_default();
        let working = entries.iter().any(|e| {
            e["transition"] == true && e["text"].as_str().is_some_and(|t| t.contains("working"))
        });
        if working {
            break entries;
        }
        assert!(start.elapsed() < Duration::from_secs(10), "{answer}");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(entries.iter().all(|e| e["at_ms"].is_u64()), "{entries:?}");
    let refused = ask(serde_json::json!({"restart": {"task": "t"}}));
    assert!(
        refused["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("still running")),
        "{refused}"
    );
    let missing = ask(serde_json::json!({"timeline": {"task": "nope"}}));
    assert!(missing["error"].is_object(), "{missing}");
    s.expect(&["send", "t", "go", "--enter"], 0);
    s.expect(&["wait", "t", "--for", "exited", "--timeout", "10"], 0);
    let started = ask(serde_json::json!({"restart": {"task": "t"}}));
    assert_eq!(started["started"]["id"], 1, "{started}");
    assert_eq!(started["started"]["name"], "t", "{started}");
    assert_ne!(started["started"]["state"], "exited", "{started}");
    let rows = s.ls();
    assert_eq!(rows.len(), 1, "{rows:?}");
    s.expect(&["kill", "t"], 0);
}

/// Issue 31 item 4 through the real server: with `[tasks]
/// continue_after_limit = true`, a task whose agent stopped on a usage
/// limit ("rate limited until HH:MM") is typed its agent's continue prompt
/// (Claude's `continue`, then Enter) when that time comes, and goes on.
/// The limit names the current minute, which the server reads as "now"
/// (a reset minute read within itself is due at once), so the test needs
/// no fake clock; a minute about to turn is waited out first.
#[test]
fn a_rate_limited_task_is_typed_its_continue_prompt_when_the_limit_resets() {
    let script = [
        "echo READY".to_string(),
        "read first".into(),
        hook("working", ""),
        // The limit's minute, written by the test once it is sure of it.
        "while [ ! -s until ]; do sleep 0.05; done".into(),
        "printf '\\033]777;termic;v1;error;%s;reason=rate_limited;until=%s\\007' \"$TERMIC_TASK_ID\" \"$(cat until)\"".into(),
        "read again".into(),
        "echo \"$again\" > got.txt".into(),
        hook("working", ""),
        "sleep 600".into(),
    ]
    .join("; ");
    let s = Served::new(&script);
    let config = std::fs::read_to_string(s.f.config_dir.join("config.toml")).unwrap();
    s.f.config(&format!("{config}\n[tasks]\ncontinue_after_limit = true\n"));
    s.expect(&["run", "fake", "--name", "limited", "--detach"], 0);
    s.expect(&["send", "limited", "go", "--enter"], 0);
    let state = || s.ls().into_iter().next().map(|r| r["state"].clone());
    crate::wait::eventually_some(Duration::from_secs(30), || {
        state().filter(|st| st == "working")
    })
    .expect("the task never read working");
    // The current minute on the server's clock (the same TZ), not within
    // 10 s of its end.
    let minute = loop {
        let out = std::process::Command::new("date")
            .arg("+%H:%M %S")
            .output()
            .unwrap();
        let now = text(&out.stdout);
        let (hm, secs) = now.trim().split_once(' ').unwrap();
        if secs.parse::<u32>().unwrap() < 50 {
            break hm.to_string();
        }
        std::thread::sleep(Duration::from_millis(500));
    };
    std::fs::write(s.f.work.join("until"), &minute).unwrap();
    let got = crate::wait::eventually_some(Duration::from_secs(30), || {
        std::fs::read_to_string(s.f.work.join("got.txt"))
            .ok()
            .filter(|t| !t.is_empty())
    })
    .unwrap_or_else(|| panic!("the continue prompt never came: {:?}", s.ls()));
    assert_eq!(got.trim(), "continue");
    crate::wait::eventually_some(Duration::from_secs(30), || {
        state().filter(|st| st == "working")
    })
    .expect("the task never went on working after the prompt");
    let log = std::fs::read_to_string(s.f.data_dir.join("server.log")).unwrap();
    assert!(
        log.contains("the usage limit reset, typed its continue prompt"),
        "{log}"
    );
}
