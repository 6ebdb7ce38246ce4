//! The installed version of each agent whose hooks adapter has a version
//! gate (`<executable> --version`, bounded in time), for install and status.

use std::ffi::OsStr;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use termic_hooks::agents::AgentSchema;
use termic_hooks::plan::AgentVersions;

use super::detect::{find_on_path, is_executable_file};

/// Longest `--version` may take before termic stops waiting.
const VERSION_TIMEOUT: Duration = Duration::from_secs(3);

/// The versions of the gated agents among `schemas` that are on `path_var`.
pub fn probe(schemas: &[AgentSchema], path_var: &OsStr) -> AgentVersions {
    let found = schemas
        .iter()
        .filter_map(|s| {
            let gate = s.adapter().version_gate()?;
            let exe = find_on_path(gate.executable, path_var, is_executable_file)?;
            let out = run_bounded(&exe, &["--version"], VERSION_TIMEOUT)?;
            Some((s.id(), (gate.parse)(&out)?))
        })
        .collect();
    AgentVersions::measured(found)
}

fn run_bounded(exe: &Path, args: &[&str], limit: Duration) -> Option<String> {
    let mut child = Command::new(exe)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if start.elapsed() < limit => std::thread::sleep(Duration::from_millis(20)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    let mut out = String::new();
    child.stdout.take()?.read_to_string(&mut out).ok()?;
    Some(out)
}
