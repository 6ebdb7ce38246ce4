//! Drives one real agent through one scenario against the fake model and
//! prints a merged timeline (PTY OSCs and BELs, hook records, model
//! requests, keys) relative to the prompt's Enter. A measuring tool, not a
//! test: `cargo run -p termic-fakemodel --example real_agent_trace -- --help`.

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use termic_fakemodel::agents::Agent;
use termic_fakemodel::pty::{now_ms, processes_with_home, PtyOptions, PtySession};
use termic_fakemodel::trace::{escape, events};
use termic_fakemodel::{recorder, FakeModel, Scenario, ScenarioName, ServerConfig};

const USAGE: &str = "real_agent_trace --cache DIR --agent claude|opencode|grok|codex --scenario NAME \
[--probe] [--no-recorder] [--no-queries] [--approve KEYS] [--approve-delay SECS] [--escape-after SECS] \
[--after SECS] [--probe-delay-ms MS] [--exit KEYS] [--agent-arg A]... [--env K=V]... [--prompt TEXT] [--raw FILE] [--keep]";

struct Args {
    cache: PathBuf,
    agent: Agent,
    scenario: ScenarioName,
    probe: bool,
    probe_delay_ms: u64,
    exit: Option<String>,
    agent_args: Vec<String>,
    recorder: bool,
    queries: bool,
    approve: Option<String>,
    approve_delay: f64,
    escape_after: Option<f64>,
    after: f64,
    env: Vec<(String, String)>,
    prompt: String,
    raw: Option<PathBuf>,
    keep: bool,
}

/// The arguments, or `None` when `--help` printed the usage.
fn parse_args() -> Result<Option<Args>> {
    let mut it = std::env::args().skip(1);
    let mut a = Args {
        cache: PathBuf::from("/work/cache/agents"),
        agent: Agent::Claude,
        scenario: ScenarioName::Plain,
        probe: false,
        probe_delay_ms: 0,
        exit: None,
        agent_args: Vec::new(),
        recorder: true,
        queries: true,
        approve: None,
        approve_delay: 8.0,
        escape_after: None,
        after: 4.0,
        env: Vec::new(),
        prompt: "create the file out.txt please".to_string(),
        raw: None,
        keep: false,
    };
    while let Some(flag) = it.next() {
        let mut value = || it.next().with_context(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--cache" => a.cache = PathBuf::from(value()?),
            "--agent" => {
                let v = value()?;
                a.agent = *Agent::ALL
                    .iter()
                    .find(|x| x.name() == v)
                    .context("unknown agent")?;
            }
            "--scenario" => {
                a.scenario = ScenarioName::parse(&value()?).context("unknown scenario")?
            }
            "--probe" => a.probe = true,
            "--probe-delay-ms" => a.probe_delay_ms = value()?.parse()?,
            "--exit" => a.exit = Some(value()?),
            "--agent-arg" => a.agent_args.push(value()?),
            "--no-recorder" => a.recorder = false,
            "--no-queries" => a.queries = false,
            "--approve" => a.approve = Some(value()?),
            "--approve-delay" => a.approve_delay = value()?.parse()?,
            "--escape-after" => a.escape_after = Some(value()?.parse()?),
            "--after" => a.after = value()?.parse()?,
            "--env" => {
                let v = value()?;
                let (k, val) = v.split_once('=').context("--env takes K=V")?;
                a.env.push((k.to_string(), val.to_string()));
            }
            "--prompt" => a.prompt = value()?,
            "--raw" => a.raw = Some(PathBuf::from(value()?)),
            "--keep" => a.keep = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(None);
            }
            other => bail!("unknown argument {other}\n{USAGE}"),
        }
    }
    Ok(Some(a))
}

/// `\r`, `\e`, `\n` escapes; `,` separates key groups sent 1 s apart.
fn key_groups(spec: &str) -> Vec<Vec<u8>> {
    spec.split(',')
        .map(|g| {
            g.replace("\\r", "\r")
                .replace("\\e", "\x1b")
                .replace("\\n", "\n")
                .into_bytes()
        })
        .collect()
}

