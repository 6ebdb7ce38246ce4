//! Real agents against a failing model API (HTTP 429, 500, 529, 401): which
//! hook fires, what native status, title and screen say, how many requests
//! the agent makes and when it gives up. `measure_api_errors` prints one
//! block per cell (TERMIC_ERROR_CELLS=claude:429,grok:401 picks cells); the
//! asserting tests pin what termic's profiles rely on. Opt-in like the rest
//! of the real-agent suite.

use std::time::Duration;

use termic_fakemodel::agents::Agent;
use termic_fakemodel::drive::{AgentRun, RunOptions};
use termic_fakemodel::pty::now_ms;
use termic_fakemodel::suite::{begin, SEC};
use termic_fakemodel::{ApiFailure, ScenarioName};

const FAILURES: [ApiFailure; 5] = [
    ApiFailure::RateLimited,
    ApiFailure::ServerError,
    ApiFailure::Overloaded,
    ApiFailure::AuthFailed,
    ApiFailure::UsageLimit,
];

/// What one agent did after one failing prompt.
struct ErrorCell {
    agent: Agent,
    failure: ApiFailure,
    /// Model requests (not the model list), ms after Enter.
    requests: Vec<f64>,
    /// Hooks fired after Enter: (ms, event, payload).
    hooks: Vec<(f64, String, String)>,
    native: Vec<(f64, String)>,
    titles: Vec<(f64, String)>,
    bells: Vec<f64>,
    /// Non-empty screen rows at the end.
    screen: Vec<String>,
    /// Last request or state change, ms after Enter: when it gave up.
    settled_ms: f64,
}

fn codex_default_retries(home: &std::path::Path) {
    let path = home.join(".codex/config.toml");
    let text = std::fs::read_to_string(&path).expect("codex config");
    let kept: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with("request_max_retries") && !l.starts_with("stream_max_retries"))
        .collect();
    std::fs::write(&path, kept.join("\n") + "\n").expect("codex config");
}

fn screen_rows(run: &AgentRun) -> Vec<String> {
    let mut parser = vt100::Parser::new(
        std::num::NonZero::new(40).unwrap(),
        std::num::NonZero::new(120).unwrap(),
        0,
    );
    parser.process(&run.pty.output());
    parser
        .screen()
        .rows(0, 120)
        .map(|r| r.trim_end().to_string())
        .filter(|r| !r.trim().is_empty())
        .collect()
}

