//! Issue 27, disk full: the event log and recordings hold whole records
//! only (a write that does not land is cut back and the file stops there),
//! `termic replay` reads a cut recording up to its last whole frame and says
//! where it ends, the user is told once, the server lives on, a server
//! start on a full disk fails at once saying so, and the files that may
//! hold what the user typed are 0600.
//!
//! The full disk is a 1 MiB tmpfs (root only: `.ci/run`'s fault step).

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::harness::{fake_agent_config, hook, Termic};
use crate::process_table::alive;
use crate::served::{text, Served};
use crate::wait::eventually_some;

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// Polls `check` until it gives a value; fails with `what` after `limit`.
fn poll<T>(what: &str, limit: Duration, check: impl FnMut() -> Option<T>) -> T {
    eventually_some(limit, check).unwrap_or_else(|| panic!("timed out after {limit:?}: {what}"))
}

/// The only `.cast` file in `dir`, once there is one.
fn the_cast(dir: &Path) -> PathBuf {
    poll(
        "a recording in the --record dir",
        Duration::from_secs(30),
        || {
            std::fs::read_dir(dir)
                .ok()?
                .filter_map(Result::ok)
                .map(|e| e.path())
                .find(|p| p.extension().is_some_and(|e| e == "cast"))
        },
    )
}

#[test]
fn the_event_log_and_recordings_are_created_0600() {
    // The usual umask, so a file created without an explicit mode would be
    // 0644 here (the server inherits it through the client).
    // SAFETY: umask cannot fail; 022 is what the other tests run with anyway.
    unsafe { libc::umask(0o022) };
    let s = Served::new(&format!("{}; sleep 600", hook("working", "")));
    let events = s.f.work.join("events.jsonl");
    let casts = s.f.work.join("casts");
    s.expect(
        &[
            "--event-log",
            events.to_str().unwrap(),
            "--record",
            casts.to_str().unwrap(),
            "--record-input",
            "run",
            "fake",
            "--name",
            "typed",
            "--detach",
        ],
        0,
    );
    let cast = the_cast(&casts);
    // The task's first transition is in the log: both files exist by now.
    poll("a line in the event log", Duration::from_secs(30), || {
        std::fs::read_to_string(&events)
            .ok()
            .filter(|t| t.contains("\"typed\""))
    });
    assert_eq!(mode(&cast), 0o600, "a recording may hold typed passwords");
    assert_eq!(mode(&events), 0o600, "the event log holds prompt text");
}

/// A tmpfs mounted for the test and unmounted however the test ends.
struct Tmpfs {
    mnt: PathBuf,
    _dir: tempfile::TempDir,
}

impl Tmpfs {
    fn mount(size: &str) -> Tmpfs {
        // SAFETY: geteuid cannot fail and touches no memory.
        let uid = unsafe { libc::geteuid() };
        assert_eq!(
            uid, 0,
            "this fault test mounts a tmpfs and needs root: run it through .ci/run's fault step"
        );
        let dir = tempfile::tempdir().unwrap();
        let mnt = dir.path().join("mnt");
        std::fs::create_dir(&mnt).unwrap();
        let status = Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={size},mode=0755"),
                "tmpfs",
            ])
            .arg(&mnt)
            .status()
            .expect("mount");
        assert!(
            status.success(),
            "cannot mount a tmpfs on {}",
            mnt.display()
        );
        Tmpfs { mnt, _dir: dir }
    }

    /// Bytes still free for a writer.
    fn free(&self) -> u64 {
        let path = std::ffi::CString::new(self.mnt.to_str().unwrap()).unwrap();
        // SAFETY: a zeroed statvfs is a valid out-parameter.
        let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
        assert_eq!(unsafe { libc::statvfs(path.as_ptr(), &mut st) }, 0);
        st.f_bavail * st.f_frsize
    }

    /// Fill what is left with a new file of zeros.
    fn fill(&self, name: &str) {
        let mut filler = std::fs::File::create_new(self.mnt.join(name)).unwrap();
        let block = vec![0u8; 4096];
        while filler.write(&block).is_ok_and(|n| n > 0) {}
        // A writer cutting back a torn page may free that page again.
        assert!(
            self.free() <= 4096,
            "the tmpfs is full: {} free",
            self.free()
        );
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let ok = Command::new("umount")
            .arg(&self.mnt)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            // Something still holds a file there: detach it anyway.
            let _ = Command::new("umount").arg("-l").arg(&self.mnt).status();
        }
    }
}