/// Distinct mode and query CSIs (`CSI ? ... h`, `CSI > ... u`, `CSI 6n`) in `bytes`.
fn startup_csis(bytes: &[u8]) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    let mut i = 0;
    while i + 1 < bytes.len() {
        if bytes[i] == 0x1b && bytes[i + 1] == b'[' {
            let start = i;
            let mut j = i + 2;
            while j < bytes.len() && !(0x40..=0x7e).contains(&bytes[j]) {
                j += 1;
            }
            if j < bytes.len() {
                let seq = &bytes[start..=j];
                let private = matches!(bytes.get(start + 2), Some(b'?' | b'>' | b'<' | b'='));
                if private || matches!(bytes[j], b'n' | b'c' | b'q' | b'u' | b'p') {
                    let text = escape(seq);
                    if !seen.contains(&text) {
                        seen.push(text);
                    }
                }
            }
            i = j;
        }
        i += 1;
    }
    seen
}

/// The payload without the fields every event repeats.
fn short_payload(payload: &str) -> String {
    let Ok(serde_json::Value::Object(mut map)) = serde_json::from_str::<serde_json::Value>(payload)
    else {
        return payload.to_string();
    };
    for key in [
        "session_id",
        "sessionId",
        "transcript_path",
        "transcriptPath",
        "cwd",
        "workspaceRoot",
        "prompt_id",
        "promptId",
        "timestamp",
    ] {
        map.remove(key);
    }
    serde_json::Value::Object(map).to_string()
}

