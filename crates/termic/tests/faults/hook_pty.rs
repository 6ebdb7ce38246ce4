//! Issue 27, hook_pty: the generated hooks write to the terminal named by
//! `TERMIC_PTY`. A name swapped between a check and the open must never get
//! a regular file created, truncated or written (the sh scripts of every
//! agent whose transport is PtyByName, and the opencode plugin under node),
//! and a hook must end within its bound, exit 0 and leave no process
//! whatever signal disposition it inherits, with a stdin that never closes
//! and a pty nobody reads.

use std::io::Write;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use termic_hooks::agents::script::{Transport, PAYLOAD_MAX_SECONDS, PTY_WRITE_MAX_SECONDS};
use termic_hooks::agents::{AgentSchema, HookRegistration};

const TASK: &str = "3f9c0a1e-77b2";
/// A payload every script answers (grok's and gemini's permission fields).
const PAYLOAD: &[u8] =
    br#"{"notificationType":"permission_prompt","notification_type":"ToolPermission","tool_name":"Bash"}"#;
/// What the regular files hold; a hook must never change a byte of it.
const KNOWN: &[u8] = b"known bytes that no hook may touch\n";

/// A pty pair from openpty: the master stays here, the slave is named.
struct Pty {
    master: OwnedFd,
    slave_path: PathBuf,
    _slave: OwnedFd,
}

impl Pty {
    fn open() -> Pty {
        let (mut master, mut slave) = (-1, -1);
        // SAFETY: openpty writes two fds; null name/termios/winsize are allowed.
        let rc = unsafe {
            libc::openpty(
                &mut master,
                &mut slave,
                std::ptr::null_mut(),
                std::ptr::null(),
                std::ptr::null(),
            )
        };
        assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
        // SAFETY: both fds were just returned by openpty and are ours.
        let (master, slave) =
            unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
        let slave_path =
            std::fs::read_link(format!("/proc/self/fd/{}", slave.as_raw_fd())).unwrap();
        // SAFETY: fcntl on an fd we own.
        unsafe {
            let flags = libc::fcntl(master.as_raw_fd(), libc::F_GETFL);
            libc::fcntl(master.as_raw_fd(), libc::F_SETFL, flags | libc::O_NONBLOCK);
        }
        Pty {
            master,
            slave_path,
            _slave: slave,
        }
    }