/// An agent that waits for `go`, then prints a flood of output and state
/// changes (working, needs you) until the disk is full, then goes on
/// changing state slowly.
fn flood_script() -> String {
    // Codex's own status reports (OSC 7501): each one is obeyed.
    let working = r"printf '\033]7501;state=working:app=codex\007'";
    let blocked = r"printf '\033]7501;state=blocked:app=codex:kind=permission\007'";
    [
        "while [ ! -e go ]; do sleep 0.1; done".to_string(),
        "big=$(printf '%01000d' 0)".into(),
        "i=0".into(),
        format!(
            "while [ $i -lt 1500 ]; do {working}; {blocked}; printf '%s\\n' \"$big\"; i=$((i+1)); done"
        ),
        format!("while :; do {working}; {blocked}; sleep 0.1; done"),
    ]
    .join("; ")
}

fn count(hay: &str, needle: &str) -> usize {
    hay.matches(needle).count()
}

#[test]
#[ignore = "needs root: .ci/run's fault step"]
fn a_full_disk_leaves_whole_records_tells_the_user_once_and_a_new_start_fails_fast() {
    let tmpfs = Tmpfs::mount("1m");
    let mut s = Served::new("");
    s.f.config(&fake_agent_config(&flood_script()).replace("\"claude\"", "\"codex\""));
    // The data dir (server.log, the socket), the event log and the
    // recordings all on the 1 MiB tmpfs.
    s.f.data_dir = tmpfs.mnt.join("data");
    std::fs::create_dir_all(&s.f.data_dir).unwrap();
    let events = tmpfs.mnt.join("events.jsonl");
    let casts = tmpfs.mnt.join("casts");
    let server_log = s.f.data_dir.join("server.log");
    s.expect(
        &[
            "--event-log",
            events.to_str().unwrap(),
            "--record",
            casts.to_str().unwrap(),
            "--record-input",
            "run",
            "fake",
            "--name",
            "flood",
            "--detach",
        ],
        0,
    );
    let server = s.server_pid();
    let cast = the_cast(&casts);
    // A client is attached when the disk fills up: it is told.
    let client = Termic::start(&s.f, &["attach", "flood"]);
    client.wait_text("flood");
    std::fs::write(s.f.work.join("go"), "").unwrap();

    let log = || std::fs::read_to_string(&server_log).unwrap_or_default();
    let recording_stopped = "Recording of flood stopped: the disk is full";
    poll(
        "the server saying the recording stopped",
        Duration::from_secs(90),
        || log().contains(recording_stopped).then_some(()),
    );
    client.wait_text(recording_stopped);
    // Whatever room the cut left, gone too: the event log's next line
    // cannot land.
    tmpfs.fill("filler");
    let log_stopped = format!(
        "The event log {} stopped: the disk is full",
        events.display()
    );
    let started = Instant::now();
    while !log().contains(&log_stopped) {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the server never said the event log stopped; {} bytes free; server.log:\n{}\nevent log tail:\n{}",
            tmpfs.free(),
            log(),
            std::fs::read_to_string(&events)
                .unwrap_or_default()
                .lines()
                .rev()
                .take(3)
                .collect::<Vec<_>>()
                .join("\n")
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    client.wait_text("stopped: the disk is full. The lines before are whole.");

    // Every event-log line is whole JSON; nothing glued, nothing torn.
    let lines = std::fs::read_to_string(&events).unwrap();
    assert!(lines.ends_with('\n'), "the log ends in a whole line");
    for line in lines.lines() {
        serde_json::from_str::<Value>(line)
            .unwrap_or_else(|e| panic!("a torn event-log line ({e}): {line:?}"));
    }
    assert!(
        lines.lines().count() >= 16,
        "the flood was logged until the disk filled"
    );

    // The recording holds whole frames only and replays, saying where it
    // ends.
    let frames = std::fs::read(&cast).unwrap();
    assert!(
        frames.len() > 100_000,
        "the flood filled the disk: {} bytes",
        frames.len()
    );
    assert_eq!(
        frames.last(),
        Some(&b'\n'),
        "the recording ends in a whole frame"
    );
    for line in String::from_utf8(frames.clone()).unwrap().lines() {
        serde_json::from_str::<Value>(line)
            .unwrap_or_else(|e| panic!("a torn recording frame ({e}): {line:?}"));
    }
    let replay = s.termic(&["replay", cast.to_str().unwrap()]);
    let err = text(&replay.stderr);
    assert_eq!(replay.status.code(), Some(0), "{err}");
    let whole_lines = frames.iter().filter(|&&b| b == b'\n').count();
    assert!(
        err.contains(&format!("line {} (byte {})", whole_lines + 1, frames.len())),
        "replay says where the recording ends: {err}"
    );

    // Told once each, however many writes failed since.
    let said = log();
    assert_eq!(count(&said, recording_stopped), 1, "{said}");
    assert_eq!(count(&said, &log_stopped), 1, "{said}");
    // The server lives on and answers.
    assert!(alive(server), "the server died on the full disk:\n{said}");
    let rows = s.ls();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["name"], "flood");
    assert_ne!(rows[0]["state"], "exited", "the agent runs on: {rows:?}");
    drop(client);

    // A new start on the full disk fails at once, saying so.
    s.expect(&["server", "stop"], 0);
    tmpfs.fill("more");
    start_fails_fast_saying_the_disk_is_full(&s);
    // A data dir never used before (no server.log yet): the server could
    // not write a byte, and a client once waited 15 s for it and then named
    // an empty log.
    s.f.data_dir = tmpfs.mnt.join("fresh");
    start_fails_fast_saying_the_disk_is_full(&s);
}