fn main() -> Result<()> {
    let Some(args) = parse_args()? else {
        return Ok(());
    };
    let root = std::env::temp_dir().join(format!(
        "termic-trace-{}-{}",
        args.agent.name(),
        std::process::id()
    ));
    let (home, project) = (root.join("home"), root.join("proj"));
    std::fs::create_dir_all(&project)?;
    let mut scenario = Scenario::new(args.scenario, project.join("out.txt"));
    scenario.slow_for = Duration::from_secs(12);
    let mut config = ServerConfig::new(scenario);
    config.log_path = Some(root.join("requests.jsonl"));
    config.dump_dir = Some(root.join("bodies"));
    let server = FakeModel::start(config)?;
    let mut env = args
        .agent
        .prepare(&args.cache, &home, &project, &server.base_url())?;
    env.extend(args.env.iter().cloned());
    if args.recorder {
        recorder::install(args.agent, &home)?;
    }
    let mut command: Command = args.agent.command(&args.cache, &home, &project, &env);
    command.args(&args.agent_args);
    let options = PtyOptions {
        answer_status_probe: args.probe,
        status_probe_delay: Duration::from_millis(args.probe_delay_ms),
        answer_queries: args.queries,
        ..PtyOptions::default()
    };
    let t_spawn = now_ms();
    let mut pty = PtySession::spawn(command, options, Some(&home))?;
    // Every agent sets a window title once its UI is up; type only after it
    // and a quiet spell, or the prompt is lost (opencode takes ~14 s here).
    pty.wait_for(b"\x1b]0;", 0, Duration::from_secs(90))
        .context("the agent set no title")?;
    pty.wait_quiet(Duration::from_millis(2500), Duration::from_secs(12));
    let startup_len = pty.len();
    let mut keys: Vec<(f64, String)> = Vec::new();
    pty.send(args.prompt.as_bytes())?;
    std::thread::sleep(Duration::from_millis(400));
    let t0 = now_ms();
    pty.send(b"\r")?;
    keys.push((t0, "Enter (prompt)".to_string()));
    if let Some(secs) = args.escape_after {
        std::thread::sleep(Duration::from_secs_f64(secs));
        keys.push((now_ms(), "Escape".to_string()));
        pty.send(b"\x1b")?;
    }
    if let Some(spec) = &args.approve {
        let asked = server.wait_for(Duration::from_secs(60), |e| {
            !e.side && e.reply.starts_with("tool")
        });
        if asked.is_none() {
            eprintln!("no tool call was requested within 60 s");
        }
        std::thread::sleep(Duration::from_secs_f64(args.approve_delay));
        for group in key_groups(spec) {
            keys.push((now_ms(), format!("keys {}", escape(&group))));
            pty.send(&group)?;
            std::thread::sleep(Duration::from_secs(1));
        }
        server.wait_for(Duration::from_secs(60), |e| {
            !e.side && e.step >= 1 && e.finished_ms.is_some()
        });
    }
    std::thread::sleep(Duration::from_secs_f64(args.after));
    if let Some(spec) = &args.exit {
        for group in key_groups(spec) {
            keys.push((now_ms(), format!("keys {}", escape(&group))));
            pty.send(&group)?;
            std::thread::sleep(Duration::from_millis(700));
        }
        std::thread::sleep(Duration::from_secs(3));
    }
    let helpers = processes_with_home(&home).len();
    let output = pty.output();
    let chunks = pty.chunks();
    drop(pty);
    let leftover = processes_with_home(&home).len();

    println!(
        "# {} scenario={} probe={} spawn->prompt {:.0} ms",
        args.agent.name(),
        args.scenario.as_str(),
        args.probe,
        t0 - t_spawn
    );
    println!(
        "# start-up CSIs: {}",
        startup_csis(&output[..startup_len]).join(" ")
    );
    let mut lines: Vec<(f64, String)> = Vec::new();
    let mut last_title = String::new();
    for ev in events(&chunks) {
        let line = match (ev.kind, ev.code()) {
            ("bel", _) => "PTY  BEL".to_string(),
            (_, "0" | "1" | "2") => {
                if ev.payload() == last_title {
                    continue;
                }
                last_title = ev.payload().to_string();
                format!("PTY  title {:?}", ev.payload())
            }
            _ => format!(
                "PTY  OSC {}{}",
                escape(ev.body.as_bytes()),
                if ev.bel_terminated { "" } else { " (ST)" }
            ),
        };
        lines.push((ev.ts_ms, line));
    }
    const NOISE: &[&str] = &[
        "plugin.added",
        "catalog.updated",
        "reference.updated",
        "integration.updated",
        "message.part.updated",
        "message.part.delta",
        "file.watcher.updated",
        "lsp.updated",
        "session.diff",
    ];
    for rec in recorder::read(&home)
        .into_iter()
        .filter(|r| !NOISE.contains(&r.event.as_str()))
    {
        let payload: String = short_payload(&rec.payload).chars().take(260).collect();
        lines.push((
            rec.ts_ms,
            format!(
                "HOOK {} [{}] {payload}",
                rec.event,
                rec.grok_event.unwrap_or_default()
            ),
        ));
    }
    for req in server.requests() {
        lines.push((
            req.ts_ms as f64,
            format!(
                "SRV  {} {} side={} step={} user={:?} results={:?} -> {}",
                req.method,
                req.path,
                req.side,
                req.step,
                req.last_user,
                req.tool_results,
                req.reply
            ),
        ));
        if let Some(done) = req.finished_ms {
            lines.push((
                done as f64,
                format!(
                    "SRV  ..answer finished{}",
                    if req.client_closed {
                        " (client closed)"
                    } else {
                        ""
                    }
                ),
            ));
        }
    }
    lines.extend(keys.into_iter().map(|(t, k)| (t, format!("KEY  {k}"))));
    lines.sort_by(|a, b| a.0.total_cmp(&b.0));
    for (ts, line) in lines {
        println!("{:+9.0} {line}", ts - t0);
    }
    println!("# processes under the scratch HOME before kill: {helpers}, after: {leftover}");
    if let Some(raw) = &args.raw {
        std::fs::write(raw, &output)?;
    }
    if args.keep {
        println!("# kept {}", root.display());
    } else {
        let _ = std::fs::remove_dir_all(&root);
    }
    Ok(())
}
