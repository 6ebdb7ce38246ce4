//! Hook to state change, in a container and on the host, in one run: the
//! same simulated agents on the latency bench scenario, host tasks and
//! Docker tasks side by side in one runtime, measured as `bench/latency.sh`
//! measures the host (from the bytes on the PTY, and from the hook's start).

use std::path::PathBuf;
use std::time::{Duration, Instant};
use termic_hooks::plan::AgentVersions;

use termic::agents::launch::{task_spec, LaunchRequest};
use termic::agents::{AgentDef, DockerOptions, Origin};
use termic_hooks::agents::AgentSchema;
use termic_hooks::apply;
use termic_hooks::plan::InstallFacts;
use termic_hooks::target::{AgentRef, InstallTarget};
use termic_runtime::{TaskId, TermSize};

use crate::docker_support::{image, mounts};
use crate::latency::{row, samples, sorted_samples, Probe, PROBES};
use crate::support::{no_native, Fixture, Session};

const FACTS: InstallFacts = InstallFacts {
    now_unix: 1_790_000_000,
    versions: AgentVersions::fixed(&[("claude", (2, 1, 332))]),
};

/// Claude (its own terminalSequence) and grok ($TERMIC_PTY, the mounted
/// slave inside the container): one probe per transport.
fn probes() -> [(Probe, Option<&'static str>); 4] {
    let [claude, grok, _] = PROBES;
    let [claude2, grok2, _] = PROBES;
    [
        (claude, None),
        (grok, None),
        (
            Probe {
                task: "claude-docker",
                ..claude2
            },
            Some("claude-box"),
        ),
        (
            Probe {
                task: "grok-docker",
                ..grok2
            },
            Some("grok-box"),
        ),
    ]
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

#[test]
#[ignore = "needs a Docker engine: run by .ci/run's Docker step"]
fn hook_to_badge_latency_in_a_container_and_on_the_host() {
    let Some(image) = image() else { return };
    let runs: usize = std::env::var("DOCKER_LATENCY_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(30);
    let fx = Fixture::new();
    fx.install(&[AgentSchema::CLAUDE, AgentSchema::GROK]);
    let s = Session::start(&fx, no_native());
    let load_before = load();
    let mut tasks: Vec<(Probe, PathBuf, TaskId)> = Vec::new();
    for (probe, docker_id) in probes() {
        let id = match docker_id {
            None => {
                s.rt.set_hooks_wired(probe.agent, true);
                let id = s.spawn(&fx, probe.task, probe.agent, "bench", probe.args);
                let trace_file = fx.trace_path(probe.task);
                tasks.push((probe, trace_file, id));
                continue;
            }
            Some(id) => id,
        };
        let agent_ref = AgentRef {
            id: id.to_owned(),
            base: Some(probe.agent.to_owned()),
        };
        let target = InstallTarget::docker(&agent_ref, &fx.paths(), &Default::default()).unwrap();
        apply::install(&target, &FACTS).unwrap();
        let trace_file = fx.project().join(format!("trace-{}.jsonl", probe.task));
        let mut args: Vec<String> = vec![probe.agent.into(), "bench".into()];
        args.extend(probe.args.iter().map(|a| a.to_string()));
        args.extend(["--trace".into(), trace_file.display().to_string()]);
        let def = AgentDef {
            id: id.to_owned(),
            command: vec!["termic-sim".into()],
            args,
            docker: Some(DockerOptions {
                image: image.clone(),
                args: mounts(),
            }),
            origin: Origin::Config,
            ..AgentDef::builtin(probe.agent).unwrap()
        };
        let data_dir = fx.paths().data_dir;
        let spec = task_spec(
            &def,
            &LaunchRequest {
                name: probe.task,
                cwd: fx.project(),
                size: TermSize {
                    rows: 40,
                    cols: 120,
                },
                data_dir: &data_dir,
                extra_args: &[],
            },
        );
        s.rt.set_hooks_wired(id, true);
        let task = s.rt.spawn(spec).unwrap();
        tasks.push((probe, trace_file, task));
    }
    let deadline = Instant::now() + Duration::from_secs(90);
    while Instant::now() < deadline {
        std::thread::sleep(Duration::from_secs(1));
        if tasks
            .iter()
            .all(|(p, t, id)| samples(&s, t, p, *id).0.len() >= runs)
        {
            break;
        }
    }
    println!("load average before: {load_before}, after: {}", load());
    println!("where      transport          agent    n    from bytes / hook exit (ms)  from hook start (ms)");
    println!(
        "                                            p50    p99    max          p50    p99    max"
    );
    for (p, t, id) in &tasks {
        let (bytes, start) = sorted_samples(&s, t, p, *id, runs);
        let place = if p.task.ends_with("-docker") {
            "container"
        } else {
            "host"
        };
        println!(
            "{place:<10} {:<18} {:<8} {:<4} {}       {}",
            p.transport,
            p.agent,
            bytes.len(),
            row(&bytes),
            row(&start)
        );
    }
}