    /// Reads what is there now (non-blocking).
    fn read_now(&self, out: &mut Vec<u8>) {
        let mut buf = [0u8; 65536];
        loop {
            // SAFETY: reading into a local buffer from an fd we own.
            let n =
                unsafe { libc::read(self.master.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
            if n <= 0 {
                return;
            }
            out.extend_from_slice(&buf[..n as usize]);
        }
    }

    /// Writes to the slave until the pty refuses several times in a row
    /// (the line discipline moves bytes on through a work queue, so one
    /// refusal is not enough). Nobody reads the master afterwards.
    fn fill(&self) -> usize {
        use std::os::unix::fs::OpenOptionsExt;
        let mut w = std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
            .open(&self.slave_path)
            .unwrap();
        let (mut total, mut refusals) = (0, 0);
        while refusals < 8 {
            let chunk: &[u8] = if refusals == 0 { &[b'x'; 4096] } else { b"x" };
            match w.write(chunk) {
                Ok(n) => {
                    total += n;
                    refusals = 0;
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    refusals += 1;
                    std::thread::sleep(Duration::from_millis(10));
                }
                Err(e) => panic!("filling the pty: {e}"),
            }
        }
        total
    }
}

/// Every generated script whose transport writes to `$TERMIC_PTY` by name.
fn pty_scripts() -> Vec<(String, &'static HookRegistration)> {
    let mut out = Vec::new();
    for schema in AgentSchema::all() {
        for reg in schema.adapter().registrations() {
            if reg.script.transport == Transport::PtyByName {
                out.push((format!("{} {}", schema.id(), reg.event), reg));
            }
        }
    }
    assert!(
        out.len() >= 10,
        "expected every PtyByName agent, got {}",
        out.len()
    );
    out
}

fn write_script(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name.replace(' ', "-") + ".sh");
    std::fs::write(&path, text).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// `path` pointed at `target` atomically (a new link renamed over it).
fn point(path: &Path, target: &Path) {
    let tmp = path.with_extension("tmp");
    let _ = std::fs::remove_file(&tmp);
    std::os::unix::fs::symlink(target, &tmp).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

/// The race: `link` flips between the pty slave, a regular file and a
/// dangling target; `dir` flips between the slave's directory and a
/// directory holding a regular file of the slave's name. `TERMIC_PTY` is
/// `link` or `dir/<name>` (an O_NOFOLLOW open follows the second).
struct Flipper {
    link: PathBuf,
    via_dir: PathBuf,
    files: Vec<PathBuf>,
    missing: PathBuf,
    stop: Arc<AtomicBool>,
    flips: Arc<AtomicUsize>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Flipper {
    fn start(root: &Path, pty: &Pty) -> Flipper {
        let slave = pty.slave_path.clone();
        let name = slave.file_name().unwrap().to_owned();
        let fake_dir = root.join("fake");
        std::fs::create_dir_all(&fake_dir).unwrap();
        let regular = root.join("regular");
        let fake = fake_dir.join(&name);
        for f in [&regular, &fake] {
            std::fs::write(f, KNOWN).unwrap();
        }
        let missing = root.join("missing");
        let link = root.join("link");
        let dir = root.join("dir");
        point(&link, &slave);
        point(&dir, slave.parent().unwrap());
        let stop = Arc::new(AtomicBool::new(false));
        let flips = Arc::new(AtomicUsize::new(0));
        let thread = {
            let (stop, flips) = (stop.clone(), flips.clone());
            let (link, dir, regular, missing) =
                (link.clone(), dir.clone(), regular.clone(), missing.clone());
            let slave_dir = slave.parent().unwrap().to_path_buf();
            std::thread::spawn(move || {
                let mut i = 0usize;
                while !stop.load(Ordering::Relaxed) {
                    match i % 3 {
                        0 => point(&link, &slave),
                        1 => point(&link, &regular),
                        _ => point(&link, &missing),
                    }
                    point(&dir, if i % 2 == 0 { &slave_dir } else { &fake_dir });
                    i += 1;
                    flips.store(i, Ordering::Relaxed);
                }
            })
        };
        Flipper {
            via_dir: root.join("dir").join(&name),
            link,
            files: vec![regular, fake],
            missing,
            stop,
            flips,
            thread: Some(thread),
        }
    }

    /// How many regular files differ from KNOWN (restoring them), plus 1
    /// when the dangling target was created (removing it).
    fn damage(&self) -> usize {
        let mut n = 0;
        for f in &self.files {
            if std::fs::read(f).ok().as_deref() != Some(KNOWN) {
                n += 1;
                std::fs::write(f, KNOWN).unwrap();
            }
        }
        if std::fs::symlink_metadata(&self.missing).is_ok() {
            n += 1;
            let _ = std::fs::remove_file(&self.missing);
        }
        n
    }

    fn finish(mut self) -> usize {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.take().unwrap().join().unwrap();
        self.flips.load(Ordering::Relaxed)
    }
}

/// Runs `script` once with `pty_name` as `TERMIC_PTY`; the payload on a
/// closed stdin. Waits with a deadline and asserts exit 0.
fn run_once(script: &Path, pty_name: &Path, name: &str) {
    let mut child = spawn_retrying(
        Command::new(script)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap())
            .env("TERMIC_TASK_ID", TASK)
            .env("TERMIC_PTY", pty_name)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null()),
    );
    let mut stdin = child.stdin.take().unwrap();
    let _ = stdin.write_all(PAYLOAD);
    drop(stdin);
    let code = wait_bounded(&mut child, Duration::from_secs(20));
    assert_eq!(
        code,
        Some(0),
        "{name} with TERMIC_PTY={}",
        pty_name.display()
    );
}

fn spawn_retrying(cmd: &mut Command) -> std::process::Child {
    loop {
        match cmd.spawn() {
            // A busy machine can refuse a fork for a moment; a just-written
            // script can be "text file busy" while another fork holds it.
            Err(e) if matches!(e.raw_os_error(), Some(libc::ETXTBSY | libc::EAGAIN)) => {
                std::thread::sleep(Duration::from_millis(10))
            }
            other => break other.unwrap(),
        }
    }
}

/// The exit code, or None (and the child killed) past `deadline`.
fn wait_bounded(child: &mut std::process::Child, deadline: Duration) -> Option<i32> {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code();
        }
        if start.elapsed() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// Runs every PtyByName script `runs` times in all (round robin, TERMIC_PTY
/// alternating between the flipping link and the path through the
/// flipping dir) and returns (runs that changed or created a regular file,
/// bytes that reached the pty, flips).
fn flip_race(scripts: &[(String, PathBuf)], runs: usize) -> (usize, usize, usize) {
    flip_race_judged(scripts, runs, Flipper::damage)
}

/// [`flip_race`] with `damage` saying what each run changed (and putting it
/// back): the runs where it was more than zero are counted.
fn flip_race_judged(
    scripts: &[(String, PathBuf)],
    runs: usize,
    damage: impl Fn(&Flipper) -> usize,
) -> (usize, usize, usize) {
    let tmp = tempfile::tempdir().unwrap();
    let pty = Pty::open();
    let flipper = Flipper::start(tmp.path(), &pty);
    let (mut damaged, mut seen) = (0, Vec::new());
    for i in 0..runs {
        let (name, script) = &scripts[i % scripts.len()];
        let target = if i % 2 == 0 {
            &flipper.link
        } else {
            &flipper.via_dir
        };
        run_once(script, target, name);
        if damage(&flipper) > 0 {
            damaged += 1;
        }
        pty.read_now(&mut seen);
    }
    let flips = flipper.finish();
    // Not a wait for one event: whatever a hook wrote late reaches the PTY
    // in this window, and all of it is judged.
    std::thread::sleep(Duration::from_millis(100));
    pty.read_now(&mut seen);
    (damaged, seen.len(), flips)
}

#[test]
fn a_flipping_termic_pty_never_gets_a_regular_file_created_or_changed_by_a_sh_hook() {
    let tmp = tempfile::tempdir().unwrap();
    let scripts: Vec<(String, PathBuf)> = pty_scripts()
        .into_iter()
        .map(|(name, reg)| {
            let path = write_script(tmp.path(), &name, &reg.script.render());
            (name, path)
        })
        .collect();
    let runs = 1000;
    let (damaged, pty_bytes, flips) = flip_race(&scripts, runs);
    eprintln!(
        "{runs} runs over {} scripts: {damaged} changed or created a regular file, \
         {pty_bytes} bytes reached the pty, {flips} flips",
        scripts.len()
    );
    assert_eq!(damaged, 0, "a hook wrote through a swapped TERMIC_PTY");
    // The race was real: the scripts did write when the name was the pty.
    assert!(pty_bytes > 0, "no run ever reached the pty");
    assert!(flips > runs, "the flipper barely ran ({flips} flips)");
}

#[test]
fn without_proc_the_fallback_open_still_never_changes_a_regular_file() {
    // Systems without /proc/self/fd take the other branch (open read-write,
    // never O_TRUNC, check the opened fd): forced here by naming a /proc
    // dir that does not exist. It may create an empty file at a dangling
    // name (O_CREAT, documented) but never changes an existing one.
    let tmp = tempfile::tempdir().unwrap();
    let scripts: Vec<(String, PathBuf)> = pty_scripts()
        .into_iter()
        .take(4)
        .map(|(name, reg)| {
            let text = reg.script.render();
            assert!(text.contains("if [ -d /proc/self/fd ]; then"));
            let text = text.replace("[ -d /proc/self/fd ]", "[ -d /proc/self/no-such-dir ]");
            let path = write_script(tmp.path(), &name, &text);
            (name, path)
        })
        .collect();
    // An existing file changed is damage; an empty file created at the
    // dangling name is the documented fallback, one with bytes is not.
    let (changed, pty_bytes, _) = flip_race_judged(&scripts, 300, |flipper| {
        let mut changed = 0;
        for f in &flipper.files {
            if std::fs::read(f).unwrap() != KNOWN {
                changed += 1;
                std::fs::write(f, KNOWN).unwrap();
            }
        }
        if let Ok(bytes) = std::fs::read(&flipper.missing) {
            assert!(
                bytes.is_empty(),
                "the fallback wrote into a file it created"
            );
            let _ = std::fs::remove_file(&flipper.missing);
        }
        changed
    });
    assert_eq!(changed, 0);
    assert!(pty_bytes > 0, "the fallback branch never reached the pty");
}

/// A node driver: loads the plugin, fires `permission.asked` `runs` times,
/// `TERMIC_PTY` alternating between the two flipping names, and after each
/// call counts a changed regular file or a created dangling target.
const NODE_DRIVER: &str = r#"
import fs from "node:fs";
import { pathToFileURL } from "node:url";
const [plugin, link, viaDir, files, missing, runs, known] = process.argv.slice(2);
const mod = await import(pathToFileURL(plugin).href);
const hooks = await mod.TermicPlugin({ directory: "/x", worktree: "/x", client: {} });
let damaged = 0;
for (let i = 0; i < Number(runs); i++) {
  process.env.TERMIC_PTY = i % 2 === 0 ? link : viaDir;
  await hooks.event({ event: { type: "permission.asked", properties: {} } });
  let bad = false;
  for (const f of files.split(":")) {
    let now = null;
    try { now = fs.readFileSync(f, "latin1"); } catch {}
    if (now !== known) { bad = true; fs.writeFileSync(f, known, "latin1"); }
  }
  try {
    fs.lstatSync(missing);
    bad = true;
    fs.rmSync(missing, { force: true });
  } catch {}
  if (bad) damaged++;
}
console.log(JSON.stringify({ damaged }));
"#;

#[test]
fn a_flipping_termic_pty_never_gets_a_regular_file_created_or_changed_by_the_opencode_plugin() {
    if Command::new("node").arg("--version").output().is_err() {
        // node is installed on the dev machines and in CI; say so loudly
        // rather than pass without testing.
        panic!("node is not on PATH: the opencode plugin cannot be tested");
    }
    let tmp = tempfile::tempdir().unwrap();
    let plugin = tmp.path().join("termic.mjs");
    std::fs::write(&plugin, termic_hooks::agents::opencode::plugin_source()).unwrap();
    let driver = tmp.path().join("driver.mjs");
    std::fs::write(&driver, NODE_DRIVER).unwrap();
    let pty = Pty::open();
    let root = tempfile::tempdir().unwrap();
    let flipper = Flipper::start(root.path(), &pty);
    let runs = 2000;
    let files = flipper
        .files
        .iter()
        .map(|f| f.to_str().unwrap())
        .collect::<Vec<_>>()
        .join(":");
    let mut child = spawn_retrying(
        Command::new("node")
            .arg(&driver)
            .arg(&plugin)
            .arg(&flipper.link)
            .arg(&flipper.via_dir)
            .arg(&files)
            .arg(&flipper.missing)
            .arg(runs.to_string())
            .arg(std::str::from_utf8(KNOWN).unwrap())
            .env("TERMIC_TASK_ID", TASK)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    );
    // Drain the pty while node runs, so it never fills.
    let mut seen = Vec::new();
    let start = Instant::now();
    let code = loop {
        pty.read_now(&mut seen);
        if let Some(status) = child.try_wait().unwrap() {
            break status.code();
        }
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let out = child.wait_with_output().unwrap();
    flipper.finish();
    // Not a wait for one event: whatever a hook wrote late reaches the PTY
    // in this window, and all of it is judged.
    std::thread::sleep(Duration::from_millis(100));
    pty.read_now(&mut seen);
    assert_eq!(
        code,
        Some(0),
        "node: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    eprintln!(
        "{runs} plugin writes: {summary}, {} bytes reached the pty",
        seen.len()
    );
    assert_eq!(
        summary["damaged"], 0,
        "the plugin wrote through a swapped TERMIC_PTY"
    );
    assert!(!seen.is_empty(), "the plugin never reached the pty");
}

/// Every process of session `sid` still alive (not a zombie).
fn session_members(sid: u32) -> Vec<(u32, String)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let Some((head, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        // rest: state ppid pgrp session ...
        let zombie = matches!(fields.first(), Some(&"Z" | &"X"));
        if !zombie && fields.get(3).and_then(|s| s.parse::<u32>().ok()) == Some(sid) {
            out.push((pid, head.split_once('(').map_or("", |(_, c)| c).to_string()));
        }
    }
    out
}

/// How a hook may be started: what its signal disposition is.
#[derive(Clone, Copy, Debug)]
enum Disposition {
    /// SIGTERM ignored (an agent that starts hooks so).
    TermIgnored,
    /// Every catchable signal ignored (TERM, INT, HUP, CHLD, PIPE, ALRM...).
    AllIgnored,
    /// Every catchable signal but SIGCHLD blocked in the inherited mask.
    /// (A blocked SIGCHLD stalls the `wait` builtin of dash and busybox ash
    /// for a child still running: a shell cannot unblock a signal, so that
    /// one mask is out of the scripts' reach; docs/decisions.md.)
    AllButChldBlocked,
}

/// Runs `script` as the leader of a new session with `disp`, a payload on a
/// stdin that is never closed, and `pty` (full, unread) as TERMIC_PTY.
/// Returns (exit code, time, processes of its session left when it ended).
fn run_hostile(
    script: &Path,
    pty: &Pty,
    disp: Disposition,
) -> (Option<i32>, Duration, Vec<(u32, String)>) {
    let mut cmd = Command::new(script);
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap())
        .env("TERMIC_TASK_ID", TASK)
        .env("TERMIC_PTY", &pty.slave_path)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // SAFETY: setsid, signal and sigprocmask are async-signal-safe; nothing
    // else runs in the child before exec.
    unsafe {
        cmd.pre_exec(move || {
            libc::setsid();
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            for sig in 1..libc::SIGRTMIN() {
                if sig == libc::SIGKILL || sig == libc::SIGSTOP {
                    continue;
                }
                match disp {
                    Disposition::TermIgnored => {
                        if sig == libc::SIGTERM {
                            libc::signal(sig, libc::SIG_IGN);
                        }
                    }
                    Disposition::AllIgnored => {
                        libc::signal(sig, libc::SIG_IGN);
                    }
                    Disposition::AllButChldBlocked => {
                        if sig != libc::SIGCHLD {
                            libc::sigaddset(&mut set, sig);
                        }
                    }
                }
            }
            libc::sigprocmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
            Ok(())
        });
    }
    let start = Instant::now();
    let mut child = spawn_retrying(&mut cmd);
    let sid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    // Part of a payload, then nothing: stdin stays open until we return.
    let _ = stdin.write_all(br#"{"notificationType":"permission_prompt","#);
    let code = wait_bounded(&mut child, Duration::from_secs(15));
    let took = start.elapsed();
    let left = session_members(sid);
    drop(stdin);
    for (pid, _) in &left {
        // SAFETY: a plain kill of a pid found in this test's own session.
        unsafe { libc::kill(*pid as i32, libc::SIGKILL) };
    }
    (code, took, left)
}

#[test]
fn a_hook_with_signals_ignored_or_blocked_a_stdin_never_closed_and_a_full_pty_ends_in_its_bound_and_leaves_nothing(
) {
    // The documented bounds: the payload read (PAYLOAD_MAX_SECONDS) then the
    // pty write (PTY_WRITE_MAX_SECONDS), plus fork/exec slack on a loaded
    // 2-core machine. Without a payload, the write alone.
    let write: f64 = PTY_WRITE_MAX_SECONDS.parse().unwrap();
    let slack = 1.5;
    let tmp = tempfile::tempdir().unwrap();
    let mut scripts = Vec::new();
    for schema in AgentSchema::all() {
        for reg in schema.adapter().registrations() {
            let name = format!("{} {}", schema.id(), reg.event);
            let path = write_script(tmp.path(), &name, &reg.script.render());
            let reads = reg.script.render().contains("payload()");
            scripts.push((name, path, reads));
        }
    }
    let results = std::sync::Mutex::new(Vec::new());
    // Every script at once (the runs that read stdin wait out the payload
    // bound), one disposition after the other.
    for disp in [
        Disposition::TermIgnored,
        Disposition::AllIgnored,
        Disposition::AllButChldBlocked,
    ] {
        std::thread::scope(|s| {
            for (name, path, reads) in &scripts {
                let results = &results;
                s.spawn(move || {
                    let pty = Pty::open();
                    assert!(pty.fill() > 0, "the pty took no bytes");
                    let (code, took, left) = run_hostile(path, &pty, disp);
                    let bound = if *reads {
                        f64::from(PAYLOAD_MAX_SECONDS) + write + slack
                    } else {
                        write + slack
                    };
                    results.lock().unwrap().push((
                        format!("{name} {disp:?}"),
                        code,
                        took,
                        bound,
                        left,
                    ));
                });
            }
        });
    }
    let results = results.into_inner().unwrap();
    let mut failures = Vec::new();
    let mut worst = (Duration::ZERO, Duration::ZERO);
    for (name, code, took, bound, left) in &results {
        if code != &Some(0) || took.as_secs_f64() >= *bound || !left.is_empty() {
            failures.push(format!(
                "{name}: exit {code:?} after {took:?} (bound {bound} s), left {left:?}"
            ));
        }
        let w = if *bound > 2.0 {
            &mut worst.0
        } else {
            &mut worst.1
        };
        *w = (*w).max(*took);
    }
    eprintln!(
        "{} runs; worst with a payload {:?}, without {:?}",
        results.len(),
        worst.0,
        worst.1
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
