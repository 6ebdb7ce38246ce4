//! Gemini CLI, Qwen Code and GitHub Copilot CLI, no termic: what each pinned
//! agent puts on its terminal and which hooks it fires (and whether they run
//! with a controlling terminal) across a permission turn, as docs/gotchas.md
//! and termic-signal's profiles rely on. Each test prints its timeline
//! (times relative to the Enter that sent the prompt). Opt-in like
//! fakemodel/native.rs: TERMIC_REAL_AGENTS and --ignored.

use std::path::Path;
use std::time::Duration;

use termic_fakemodel::agents::Agent;
use termic_fakemodel::drive::{AgentRun, RunOptions};
use termic_fakemodel::pty::processes_with_home;
use termic_fakemodel::recorder::{self, HookRecord};
use termic_fakemodel::suite::{begin, SEC};
use termic_fakemodel::ScenarioName;

/// What one agent's permission turn showed.
struct Turn {
    run: AgentRun,
    /// Enter of the prompt, the approval key (unix ms).
    t0: f64,
    t_key: f64,
}

impl Turn {
    /// Starts `agent` with the recorder, asks for the file, waits for the
    /// hook named `blocked_hook`, holds the prompt 3 s, approves with
    /// Enter and waits for the hook named `done_hook` and the file.
    fn run(cache: &Path, agent: Agent, blocked_hook: &str, done_hook: &str) -> Turn {
        let options = RunOptions {
            recorder: true,
            ..RunOptions::default()
        };
        let mut run = AgentRun::start(cache, agent, ScenarioName::Write, options)
            .expect("the agent starts and shows its UI");
        // Qwen paints its title seconds before it takes input (SessionStart
        // comes 3-15 s later here); keys typed before that are lost.
        if let Some(event) = session_start(agent) {
            run.wait_hook(event, 0.0, 60 * SEC);
        }
        let t0 = run.prompt("create the file out.txt please").unwrap();
        if run.wait_hook(blocked_hook, t0, 90 * SEC).is_none() {
            dump(&run, t0);
            panic!("{}: no {blocked_hook}", agent.name());
        }
        // Paced like a person: a real agent can drop keys sent sooner
        // (termic's tests/real_agents_support/driven.rs).
        std::thread::sleep(3 * SEC);
        let t_key = run.answer(b"\r").unwrap();
        let done = run.wait_hook(done_hook, t_key, 60 * SEC);
        // Not a wait: late hooks would show up in this window.
        std::thread::sleep(2 * SEC);
        dump(&run, t0);
        assert!(done.is_some(), "{}: no {done_hook}", agent.name());
        assert!(
            run.project.join("out.txt").is_file(),
            "{} wrote the file",
            agent.name()
        );
        Turn { run, t0, t_key }
    }

    fn hook(&self, event: &str, since: f64) -> HookRecord {
        self.run
            .hooks()
            .into_iter()
            .find(|h| h.event == event && h.ts_ms >= since)
            .unwrap_or_else(|| panic!("{event} after {since}"))
    }

    /// The first title containing `part` at or after `since`.
    fn title(&self, part: &str, since: f64) -> (f64, String) {
        self.run
            .titles(since)
            .into_iter()
            .find(|(_, t)| t.contains(part))
            .unwrap_or_else(|| panic!("no title with {part:?}: {:?}", self.run.titles(since)))
    }

    /// Whether each recorded hook event could open /dev/tty.
    fn ctty(&self, event: &str) -> bool {
        recorder::ctty(&self.run.home)
            .into_iter()
            .find(|(_, e, _)| e == event)
            .unwrap_or_else(|| panic!("no ctty record for {event}"))
            .2
    }
}

/// The hook each agent fires once its session is up (Copilot's only at the
/// first prompt, so none to wait for).
fn session_start(agent: Agent) -> Option<&'static str> {
    match agent {
        Agent::Qwen | Agent::Gemini => Some("SessionStart"),
        _ => None,
    }
}

/// The timeline a person reads: titles, OSCs other than titles, BELs and
/// hooks, relative to `t0`.
fn dump(run: &AgentRun, t0: f64) {
    let mut lines: Vec<(f64, String)> = Vec::new();
    for (at, title) in run.titles(t0 - 60_000.0) {
        lines.push((at, format!("title {title:?}")));
    }
    for e in run.term_events() {
        if e.kind == "osc" && !matches!(e.code(), "0" | "1" | "2") {
            lines.push((e.ts_ms, format!("osc {:?}", e.body)));
        } else if e.kind == "bel" {
            lines.push((e.ts_ms, "BEL".to_string()));
        }
    }
    let ctty = recorder::ctty(&run.home);
    for h in run.hooks() {
        let tty = ctty
            .iter()
            .find(|(at, e, _)| *at == h.ts_ms && *e == h.event)
            .map_or("?", |(_, _, yes)| if *yes { "ctty" } else { "no ctty" });
        let payload: String = h.payload.chars().take(300).collect();
        lines.push((h.ts_ms, format!("hook {} ({tty}) {payload}", h.event)));
    }
    for r in run.server.requests() {
        lines.push((
            r.ts_ms as f64,
            format!("model {} {} -> {}", r.api, r.path, r.reply),
        ));
    }
    lines.sort_by(|a, b| a.0.total_cmp(&b.0));
    eprintln!("--- {} (ms from the prompt's Enter)", run.agent.name());
    for (at, line) in lines {
        eprintln!("{:>8.0} {line}", at - t0);
    }
}