/// A start with the data dir on a full disk exits 1 within 5 s, naming it.
fn start_fails_fast_saying_the_disk_is_full(s: &Served) {
    let started = Instant::now();
    let out = s.termic(&["run", "--detach", "--name", "again", "--", "sleep", "60"]);
    let took = started.elapsed();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        took < Duration::from_secs(5),
        "a start on a full disk took {took:?}: {err}"
    );
    assert!(
        err.contains(&format!(
            "the disk holding {} is full",
            s.f.data_dir.display()
        )),
        "{err}"
    );
}

#[test]
fn a_torn_recording_replays_up_to_its_last_whole_frame_and_says_where() {
    let whole = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../termic-signal/tests/traces/agy-escape-no-hooks.cast"
    ))
    .unwrap();
    // Cut in the middle of a frame, as a full disk left it before.
    let at = 600;
    assert_ne!(whole[at - 1], b'\n');
    let dir = tempfile::tempdir().unwrap();
    let torn = dir.path().join("torn.cast");
    std::fs::write(&torn, &whole[..at]).unwrap();
    let boundary = whole[..at].iter().rposition(|&b| b == b'\n').unwrap() + 1;
    let line = whole[..boundary].iter().filter(|&&b| b == b'\n').count() + 1;

    let out = Command::new(env!("CARGO_BIN_EXE_termic"))
        .arg("replay")
        .arg(&torn)
        .output()
        .unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains(&format!(
            "recording cut at line {line} (byte {boundary}): replayed what came before"
        )),
        "{err}"
    );
    // What came before the cut is replayed: Enter, then output.
    let table = text(&out.stdout);
    assert!(table.contains("idle         working"), "{table}");
}

