//! What every opt-in real-agent test starts with: the agents' cache dir from
//! TERMIC_REAL_AGENTS (set by .ci/run), and the lock that keeps one real
//! agent running at a time, so tests on 2 shared cores do not starve each
//! other's timings.

use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

pub const SEC: Duration = Duration::from_secs(1);

static ONE_AGENT_AT_A_TIME: Mutex<()> = Mutex::new(());

/// The cache `.ci/real-agents-install` filled. The real-agent tests are
/// `#[ignore]`d; running one on purpose without the agents installed is an
/// error, never a silent pass.
/// The panic names the test (the test harness prints the thread's name).
pub fn real_agents_cache() -> PathBuf {
    match std::env::var_os("TERMIC_REAL_AGENTS") {
        Some(dir) => PathBuf::from(dir),
        None => panic!("set TERMIC_REAL_AGENTS=<cache dir filled by .ci/real-agents-install>"),
    }
}

/// Holds the one-agent lock for as long as the guard lives (a test that
/// panicked before does not poison it for the rest).
pub fn one_agent_at_a_time() -> MutexGuard<'static, ()> {
    ONE_AGENT_AT_A_TIME
        .lock()
        .unwrap_or_else(|e| e.into_inner())
}

/// Variables a CI runner sets that make an agent give up its interactive UI.
/// Measured on Gemini CLI 0.61.0: with `CI=true` or `GITHUB_ACTIONS=true` it
/// prints "No input provided via stdin" and exits, no title, no prompt
/// (`CI=1`, `CI_TOKEN` and `CONTINUOUS_INTEGRATION` do not; the last is
/// removed too because the UI library's own check names it).
pub const CI_MARKERS: [&str; 3] = ["CI", "GITHUB_ACTIONS", "CONTINUOUS_INTEGRATION"];

/// The cache dir and the one-agent lock: the first line of every
/// real-agent test (`let (cache, _one) = suite::begin();`). It also removes
/// [`CI_MARKERS`] from this process's environment, which every agent and
/// every termic started by the test inherits: the suite runs in CI, the
/// agents under test must not know it.
pub fn begin() -> (PathBuf, MutexGuard<'static, ()>) {
    let one = one_agent_at_a_time();
    for name in CI_MARKERS {
        // Edition 2021: safe; the one-agent lock is held, and the tests run
        // one at a time (--test-threads 1), so no other test reads the env now.
        std::env::remove_var(name);
    }
    (real_agents_cache(), one)
}