/// Closes the agent as a pane close does (SIGHUP to the process group) and
/// reports whether anything under its HOME is left after `wait`.
fn left_after_hangup(run: &AgentRun, wait: Duration) -> Vec<i32> {
    let pgid = run.pty.pid() as libc::pid_t;
    // SAFETY: signalling the process group the run created.
    unsafe { libc::kill(-pgid, libc::SIGHUP) };
    let deadline = std::time::Instant::now() + wait;
    while std::time::Instant::now() < deadline {
        if processes_with_home(&run.home).is_empty() {
            return Vec::new();
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    processes_with_home(&run.home)
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_gemini_titles_and_hooks_across_a_permission_turn() {
    let (cache, _one) = begin();
    let turn = Turn::run(&cache, Agent::Gemini, "Notification", "AfterAgent");
    let (t0, t_key) = (turn.t0, turn.t_key);
    let working = turn.title("Working", t0);
    let blocked = turn.title("Action Required", t0);
    let ready = turn.title("Ready", t_key);
    let before = turn.hook("BeforeAgent", t0);
    let notification = turn.hook("Notification", t0);
    let after = turn.hook("AfterAgent", t_key);
    assert!(notification.payload.contains("\"ToolPermission\""));
    assert!(working.1.starts_with("✦  Working"), "{working:?}");
    assert!(blocked.1.starts_with("✋  Action Required"), "{blocked:?}");
    assert!(ready.1.starts_with("◇  Ready"), "{ready:?}");
    eprintln!(
        "gemini: BeforeAgent -> Working title {:.0} ms; Notification -> Action Required {:.0} ms; \
         AfterAgent -> Ready {:.0} ms",
        working.0 - before.ts_ms,
        blocked.0 - notification.ts_ms,
        ready.0 - after.ts_ms,
    );
    assert!(turn.ctty("BeforeAgent") && turn.ctty("AfterAgent"));
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_qwen_titles_and_hooks_across_a_permission_turn() {
    let (cache, _one) = begin();
    let turn = Turn::run(&cache, Agent::Qwen, "PermissionRequest", "Stop");
    let (t0, t_key) = (turn.t0, turn.t_key);
    let busy = turn.title("◐︎ Qwen", t0);
    let blocked = turn.title("✳︎ Qwen", t0);
    let idle = turn
        .run
        .titles(t_key)
        .into_iter()
        .rfind(|(_, t)| t.starts_with("Qwen - "))
        .expect("idle title after approval");
    let submit = turn.hook("UserPromptSubmit", t0);
    let permission = turn.hook("PermissionRequest", t0);
    let stop = turn.hook("Stop", t_key);
    eprintln!(
        "qwen: busy title -> UserPromptSubmit {:.0} ms; PermissionRequest -> ✳ title {:.0} ms; \
         Stop -> idle title {:.0} ms",
        submit.ts_ms - busy.0,
        blocked.0 - permission.ts_ms,
        idle.0 - stop.ts_ms,
    );
    assert!(!turn.ctty("PermissionRequest") && !turn.ctty("Stop"));
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_copilot_title_never_changes_across_a_permission_turn() {
    let (cache, _one) = begin();
    let turn = Turn::run(&cache, Agent::Copilot, "permissionRequest", "agentStop");
    let t0 = turn.t0;
    let titles: Vec<String> = turn.run.titles(t0).into_iter().map(|(_, t)| t).collect();
    assert!(
        titles.iter().all(|t| t.ends_with("GitHub Copilot")),
        "{titles:?}"
    );
    let submit = turn.hook("userPromptSubmitted", t0);
    let permission = turn.hook("permissionRequest", t0);
    let stop = turn.hook("agentStop", turn.t_key);
    eprintln!(
        "copilot: Enter -> userPromptSubmitted {:.0} ms, -> permissionRequest {:.0} ms; \
         approve -> agentStop {:.0} ms",
        submit.ts_ms - t0,
        permission.ts_ms - t0,
        stop.ts_ms - turn.t_key,
    );
    assert!(turn.ctty("permissionRequest") && turn.ctty("agentStop"));
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_more_agents_after_a_hangup() {
    // A measurement (docs/gotchas.md): prints what is left, asserts nothing.
    let (cache, _one) = begin();
    for agent in [Agent::Gemini, Agent::Qwen, Agent::Copilot] {
        for mid_turn in [false, true] {
            let options = RunOptions {
                slow_for: Some(60 * SEC),
                ..RunOptions::default()
            };
            let mut run = AgentRun::start(&cache, agent, ScenarioName::Slow, options)
                .expect("the agent starts");
            if mid_turn {
                run.prompt("count slowly").unwrap();
                if run.server.wait_for(60 * SEC, |e| !e.side).is_none() {
                    eprintln!("{}: the prompt never reached the model", agent.name());
                    continue;
                }
                // The hang-up must come mid-turn: a second into the answer (a time, like a
                // person's).
                std::thread::sleep(SEC);
            }
            let left = left_after_hangup(&run, 5 * SEC);
            eprintln!(
                "{} ({}): left 5 s after SIGHUP to its process group: {left:?}",
                agent.name(),
                if mid_turn {
                    "mid-turn"
                } else {
                    "at its prompt"
                }
            );
        }
    }
}

/// Gemini CLI with its own `general.enableNotifications` on.
fn gemini_notifications_on(home: &Path) {
    let path = home.join(".gemini/settings.json");
    let mut settings: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    settings["general"]["enableNotifications"] = serde_json::json!(true);
    std::fs::write(path, settings.to_string()).unwrap();
}

/// The notifications each agent prints across a permission turn: Gemini
/// with its notifications setting on, Qwen unfocused (it enables focus
/// reporting and rings only when unfocused) under termic's default
/// TERM_PROGRAM. Returns the notification-shaped events after the prompt.
fn notifications(agent: Agent, before_spawn: Option<fn(&Path)>, unfocus: bool) -> Vec<String> {
    let (cache, _one) = begin();
    let options = RunOptions {
        before_spawn,
        env: vec![("TERM_PROGRAM".to_string(), "iTerm.app".to_string())],
        ..RunOptions::default()
    };
    let mut run =
        AgentRun::start(&cache, agent, ScenarioName::Write, options).expect("the agent starts");
    let t0 = run.prompt("create the file out.txt please").unwrap();
    if unfocus {
        run.keys(b"\x1b[O").unwrap();
    }
    let blocked = run.wait(60 * SEC, |r| {
        r.titles(t0)
            .into_iter()
            .find(|(_, t)| t.contains("Action Required") || t.starts_with('\u{2733}'))
    });
    // Not a wait: the titles are observed while blocked, for this window.
    std::thread::sleep(3 * SEC);
    if unfocus {
        run.keys(b"\x1b[I").unwrap();
    }
    run.answer(b"\r").unwrap();
    run.wait(60 * SEC, |r| {
        r.project.join("out.txt").is_file().then_some(())
    });
    // Not a wait: late hooks and terminal events would show up in this window.
    std::thread::sleep(3 * SEC);
    dump(&run, t0);
    assert!(blocked.is_some(), "{} never blocked", agent.name());
    run.term_events()
        .into_iter()
        .filter(|e| e.ts_ms >= t0)
        .filter(|e| e.kind == "bel" || matches!(e.code(), "9" | "99" | "777"))
        .map(|e| format!("{:.0} {} {:?}", e.ts_ms - t0, e.kind, e.body))
        .collect()
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_gemini_notifications_when_enabled() {
    let events = notifications(Agent::Gemini, Some(gemini_notifications_on), false);
    eprintln!("gemini notifications: {events:#?}");
    assert!(
        events.iter().any(|e| e.contains("Approval required")),
        "{events:?}"
    );
}

#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_qwen_notifications_when_unfocused() {
    let events = notifications(Agent::Qwen, None, true);
    eprintln!("qwen notifications: {events:#?}");
    assert!(
        events.iter().any(|e| e.contains("needs your permission")),
        "{events:?}"
    );
}

/// Escape 2 s into a slow answer: what each agent paints and fires
/// (a measurement for docs/gotchas.md: prints, asserts nothing).
#[test]
#[ignore = "real agent CLI: .ci/run runs it with TERMIC_REAL_AGENTS set"]
fn real_more_agents_escape_mid_answer() {
    let (cache, _one) = begin();
    for agent in [Agent::Gemini, Agent::Qwen, Agent::Copilot] {
        let options = RunOptions {
            recorder: true,
            slow_for: Some(30 * SEC),
            ..RunOptions::default()
        };
        let mut run =
            AgentRun::start(&cache, agent, ScenarioName::Slow, options).expect("the agent starts");
        if let Some(event) = session_start(agent) {
            run.wait_hook(event, 0.0, 60 * SEC);
        }
        let t0 = run.prompt("count slowly").unwrap();
        run.server
            .wait_for(60 * SEC, |e| !e.side)
            .expect("the model request");
        // The Escape must land mid-answer: two seconds in (a time, like a person's).
        std::thread::sleep(2 * SEC);
        let t_esc = run.keys(b"\x1b").unwrap();
        // Not a wait: what the agent does after the Escape is observed for this window.
        std::thread::sleep(5 * SEC);
        dump(&run, t0);
        eprintln!("{}: Escape at {:.0} ms", agent.name(), t_esc - t0);
        for h in run.hooks().iter().filter(|h| h.ts_ms >= t_esc) {
            eprintln!("{} after Escape: {} {}", agent.name(), h.event, h.payload);
        }
        let closed = run
            .server
            .requests()
            .into_iter()
            .any(|r| !r.side && r.client_closed);
        eprintln!("{}: closed the stream: {closed}", agent.name());
    }
}