/// Prompts once and watches until nothing new (request, hook, native state,
/// title other than a spinner frame) happened for `quiet`, or `cap` passed.
fn run_cell(agent: Agent, failure: ApiFailure, quiet: Duration, cap: Duration) -> ErrorCell {
    let (cache, _one) = begin();
    // Claude retries 429/500/529 ten times over ~3 minutes by default;
    // CLAUDE_CODE_MAX_RETRIES (read by 2.1.332) shortens that for a cell.
    let env = match std::env::var("TERMIC_ERROR_CLAUDE_RETRIES") {
        Ok(n) if agent == Agent::Claude => vec![("CLAUDE_CODE_MAX_RETRIES".to_string(), n)],
        _ => Vec::new(),
    };
    let opts = RunOptions {
        probe: agent == Agent::Claude,
        recorder: true,
        env,
        // The harness config sets Codex's retries to 0; this measures its
        // own defaults instead.
        before_spawn: (agent == Agent::Codex
            && std::env::var_os("TERMIC_ERROR_CODEX_DEFAULT_RETRIES").is_some())
        .then_some(codex_default_retries as fn(&std::path::Path)),
        ..RunOptions::default()
    };
    let mut run = AgentRun::start(&cache, agent, ScenarioName::Fail(failure), opts)
        .expect("the agent starts and shows its UI");
    let t0 = run.prompt("say hello").unwrap();
    let signature = |run: &AgentRun| {
        let requests = run
            .server
            .requests()
            .iter()
            .filter(|e| e.api != "models" && e.ts_ms as f64 >= t0)
            .count();
        let natives = run.native_states(t0).len();
        let hooks = run.hooks().iter().filter(|h| h.ts_ms >= t0).count();
        (requests, natives, hooks)
    };
    let mut last = signature(&run);
    let mut last_change = now_ms();
    while now_ms() - last_change < quiet.as_secs_f64() * 1000.0
        && now_ms() - t0 < cap.as_secs_f64() * 1000.0
    {
        std::thread::sleep(Duration::from_millis(200));
        let now = signature(&run);
        if now != last {
            last = now;
            last_change = now_ms();
        }
    }
    let requests: Vec<f64> = run
        .server
        .requests()
        .iter()
        .filter(|e| e.api != "models" && e.ts_ms as f64 >= t0)
        .map(|e| e.ts_ms as f64 - t0)
        .collect();
    ErrorCell {
        agent,
        failure,
        requests,
        hooks: run
            .hooks()
            .into_iter()
            .filter(|h| h.ts_ms >= t0)
            .map(|h| {
                (
                    h.ts_ms - t0,
                    h.event,
                    h.payload.chars().take(1500).collect(),
                )
            })
            .collect(),
        native: run
            .native_states(t0)
            .into_iter()
            .map(|(t, s)| (t - t0, s))
            .collect(),
        titles: run
            .titles(t0)
            .into_iter()
            .map(|(t, s)| (t - t0, s))
            .collect(),
        bells: run
            .term_events()
            .iter()
            .filter(|e| e.kind == "bel" && e.ts_ms >= t0)
            .map(|e| e.ts_ms - t0)
            .collect(),
        screen: screen_rows(&run),
        settled_ms: last_change - t0,
    }
}

fn print_cell(cell: &ErrorCell) {
    eprintln!(
        "=== {} {} ===",
        cell.agent.name(),
        cell.failure.scenario_name()
    );
    let reqs: Vec<String> = cell.requests.iter().map(|t| format!("{t:.0}")).collect();
    eprintln!("requests ({}): {}", cell.requests.len(), reqs.join(" "));
    eprintln!("settled after {:.0} ms", cell.settled_ms);
    for (t, e, p) in &cell.hooks {
        eprintln!("hook {t:.0} {e} {p}");
    }
    for (t, s) in &cell.native {
        eprintln!("native {t:.0} {s}");
    }
    // Spinner frames repeat; keep the distinct titles with their first time.
    let mut seen: Vec<&str> = Vec::new();
    for (t, s) in &cell.titles {
        if !seen.contains(&s.as_str()) {
            seen.push(s);
            eprintln!("title {t:.0} {s}");
        }
    }
    eprintln!("bells {:?}", cell.bells);
    for row in &cell.screen {
        eprintln!("screen | {row}");
    }
}

fn selected_cells() -> Vec<(Agent, ApiFailure)> {
    let all = Agent::ALL
        .into_iter()
        .flat_map(|a| FAILURES.into_iter().map(move |f| (a, f)));
    match std::env::var("TERMIC_ERROR_CELLS") {
        Ok(list) => all
            .filter(|(a, f)| {
                // `claude:429` (every failure of that status) or
                // `claude:usage-limit` (one scenario).
                list.split(',').any(|c| {
                    c == format!("{}:{}", a.name(), f.status())
                        || c == format!("{}:{}", a.name(), f.scenario_name())
                })
            })
            .collect(),
        Err(_) => all.collect(),
    }
}

#[test]
#[ignore = "measurement: prints what each agent shows on each API error"]
fn measure_api_errors() {
    for (agent, failure) in selected_cells() {
        let cell = run_cell(
            agent,
            failure,
            Duration::from_secs(45),
            Duration::from_secs(260),
        );
        print_cell(&cell);
    }
    let _ = SEC;
}
