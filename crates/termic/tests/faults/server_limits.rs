//! Issue 27: the server at a resource limit. A storm of connections at the
//! descriptor limit (`ulimit -n 64`) or the user's process limit (`ulimit
//! -u 120`) must neither end the server nor spin it: connections it cannot
//! serve are refused with the reason, the CPU is idle while the storm
//! holds and after it, a task that cannot start is an error for the client,
//! and the server serves again once the storm is gone.

use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::harness::Fixture;
use crate::privileged;
use crate::process_table::{alive, processes_of};
use crate::served::{text, Served};
use crate::wait::eventually;

/// CPU time of `pid` so far (utime + stime), in clock ticks.
fn cpu_ticks(pid: i32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let Some(end) = stat.rfind(')') else { return 0 };
    let fields: Vec<&str> = stat[end + 1..].split_whitespace().collect();
    // Fields 14 and 15, counted from the state (field 3) at index 0.
    let field = |i: usize| fields.get(i).and_then(|f| f.parse::<u64>().ok());
    field(11).unwrap_or(0) + field(12).unwrap_or(0)
}

fn clock_ticks_per_second() -> u64 {
    // SAFETY: sysconf has no preconditions.
    (unsafe { libc::sysconf(libc::_SC_CLK_TCK) }).max(1) as u64
}

/// Whether `pid` comes to use under 10% of a core over a second, within
/// 15 s; returns the lowest share seen (a spinning server never gets there).
fn settles_idle(pid: i32) -> (bool, f64) {
    let start = Instant::now();
    let mut lowest = f64::MAX;
    while start.elapsed() < Duration::from_secs(15) {
        let (t0, c0) = (Instant::now(), cpu_ticks(pid));
        // Not a wait: the CPU share is measured over this second.
        std::thread::sleep(Duration::from_secs(1));
        let used = (cpu_ticks(pid) - c0) as f64 / clock_ticks_per_second() as f64;
        let share = used / t0.elapsed().as_secs_f64();
        lowest = lowest.min(share);
        if share < 0.10 {
            return (true, share);
        }
    }
    (false, lowest)
}

/// Up to `n` connections to `socket`, made without blocking (a full
/// backlog fails the attempt instead of hanging the test), held open.
fn storm(socket: &Path, n: usize) -> Vec<OwnedFd> {
    let addr = sockaddr(socket);
    (0..n)
        .filter_map(|_| {
            // SAFETY: plain syscalls; the fd is owned on success.
            unsafe {
                let fd = libc::socket(libc::AF_UNIX, libc::SOCK_STREAM | libc::SOCK_NONBLOCK, 0);
                assert!(fd >= 0, "the test itself ran out of descriptors");
                let owned = OwnedFd::from_raw_fd(fd);
                let len = std::mem::size_of::<libc::sockaddr_un>() as libc::socklen_t;
                (libc::connect(fd, (&addr as *const libc::sockaddr_un).cast(), len) == 0)
                    .then_some(owned)
            }
        })
        .collect()
}

fn sockaddr(socket: &Path) -> libc::sockaddr_un {
    use std::os::unix::ffi::OsStrExt;
    // SAFETY: plain data.
    let mut addr: libc::sockaddr_un = unsafe { std::mem::zeroed() };
    addr.sun_family = libc::AF_UNIX as libc::sa_family_t;
    let path = socket.as_os_str().as_bytes();
    assert!(path.len() < addr.sun_path.len());
    for (dst, &src) in addr.sun_path.iter_mut().zip(path) {
        *dst = src as libc::c_char;
    }
    addr
}

/// What the server wrote to the held connections so far (non-blocking).
fn answers(held: &[OwnedFd]) -> Vec<String> {
    held.iter()
        .filter_map(|fd| {
            let mut buf = [0u8; 4096];
            // SAFETY: reads into a local buffer from a non-blocking fd.
            let n = unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
            (n > 4).then(|| String::from_utf8_lossy(&buf[4..n as usize]).into_owned())
        })
        .collect()
}

