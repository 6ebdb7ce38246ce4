//! `termic hooks status|install|remove --host NAME` (issue 29): the host's
//! own termic runs the verb over `ssh ... -- DEST 'TERMIC' hooks ...`, so
//! the files named and written are the host's. Install and remove show
//! the host's preview first (its `--dry-run`), ask here (or take
//! `--yes`), then run it there with `--yes`. What the host prints is data:
//! each line is cleaned of control and bidi characters before it is shown.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{anyhow, Result};

use super::{consent, HooksCommand};
use crate::printed::{errln, outln};
use crate::server::remote;

/// A host's hooks verb gets this long (its ssh then is killed).
pub const HOST_HOOKS_DEADLINE: Duration = Duration::from_secs(60);

/// ssh's own exit code for a connection it could not make.
const SSH_FAILED: i32 = 255;

pub fn run(cmd: &HooksCommand, name: &str) -> Result<u8> {
    let paths = crate::paths::TermicPaths::from_env()?;
    let hosts = crate::config::Config::load_lenient(&paths.config_dir).hosts;
    let host = remote::find_host(&hosts, name)?;
    match cmd {
        HooksCommand::Status(a) => {
            let mut args = vec!["hooks", "status"];
            if a.json {
                args.push("--json");
            }
            relay(host, &args)
        }
        HooksCommand::Install(a) => {
            let mut args = vec!["hooks", "install"];
            args.extend(a.common.agents.iter().map(String::as_str));
            if a.detected {
                args.push("--detected");
            }
            preview_then_write(host, args, a.common.dry_run, a.yes)
        }
        HooksCommand::Remove(a) => {
            let mut args = vec!["hooks", "remove"];
            args.extend(a.common.agents.iter().map(String::as_str));
            preview_then_write(host, args, a.common.dry_run, a.yes)
        }
    }
}

/// The host's `--dry-run` (its files and the diff of each), then, with
/// consent, the same verb with `--yes`.
fn preview_then_write(
    host: &crate::config::hosts::HostDef,
    args: Vec<&str>,
    dry_run: bool,
    yes: bool,
) -> Result<u8> {
    let mut preview = args.clone();
    preview.push("--dry-run");
    let code = relay(host, &preview)?;
    if code != 0 || dry_run {
        return Ok(code);
    }
    let question = format!("Write these files on {}?", host.name);
    if let Some(code) = consent(yes, &question, &format!("write them on {}", host.name))? {
        return Ok(code);
    }
    let mut write = args;
    write.push("--yes");
    relay(host, &write)
}

/// The remote command: the host's termic and `args`, each one quoted
/// shell word (pure).
pub fn remote_hooks_command(termic: &str, args: &[&str]) -> String {
    std::iter::once(termic)
        .chain(args.iter().copied())
        .map(remote::shell_quote)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Run `args` with the host's termic and print what it says (cleaned,
/// stdout to stdout, stderr to stderr): its exit code, or an error naming
/// the host when ssh could not connect or the host took too long.
fn relay(host: &crate::config::hosts::HostDef, args: &[&str]) -> Result<u8> {
    let argv = remote::ssh_argv_running(host, remote_hooks_command(&host.termic, args));
    let mut child = Command::new(remote::ssh_program())
        .args(argv)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| anyhow!("host {}: cannot run ssh: {e}", host.name))?;
    let mut stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    // Read both at once so neither pipe fills (1 MiB kept of each).
    let err_reader = std::thread::spawn(move || {
        let mut kept = Vec::new();
        let _ = (&mut stderr).take(1 << 20).read_to_end(&mut kept);
        let _ = std::io::copy(&mut stderr, &mut std::io::sink());
        kept
    });
    let out_reader = std::thread::spawn(move || {
        let mut kept = Vec::new();
        let _ = (&mut stdout).take(1 << 20).read_to_end(&mut kept);
        let _ = std::io::copy(&mut stdout, &mut std::io::sink());
        kept
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        if started.elapsed() > HOST_HOOKS_DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let out = out_reader.join().unwrap_or_default();
    let err = err_reader.join().unwrap_or_default();
    for line in String::from_utf8_lossy(&out).lines() {
        outln!("{}", crate::printed::clean_line(line))?;
    }
    let Some(status) = status else {
        return Err(anyhow!(
            "host {}: no answer within {} s; its ssh was stopped",
            host.name,
            HOST_HOOKS_DEADLINE.as_secs()
        ));
    };
    let said = String::from_utf8_lossy(&err);
    match status.code() {
        Some(SSH_FAILED) => {
            let said = crate::printed::clean_line(said.trim()).into_owned();
            Err(anyhow!(
                "host {}: cannot reach it: {said} (ssh runs with BatchMode=yes: set up a key, e.g. `ssh-copy-id`)",
                host.name
            ))
        }
        Some(127) => Err(anyhow!(
            "host {}: its termic was not found (install termic on the host, or set `termic = \"/path/to/termic\"` in its [hosts] section)",
            host.name
        )),
        code => {
            for line in said.lines() {
                errln!("{}", crate::printed::clean_line(line));
            }
            Ok(code.map_or(1, |c| u8::try_from(c).unwrap_or(1)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_word_of_the_remote_command_is_quoted() {
        assert_eq!(
            remote_hooks_command("/opt/my termic", &["hooks", "install", "claude", "--yes"]),
            "'/opt/my termic' 'hooks' 'install' 'claude' '--yes'"
        );
        assert_eq!(
            remote_hooks_command("termic", &["hooks", "remove", "x';rm -rf ~;'"]),
            r"'termic' 'hooks' 'remove' 'x'\'';rm -rf ~;'\'''"
        );
    }
}