/// Every byte left on `tmpfs` taken by one-byte files (each holds a page),
/// so no new file can get a page: `names` of them, from `pad0`.
fn take_every_page(tmpfs: &Tmpfs) -> Vec<PathBuf> {
    let mut taken = Vec::new();
    for i in 0.. {
        let path = tmpfs.mnt.join(format!("pad{i}"));
        let Ok(mut f) = std::fs::File::create_new(&path) else {
            break;
        };
        taken.push(path.clone());
        if f.write_all(b"x").and_then(|()| f.sync_all()).is_err() {
            break;
        }
    }
    assert_eq!(tmpfs.free(), 0, "the tmpfs is full");
    taken
}

/// Issue 30: the paired devices and their push subscriptions on a full
/// disk. A revoke that cannot write devices.json fails saying which file,
/// leaves it and push-subscriptions.json byte for byte as they were and no
/// temp file; the next run reads the old list. With room again, the same
/// revoke removes the device and its subscriptions.
#[test]
#[ignore = "needs root: .ci/run's fault step"]
fn a_full_disk_leaves_the_web_devices_and_subscriptions_whole_and_says_so() {
    let tmpfs = Tmpfs::mount("1m");
    let mut s = Served::new("");
    s.f.data_dir = tmpfs.mnt.join("data");
    let web = s.f.data_dir.join("web");
    std::fs::create_dir_all(&web).unwrap();
    std::fs::set_permissions(&web, std::fs::Permissions::from_mode(0o700)).unwrap();
    let device = |n: u64, name: &str| {
        serde_json::json!({"number": n, "name": name, "hash": format!("{n:064x}"),
            "created": 1, "last_seen": 1, "read_only": false})
    };
    let sub = |n: u64| {
        serde_json::json!({"device": n.to_string(), "endpoint": format!("https://push.example/{n}"),
            "keys": {"p256dh": "BP", "auth": "au"}, "muted": [], "needs_you_only": false})
    };
    let devices = serde_json::to_vec_pretty(&[device(1, "Phone"), device(2, "Laptop")]).unwrap();
    let subs = serde_json::to_vec_pretty(&[sub(1), sub(2)]).unwrap();
    let (devices_path, subs_path) = (
        web.join("devices.json"),
        web.join("push-subscriptions.json"),
    );
    std::fs::write(&devices_path, &devices).unwrap();
    std::fs::write(&subs_path, &subs).unwrap();

    let pads = take_every_page(&tmpfs);
    let out = s.termic(&["web", "devices", "revoke", "1"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    let said = text(&out.stderr);
    assert!(
        said.contains(&format!("cannot write {}", devices_path.display()))
            && said.contains("No space left on device"),
        "{said}"
    );
    assert_eq!(std::fs::read(&devices_path).unwrap(), devices);
    assert_eq!(std::fs::read(&subs_path).unwrap(), subs);
    let names: Vec<String> = std::fs::read_dir(&web)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp"))
        .collect();
    assert!(names.is_empty(), "temp files left: {names:?}");
    let listed = s.expect(&["web", "devices"], 0);
    assert!(
        listed.contains("Phone") && listed.contains("Laptop"),
        "{listed}"
    );

    for pad in pads {
        std::fs::remove_file(pad).unwrap();
    }
    s.expect(&["web", "devices", "revoke", "1"], 0);
    let left: Value = serde_json::from_slice(&std::fs::read(&devices_path).unwrap()).unwrap();
    assert_eq!(left, serde_json::json!([device(2, "Laptop")]));
    let left: Value = serde_json::from_slice(&std::fs::read(&subs_path).unwrap()).unwrap();
    assert_eq!(left, serde_json::json!([sub(2)]));
}