/// The termic CLI with the fixture's env, its limit `resource` set to
/// `limit` first (the server it starts inherits it).
fn cli_limited(
    f: &Fixture,
    args: &[&str],
    resource: libc::__rlimit_resource_t,
    limit: u64,
) -> Output {
    let mut cmd = fixture_cli(f, args);
    // SAFETY: setrlimit is async-signal-safe and touches no memory of ours.
    unsafe {
        cmd.pre_exec(move || {
            let rlim = libc::rlimit {
                rlim_cur: limit,
                rlim_max: limit,
            };
            if libc::setrlimit(resource, &rlim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd.output().unwrap()
}

fn fixture_cli(f: &Fixture, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_termic"));
    cmd.args(args)
        .current_dir(&f.work)
        .env_clear()
        .env("HOME", &f.home)
        .env("TERMIC_CONFIG_DIR", &f.config_dir)
        .env("TERMIC_DATA_DIR", &f.data_dir)
        .env("PATH", f.path_var());
    cmd
}

/// `cmd`'s output, or `None` (and it killed) when it takes longer than
/// `within`: a server that never answers must fail the test, not hang it.
fn output_within(mut cmd: Command, within: Duration) -> Option<Output> {
    use std::process::Stdio;
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > within {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Some(child.wait_with_output().unwrap())
}

/// The `Max <what>` soft limit in `/proc/<pid>/limits`.
fn limit_of(pid: i32, what: &str) -> String {
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap();
    let line = limits.lines().find(|l| l.starts_with(what)).unwrap();
    line[what.len()..]
        .split_whitespace()
        .next()
        .unwrap()
        .to_owned()
}

fn log_of(f: &Fixture) -> String {
    std::fs::read_to_string(f.data_dir.join("server.log")).unwrap_or_default()
}

fn count_lines(log: &str, needle: &str) -> usize {
    log.lines().filter(|l| l.contains(needle)).count()
}

#[test]
fn a_connection_storm_at_the_descriptor_limit_is_refused_with_the_reason_and_never_spins() {
    let s = Served::new("sleep 600");
    let out = cli_limited(
        &s.f,
        &["run", "--detach", "--name", "idle", "--", "sleep", "600"],
        libc::RLIMIT_NOFILE,
        64,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let server = s.server_pid();
    assert_eq!(limit_of(server, "Max open files"), "64");

    let held = storm(&s.socket(), 200);
    assert!(held.len() > 64, "the storm connected {} times", held.len());
    // What it cannot serve is told why, at once (not after the storm).
    let mut told = Vec::new();
    assert!(
        eventually(Duration::from_secs(10), || {
            told.extend(answers(&held));
            told.iter().any(|a| a.contains("too many open files"))
        }),
        "no refused connection was told why: {told:?} (server alive: {})",
        alive(server)
    );
    // A command now gets the reason too.
    let late = output_within(
        fixture_cli(
            &s.f,
            &["run", "--detach", "--name", "late", "--", "sleep", "600"],
        ),
        Duration::from_secs(20),
    )
    .expect("`termic run` got no answer within 20 s");
    assert_eq!(late.status.code(), Some(1), "{}", text(&late.stdout));
    assert!(
        text(&late.stderr).contains("too many open files (ulimit -n)"),
        "{}",
        text(&late.stderr)
    );
    // And the server does not spin on `accept` while it has no descriptor.
    let (idle, share) = settles_idle(server);
    assert!(
        idle && alive(server),
        "the server spins at the descriptor limit: {:.0}% of a core at best (alive: {})",
        share * 100.0,
        alive(server)
    );

    drop(held);
    let mut rows: Vec<Value> = Vec::new();
    assert!(
        eventually(Duration::from_secs(15), || {
            let out = s.termic(&["ls", "--json"]);
            rows = serde_json::from_slice::<Vec<Value>>(&out.stdout).unwrap_or_default();
            out.status.success() && !rows.is_empty()
        }),
        "the server does not serve after the storm"
    );
    let names: Vec<&str> = rows.iter().filter_map(|r| r["name"].as_str()).collect();
    assert_eq!(names, ["idle"]);
    let (idle, share) = settles_idle(server);
    assert!(idle, "busy after the storm: {:.0}%", share * 100.0);
    // Said in the log, and not once per refused connection.
    let log = log_of(&s.f);
    let lines = count_lines(&log, "refused a connection") + count_lines(&log, "cannot accept");
    assert!((1..=4).contains(&lines), "{lines} lines:\n{log}");
}

/// The termic CLI run as `uid`/`gid` with the fixture's env, with a
/// process limit when given (the server it starts inherits it).
fn cli_as(f: &Fixture, uid: u32, gid: u32, nproc: Option<u64>, args: &[&str]) -> Output {
    try_cli_as(f, uid, gid, nproc, args).unwrap()
}

/// [`cli_as`], or the error when the CLI itself could not start (its
/// `execve` fails with EAGAIN once the user is over `nproc`).
fn try_cli_as(
    f: &Fixture,
    uid: u32,
    gid: u32,
    nproc: Option<u64>,
    args: &[&str],
) -> std::io::Result<Output> {
    let mut cmd = fixture_cli(f, args);
    // SAFETY: only async-signal-safe syscalls between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            if let Some(limit) = nproc {
                // The soft limit only: the hard one stays, so the user can
                // lift it again (`prlimit`, as that user; this container
                // has no CAP_SYS_RESOURCE to raise a hard limit).
                let mut rlim = libc::rlimit {
                    rlim_cur: 0,
                    rlim_max: 0,
                };
                if libc::getrlimit(libc::RLIMIT_NPROC, &mut rlim) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                rlim.rlim_cur = limit.min(rlim.rlim_max);
                if libc::setrlimit(libc::RLIMIT_NPROC, &rlim) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            if libc::setgroups(0, std::ptr::null()) != 0
                || libc::setgid(gid) != 0
                || libc::setuid(uid) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd.output()
}

fn frame(body: &[u8]) -> Vec<u8> {
    let mut f = (body.len() as u32).to_be_bytes().to_vec();
    f.extend_from_slice(body);
    f
}

/// A client process running as another user: one connection that said
/// hello, then a storm of held connections; on the parent's word it sends
/// a request on the first one and passes the answer back; on the next
/// word (or the parent gone) it exits, closing them all.
struct StormAs {
    pid: libc::pid_t,
    control: std::fs::File,
    replies: std::fs::File,
}

impl StormAs {
    fn start(uid: u32, gid: u32, socket: &Path, n: usize, request: &[u8]) -> StormAs {
        let addr = sockaddr(socket);
        let hello = frame(
            format!(
                r#"{{"hello":{{"protocol":{},"version":"{}"}}}}"#,
                termic::server::protocol::PROTOCOL,
                env!("CARGO_PKG_VERSION")
            )
            .as_bytes(),
        );
        let request = frame(request);
        // Allocated before the fork: the child only makes syscalls.
        let mut buf = vec![0u8; 1 << 16];
        let (mut to_child, mut from_child) = ([0; 2], [0; 2]);
        // SAFETY: fork; the child runs only raw syscalls on memory prepared
        // above and leaves with _exit.
        unsafe {
            assert_eq!(libc::pipe(to_child.as_mut_ptr()), 0);
            assert_eq!(libc::pipe(from_child.as_mut_ptr()), 0);
            let pid = libc::fork();
            assert!(pid >= 0);
            if pid == 0 {
                libc::close(to_child[1]);
                libc::close(from_child[0]);
                let (control, out) = (to_child[0], from_child[1]);
                if libc::setgroups(0, std::ptr::null()) != 0
                    || libc::setgid(gid) != 0
                    || libc::setuid(uid) != 0
                {
                    libc::_exit(2);
                }
                let len = std::mem::size_of::<libc::sockaddr_un>() as libc::socklen_t;
                let first = libc::socket(libc::AF_UNIX, libc::SOCK_STREAM, 0);
                if libc::connect(first, (&addr as *const libc::sockaddr_un).cast(), len) != 0 {
                    libc::_exit(3);
                }
                libc::write(first, hello.as_ptr().cast(), hello.len());
                if read_frame_raw(first, &mut buf) == 0 {
                    libc::_exit(4);
                }
                let mut connected: u32 = 0;
                for _ in 0..n {
                    let fd =
                        libc::socket(libc::AF_UNIX, libc::SOCK_STREAM | libc::SOCK_NONBLOCK, 0);
                    if fd >= 0
                        && libc::connect(fd, (&addr as *const libc::sockaddr_un).cast(), len) == 0
                    {
                        connected += 1;
                    }
                }
                libc::write(out, connected.to_be_bytes().as_ptr().cast(), 4);
                let mut word = [0u8; 1];
                libc::read(control, word.as_mut_ptr().cast(), 1);
                libc::write(first, request.as_ptr().cast(), request.len());
                let got = read_frame_raw(first, &mut buf);
                libc::write(out, (got as u32).to_be_bytes().as_ptr().cast(), 4);
                libc::write(out, buf.as_ptr().cast(), got);
                libc::read(control, word.as_mut_ptr().cast(), 1);
                libc::_exit(0);
            }
            libc::close(to_child[0]);
            libc::close(from_child[1]);
            StormAs {
                pid,
                control: std::fs::File::from_raw_fd(to_child[1]),
                replies: std::fs::File::from_raw_fd(from_child[0]),
            }
        }
    }

    fn connected(&mut self) -> u32 {
        let mut n = [0u8; 4];
        self.replies
            .read_exact(&mut n)
            .expect("the storm client failed");
        u32::from_be_bytes(n)
    }

    /// Send the request; the answer's JSON text (empty: none came).
    fn ask(&mut self) -> String {
        self.control.write_all(b"r").unwrap();
        let mut n = [0u8; 4];
        self.replies.read_exact(&mut n).unwrap();
        let mut body = vec![0u8; u32::from_be_bytes(n) as usize];
        self.replies.read_exact(&mut body).unwrap();
        String::from_utf8_lossy(&body).into_owned()
    }
}

impl Drop for StormAs {
    fn drop(&mut self) {
        let _ = self.control.write_all(b"q");
        // SAFETY: our own child.
        unsafe {
            libc::kill(self.pid, libc::SIGKILL);
            libc::waitpid(self.pid, std::ptr::null_mut(), 0);
        }
    }
}

/// One frame's body into `buf` with raw reads (fork-safe); its length, 0
/// when the connection closed first or it does not fit.
fn read_frame_raw(fd: libc::c_int, buf: &mut [u8]) -> usize {
    let mut len = [0u8; 4];
    if !read_exact_raw(fd, &mut len) {
        return 0;
    }
    let len = u32::from_be_bytes(len) as usize;
    if len > buf.len() || !read_exact_raw(fd, &mut buf[..len]) {
        return 0;
    }
    len
}

fn read_exact_raw(fd: libc::c_int, buf: &mut [u8]) -> bool {
    let mut at = 0;
    while at < buf.len() {
        // SAFETY: reads into the rest of `buf`.
        let n = unsafe { libc::read(fd, buf[at..].as_mut_ptr().cast(), buf.len() - at) };
        if n <= 0 {
            return false;
        }
        at += n as usize;
    }
    true
}

/// A fixture whose files belong to `uid`/`gid` (the second user).
fn fixture_owned_by(uid: u32, gid: u32) -> Fixture {
    let f = Fixture::new();
    let root = f.home.parent().unwrap().to_path_buf();
    let chown = Command::new("chown")
        .arg("-R")
        .arg(format!("{uid}:{gid}"))
        .arg(&root)
        .status()
        .unwrap();
    assert!(chown.success());
    f
}

/// Ends the other user's server however the test ends.
struct StopAs<'a> {
    f: &'a Fixture,
    uid: u32,
    gid: u32,
    server: i32,
}

impl Drop for StopAs<'_> {
    fn drop(&mut self) {
        let _ = cli_as(self.f, self.uid, self.gid, None, &["server", "stop"]);
        // SAFETY: plain syscall on the test's server.
        unsafe {
            libc::kill(self.server, libc::SIGKILL);
        }
        for pid in processes_of(&self.f.data_dir) {
            // SAFETY: plain syscall on a process of the test's fixture.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
    }
}

#[test]
#[ignore = "needs root and a second user: .ci/run's fault step"]
fn a_connection_storm_at_the_process_limit_is_refused_and_a_task_that_cannot_start_is_an_error() {
    let (_name, uid, gid) = privileged::other_user();
    let f = fixture_owned_by(uid, gid);
    let out = cli_as(
        &f,
        uid,
        gid,
        Some(120),
        &["run", "--detach", "--name", "idle", "--", "sleep", "600"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let log = log_of(&f);
    let server: i32 = log
        .rsplit("(pid ")
        .next()
        .and_then(|a| a.split(')').next())
        .and_then(|p| p.parse().ok())
        .expect("the server's pid in its log");
    let _stop = StopAs {
        f: &f,
        uid,
        gid,
        server,
    };
    assert_eq!(limit_of(server, "Max processes"), "120");
    let before = processes_of(&f.data_dir).len();

    let run = serde_json::json!({"run": {
        "program": {"command": {"argv": ["sleep", "600"]}},
        "name": "late", "worktree": false,
        "cwd": f.work.display().to_string(), "path_var": f.path_var(),
        "cols": 80, "rows": 24}});
    let socket = f.data_dir.join("run/server.sock");
    let mut storm = StormAs::start(uid, gid, &socket, 200, run.to_string().as_bytes());
    let connected = storm.connected();
    assert!(connected > 120, "the storm connected {connected} times");
    // The threads run out: the server says so (or, before the fix, dies).
    assert!(
        eventually(Duration::from_secs(20), || {
            log_of(&f).contains("cannot start a thread") || !alive(server)
        }),
        "the process limit was never reached:\n{}",
        log_of(&f)
    );
    assert!(
        alive(server),
        "the server died at the process limit:\n{}",
        log_of(&f)
    );
    // A task that cannot start (no process or thread left) is an error for
    // the client that asked, with what to do.
    let answer = storm.ask();
    assert!(
        answer.contains("\"error\"") && answer.contains("ulimit -u"),
        "{answer}"
    );
    // A new connection gets the reason, printed by the CLI.
    let late = cli_as(&f, uid, gid, None, &["ls"]);
    assert_eq!(late.status.code(), Some(1), "{}", text(&late.stdout));
    assert!(
        text(&late.stderr).contains("process limit (ulimit -u)"),
        "{}",
        text(&late.stderr)
    );
    let (idle, share) = settles_idle(server);
    assert!(
        alive(server) && idle,
        "the server at the process limit: alive {}, {:.0}% of a core at best",
        alive(server),
        share * 100.0,
    );

    drop(storm);
    let mut rows: Vec<Value> = Vec::new();
    assert!(
        eventually(Duration::from_secs(15), || {
            let out = cli_as(&f, uid, gid, None, &["ls", "--json"]);
            rows = serde_json::from_slice::<Vec<Value>>(&out.stdout).unwrap_or_default();
            out.status.success() && !rows.is_empty()
        }),
        "the server does not serve after the storm:\n{}",
        log_of(&f)
    );
    // No half task, no process left of the one that could not start.
    let names: Vec<&str> = rows.iter().filter_map(|r| r["name"].as_str()).collect();
    assert_eq!(names, ["idle"]);
    assert!(
        eventually(Duration::from_secs(10), || processes_of(&f.data_dir).len()
            == before),
        "a process of the task that could not start was left: {:?}",
        processes_of(&f.data_dir)
    );
    let (idle, share) = settles_idle(server);
    assert!(idle, "busy after the storm: {:.0}%", share * 100.0);
}

/// `termic web` for the fixture, its limit `resource` set to `limit`
/// first when given, run as `user` (uid, gid) when given; its port once
/// it listens.
fn web_limited(
    f: &Fixture,
    limit: Option<(libc::__rlimit_resource_t, u64)>,
    user: Option<(u32, u32)>,
) -> (std::process::Child, u16) {
    use std::io::BufRead;
    let mut cmd = fixture_cli(f, &["web", "--listen", "127.0.0.1:0"]);
    cmd.stdout(std::process::Stdio::piped())
        .stderr(std::fs::File::create(f.data_dir.join("web.log")).unwrap());
    // SAFETY: only async-signal-safe syscalls between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            if let Some((resource, limit)) = limit {
                let rlim = libc::rlimit {
                    rlim_cur: limit,
                    rlim_max: limit,
                };
                if libc::setrlimit(resource, &rlim) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            if let Some((uid, gid)) = user {
                if libc::setgid(gid) != 0 || libc::setuid(uid) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
    let mut child = cmd.spawn().unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = crate::served::web_port(&line);
    (child, port)
}

/// `n` TCP connections to termic web, held open, reads not blocking.
fn web_storm(port: u16, n: usize) -> Vec<std::net::TcpStream> {
    (0..n)
        .filter_map(|_| std::net::TcpStream::connect(("127.0.0.1", port)).ok())
        .inspect(|c| c.set_nonblocking(true).unwrap())
        .collect()
}

/// What termic web wrote to the held connections so far.
fn web_answers(held: &mut [std::net::TcpStream]) -> Vec<String> {
    held.iter_mut()
        .filter_map(|c| {
            let mut buf = [0u8; 4096];
            match c.read(&mut buf) {
                Ok(n) if n > 0 => Some(String::from_utf8_lossy(&buf[..n]).into_owned()),
                _ => None,
            }
        })
        .collect()
}

/// The status line termic web answers a plain `GET /` with.
fn web_get(port: u16) -> String {
    let Ok(mut c) = std::net::TcpStream::connect(("127.0.0.1", port)) else {
        return String::new();
    };
    let _ = c.set_read_timeout(Some(Duration::from_secs(5)));
    let _ = write!(
        c,
        "GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    );
    let mut out = String::new();
    let _ = c.read_to_string(&mut out);
    out.lines().next().unwrap_or_default().to_string()
}

/// A storm of `n` held connections to termic web (`pid` on `port`): one
/// is answered 503 with `reason` (within 8 s: before termic web drops the
/// held ones as idle), it does not spin or die, and once the storm is
/// gone it serves again.
fn web_storm_refused_then_served(pid: i32, port: u16, n: usize, reason: &str) {
    let mut held = web_storm(port, n);
    let mut told = Vec::new();
    assert!(
        eventually(Duration::from_secs(8), || {
            told.extend(web_answers(&mut held));
            told.iter().any(|a| a.contains(reason))
        }),
        "no refused connection was told why ({} connected): {told:?} (alive: {})",
        held.len(),
        alive(pid)
    );
    let refused = told.iter().find(|a| a.contains(reason)).unwrap();
    assert!(refused.starts_with("HTTP/1.1 503"), "{refused}");
    assert!(!refused.contains('\u{2014}'), "{refused}");
    let (idle, share) = settles_idle(pid);
    assert!(
        idle && alive(pid),
        "termic web under the storm: alive {}, {:.0}% of a core at best",
        alive(pid),
        share * 100.0
    );
    drop(held);
    let mut status = String::new();
    assert!(
        eventually(Duration::from_secs(20), || {
            status = web_get(port);
            status.contains("200")
        }),
        "termic web does not serve after the storm: {status:?}"
    );
    assert!(alive(pid), "termic web died");
}

/// Ends `termic web` however the test ends.
struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Issue 30: `termic web` at its descriptor limit (`ulimit -n 48`). A
/// storm of held connections: those it cannot take are answered 503 with
/// the reason, it does not spin, it is still alive, and once the storm is
/// gone it serves again; the task the server runs is still there.
#[test]
fn termic_web_at_the_descriptor_limit_refuses_with_the_reason_and_serves_again() {
    let s = Served::new("sleep 600");
    s.expect(
        &["run", "--detach", "--name", "idle", "--", "sleep", "600"],
        0,
    );
    let (web, port) = web_limited(&s.f, Some((libc::RLIMIT_NOFILE, 48)), None);
    let web = KillOnDrop(web);
    let pid = web.0.id() as i32;
    assert_eq!(limit_of(pid, "Max open files"), "48");
    assert!(web_get(port).contains("200"), "termic web serves first");

    web_storm_refused_then_served(pid, port, 100, "too many open files (ulimit -n)");
    let names: Vec<String> = s
        .ls()
        .iter()
        .filter_map(|r| r["name"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(names, ["idle"]);
    let log = std::fs::read_to_string(s.f.data_dir.join("web.log")).unwrap_or_default();
    let lines = count_lines(&log, "cannot accept") + count_lines(&log, "refused a connection");
    assert!((1..=4).contains(&lines), "{lines} lines:\n{log}");
}

/// Issue 30: `termic web` at the user's process limit (`ulimit -u 40`, as
/// the second user, whose every thread counts): a storm of held
/// connections, one thread each, until no thread can be started; those
/// are answered 503 with the reason, it does not die or spin, and once
/// the storm is gone it serves again.
#[test]
#[ignore = "needs root and a second user: .ci/run's fault step"]
fn termic_web_at_the_process_limit_refuses_with_the_reason_and_serves_again() {
    let (_name, uid, gid) = privileged::other_user();
    let f = fixture_owned_by(uid, gid);
    let (web, port) = web_limited(&f, Some((libc::RLIMIT_NPROC, 40)), Some((uid, gid)));
    let web = KillOnDrop(web);
    let pid = web.0.id() as i32;
    assert_eq!(limit_of(pid, "Max processes"), "40");
    assert!(web_get(port).contains("200"), "termic web serves first");

    web_storm_refused_then_served(pid, port, 60, "process limit (ulimit -u)");
}

/// The pid in the last "listening" line of the fixture's server log.
fn listening_pid(f: &Fixture) -> Option<i32> {
    let log = log_of(f);
    let line = log.lines().rev().find(|l| l.contains(") listening on "))?;
    line.rsplit("(pid ").next()?.split(')').next()?.parse().ok()
}

/// [`tasks_of_user`] once it held for 300 ms (processes that were ending
/// have ended), waited for up to 10 s.
fn settled_tasks_of_user(uid: u32) -> u64 {
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut last = tasks_of_user(uid);
    loop {
        std::thread::sleep(Duration::from_millis(300));
        let now = tasks_of_user(uid);
        if now == last || Instant::now() >= deadline {
            return now;
        }
        last = now;
    }
}

/// Threads and processes of `uid` now, as the kernel counts them against
/// RLIMIT_NPROC.
fn tasks_of_user(uid: u32) -> u64 {
    let mut count = 0;
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        if entry.file_name().to_string_lossy().parse::<u32>().is_err() {
            continue;
        }
        let Ok(status) = std::fs::read_to_string(entry.path().join("status")) else {
            continue;
        };
        let real = status
            .lines()
            .find_map(|l| l.strip_prefix("Uid:"))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse::<u32>().ok());
        if real == Some(uid) {
            count += std::fs::read_dir(entry.path().join("task"))
                .map(|t| t.count() as u64)
                .unwrap_or(1);
        }
    }
    count
}

fn set_nproc(uid: u32, gid: u32, pid: i32, soft: u64) {
    let mut cmd = Command::new("prlimit");
    cmd.arg("--pid")
        .arg(pid.to_string())
        .arg(format!("--nproc={soft}:"));
    // SAFETY: only async-signal-safe syscalls between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            if libc::setgroups(0, std::ptr::null()) != 0
                || libc::setgid(gid) != 0
                || libc::setuid(uid) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "prlimit: {}", text(&out.stderr));
}

/// 2026-12-07, found by hand: a server started at the user's process
/// limit with lost tasks to restore panicked in a `thread::spawn` (its
/// client printed a backtrace frame, "30: _start", as the reason), or
/// died after it listened (the client read "connection reset"), and the
/// next start called it a crash. Now every start at the limit, from the
/// tightest up, ends with the reason naming `ulimit -u`; a restore at the
/// limit says so and keeps every task it could not start; once the limit
/// lifts, the same restore starts them. Exactly one client is told of the
/// two lost tasks, however many starts were refused first.
#[test]
#[ignore = "needs root and a second user: .ci/run's fault step"]
fn a_start_and_a_restore_at_the_process_limit_say_why_and_lose_no_task() {
    let (_name, uid, gid) = privileged::other_user();
    let f = fixture_owned_by(uid, gid);
    for name in ["one", "two"] {
        let args = ["run", "--detach", "--name", name, "--", "sleep", "600"];
        let out = cli_as(&f, uid, gid, None, &args);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    }
    let first = listening_pid(&f).expect("the first server's pid");
    // SAFETY: plain syscall on the test's server.
    unsafe {
        libc::kill(first, libc::SIGKILL);
    }
    assert!(eventually(Duration::from_secs(10), || !alive(first)));

    // Starts at the limit, from one process more than the CLI itself up.
    let mut refused = 0;
    let mut server = None;
    // Every client's stderr: the lost tasks are told to exactly one.
    let mut heard = String::new();
    // Every try counts from the same base: the user's processes once the
    // killed server's are gone, and the last try's (a refused server's
    // threads still exiting) gone too. Counted while they still exited, a
    // try's limit came out a few tasks looser than meant, and the tightest
    // limit that let the CLI start let the whole server start too (1 run
    // in 4 on 2026-12-07).
    let base = settled_tasks_of_user(uid);
    for extra in 0..=40 {
        assert!(
            eventually(Duration::from_secs(10), || tasks_of_user(uid) <= base),
            "the last try's processes did not end"
        );
        let limit = base + extra;
        let Ok(out) = try_cli_as(&f, uid, gid, Some(limit), &["restore", "--list"]) else {
            continue; // not even the CLI could start: no termic text to check
        };
        heard.push_str(&text(&out.stderr));
        if out.status.success() {
            // Its "listening" line may land just after the CLI connected.
            let mut pid = None;
            eventually(Duration::from_secs(5), || {
                pid = listening_pid(&f).filter(|&p| p != first && alive(p));
                pid.is_some()
            });
            server = pid;
            break;
        }
        refused += 1;
        let said = text(&out.stderr);
        // A server that started but had no thread left for this client.
        if let Some(pid) = listening_pid(&f).filter(|&p| p != first && alive(p)) {
            assert!(said.contains("ulimit -u"), "limit {limit}: {said}");
            server = Some(pid);
            break;
        }
        assert!(said.contains("ulimit -u"), "limit {limit}: {said}");
        for bad in ["_start", "panic", "reset by peer", "Os {"] {
            assert!(!said.contains(bad), "limit {limit}: {said}");
        }
    }
    let server = server.unwrap_or_else(|| {
        panic!(
            "no server started below 40 processes over the count:\n{}",
            log_of(&f)
        )
    });
    let _stop = StopAs {
        f: &f,
        uid,
        gid,
        server,
    };
    assert!(refused >= 1, "the tightest limit did not refuse the start");
    let log = log_of(&f);
    assert!(!log.contains("panic at"), "{log}");
    assert_eq!(
        count_lines(&log, "the previous server (pid "),
        1,
        "a start refused at the limit was called a crash:\n{log}"
    );

    // A restore while the server is at its limit: refused or not started,
    // with the reason; both tasks are still there to restore.
    set_nproc(uid, gid, server, tasks_of_user(uid) + 2);
    let out = cli_as(&f, uid, gid, None, &["restore"]);
    heard.push_str(&text(&out.stderr));
    let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("ulimit -u"), "{said}");
    assert!(
        !said.contains("Restored 1 one") || !said.contains("Restored 2 two"),
        "{said}"
    );
    assert!(
        alive(server),
        "the server died at its limit:\n{}",
        log_of(&f)
    );

    set_nproc(uid, gid, server, 4096);
    let out = cli_as(&f, uid, gid, None, &["restore"]);
    heard.push_str(&text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    // Until 2026-12-07 a start refused after it claimed the lost records
    // took the notice with it, and no client heard of the lost tasks.
    assert_eq!(
        heard.matches("its 2 tasks were lost: one, two").count(),
        1,
        "clients heard:\n{heard}\nlog:\n{}",
        log_of(&f)
    );
    let out = cli_as(&f, uid, gid, None, &["ls", "--json"]);
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap_or_default();
    let mut names: Vec<&str> = rows.iter().filter_map(|r| r["name"].as_str()).collect();
    names.sort();
    assert_eq!(names, ["one", "two"], "{}", text(&out.stdout));
}
