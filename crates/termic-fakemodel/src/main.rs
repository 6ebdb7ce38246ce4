//! `termic-fakemodel --scenario NAME`: runs the fake model server until
//! killed. Prints `PORT=<n>` as its first line so a caller can read the port.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use termic_fakemodel::{FakeModel, Scenario, ScenarioName, ServerConfig};

/// The usage line, every scenario named (from [`ScenarioName::ALL`]).
fn usage() -> String {
    let names: Vec<&str> = ScenarioName::ALL.iter().map(|s| s.as_str()).collect();
    format!(
        "usage: termic-fakemodel --scenario {} [--write-path ABS_PATH] [--log FILE.jsonl] \
         [--dump-dir DIR] [--slow-secs N] [--steps N]",
        names.join("|")
    )
}

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let mut scenario_name = None;
    let mut write_path = std::env::current_dir()?.join("out.txt");
    let (mut log_path, mut dump_dir, mut slow_secs, mut steps) = (None, None, None, None);
    while let Some(flag) = args.next() {
        let mut value = || {
            args.next()
                .with_context(|| format!("{flag} needs a value\n{}", usage()))
        };
        match flag.as_str() {
            "--scenario" => scenario_name = Some(value()?),
            "--write-path" => write_path = PathBuf::from(value()?),
            "--log" => log_path = Some(PathBuf::from(value()?)),
            "--dump-dir" => dump_dir = Some(PathBuf::from(value()?)),
            "--slow-secs" => {
                slow_secs = Some(
                    value()?
                        .parse::<f64>()
                        .context("--slow-secs takes seconds")?,
                )
            }
            "--steps" => steps = Some(value()?.parse::<usize>().context("--steps takes a count")?),
            "-h" | "--help" => {
                println!("{}", usage());
                return Ok(());
            }
            other => bail!("unknown argument {other:?}\n{}", usage()),
        }
    }
    let name = scenario_name.with_context(|| format!("--scenario is required\n{}", usage()))?;
    let name = ScenarioName::parse(&name)
        .with_context(|| format!("unknown scenario {name:?}\n{}", usage()))?;
    let mut scenario = Scenario::new(name, write_path);
    if let Some(secs) = slow_secs {
        scenario.slow_for = Duration::from_secs_f64(secs);
    }
    if let Some(steps) = steps {
        scenario.steps = steps;
    }
    let mut config = ServerConfig::new(scenario);
    config.log_path = log_path;
    config.dump_dir = dump_dir;
    let server = FakeModel::start(config)?;
    let mut stdout = std::io::stdout();
    writeln!(stdout, "PORT={}", server.port())?;
    stdout.flush()?;
    loop {
        std::thread::park();
    }
}
