//! Shared helpers for the runtime integration tests (included with `mod`).

#![allow(dead_code)]

use std::ffi::OsString;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::Receiver;

pub use crate::wait::{eventually, eventually_some};
use termic_runtime::clock::SystemClock;
use termic_runtime::{
    Runtime, RuntimeConfig, RuntimeEvent, TaskId, TaskSpec, TaskStatus, TermSize,
};

/// Set in the child copy of a test binary that `in_a_child_with_env` runs.
const IN_CHILD: &str = "TERMIC_TEST_IN_CHILD";

/// For a test that needs its own process environment (setting it in this
/// process would race the binary's other tests, on other threads): false in
/// the test's first run, after running test `name` of `module` (its
/// `module_path!()`) again in a child copy of the test binary with `env`
/// added and asserting it passed there; true in that child, where the
/// test's body runs.
pub fn in_a_child_with_env(module: &str, name: &str, env: &[(&str, &str)]) -> bool {
    if std::env::var_os(IN_CHILD).is_some() {
        return true;
    }
    // The test's name as the test binary knows it: no crate name.
    let module = module.split_once("::").map_or("", |(_, m)| m);
    let test = format!("{module}::{name}");
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            test.as_str(),
            "--exact",
            "--test-threads",
            "1",
            "--nocapture",
        ])
        .env(IN_CHILD, "1")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "the child run of {test} failed:\n{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    false
}

pub fn runtime() -> (Runtime, Receiver<RuntimeEvent>) {
    Runtime::new(RuntimeConfig::default(), Arc::new(SystemClock::new()))
}

pub fn sh(name: &str, script: &str) -> TaskSpec {
    TaskSpec {
        name: name.to_owned(),
        agent: "shell".to_owned(),
        argv: vec!["sh".into(), "-c".into(), script.into()],
        cwd: std::env::temp_dir(),
        env: Vec::<(OsString, OsString)>::new(),
        profile: "generic".to_owned(),
        size: TermSize { rows: 24, cols: 80 },
        container: None,
    }
}

/// Wait until the task has exited (its `Exited` event was sent) and
/// return its code. Other tasks' events are left to their own waits.
pub fn wait_exit(
    rt: &Runtime,
    events: &Receiver<RuntimeEvent>,
    id: TaskId,
    timeout: Duration,
) -> Option<i32> {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(TaskStatus::Exited(code)) = rt.info(id).map(|i| i.status) {
            return code;
        }
        if Instant::now() > deadline {
            panic!("task {id:?} did not exit within {timeout:?}");
        }
        let _ = events.recv_timeout(Duration::from_millis(20));
    }
}

/// Poll the screen until `pred` holds (tests only; the runtime never polls).
pub fn wait_screen(
    rt: &Runtime,
    id: TaskId,
    timeout: Duration,
    pred: impl Fn(&str) -> bool,
) -> String {
    let screen = || rt.with_screen(id, |s| s.contents()).unwrap_or_default();
    eventually_some(timeout, || Some(screen()).filter(|text| pred(text))).unwrap_or_else(|| {
        panic!(
            "screen never matched within {timeout:?}; it shows:\n{}",
            screen()
        )
    })
}

/// Alive means present in /proc and not a zombie.
pub fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let rest = &stat[stat.rfind(')').unwrap() + 1..];
            rest.split_ascii_whitespace().next() != Some("Z")
        }
        Err(_) => false,
    }
}

pub fn wait_dead(pid: i32, timeout: Duration) -> bool {
    eventually(timeout, || !alive(pid))
}
