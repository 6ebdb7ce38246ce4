//! `termic hosts add|rm|ls`: the remote machines of config.toml's [hosts]
//! (issue 29), reached through the user's own ssh.

use std::process::ExitCode;

use anyhow::Result;
use clap::Subcommand;
use serde::Serialize;

use crate::config::hosts::HostDef;
use crate::config::Config;
use crate::paths::TermicPaths;
use crate::printed::{clean_line, out, outln};
use crate::server::protocol::{Request, Response};
use crate::server::remote;

#[derive(Debug, Subcommand)]
pub enum HostsCommand {
    /// Add a host to config.toml: a machine reached with your own ssh.
    ///
    /// termic runs `ssh -T -o BatchMode=yes DESTINATION termic server bridge`
    /// there, so your keys, ssh-agent, ~/.ssh/config, ProxyJump and
    /// ControlMaster apply. A password or host key prompt is an error, not
    /// a wait: set up a key first (ssh-copy-id) and connect once with ssh.
    #[command(
        after_help = "Examples:\n  termic hosts add devbox me@devbox.example.com\n  \
termic hosts add gpu gpu-vm   (a Host of ~/.ssh/config)\n\n\
Exit codes: 0 added, 1 error (a name already used, a destination starting with -, config.toml does not load)."
    )]
    Add {
        /// The name `--host` and HOST:TASK use: letters, digits, - and _.
        name: String,
        /// What you give ssh: user@box, box, or a Host of ~/.ssh/config.
        destination: String,
    },
    /// Remove a host from config.toml (its tasks keep running there).
    #[command(
        after_help = "A running termic server drops its link to the host at once.\n\n\
Examples:\n  termic hosts rm devbox\n\n\
Exit codes: 0 removed, 1 error (no host of that name, config.toml does not load)."
    )]
    Rm {
        /// The host's name, as `hosts ls` lists it.
        name: String,
    },
    /// Each host: reachable or not, its termic version, its task count.
    #[command(
        after_help = "Each host is asked at once, through ssh; one that does not answer \
within 20 s is listed as unreachable.\n\n\
With --json: one array of objects with name, destination, reachable, version, tasks, error.\n\n\
Examples:\n  termic hosts ls\n  termic hosts ls --json\n\n\
Exit codes: 0 listed (also when a host is unreachable), 1 error (config.toml does not load)."
    )]
    Ls {
        /// Print JSON for scripts.
        #[arg(long)]
        json: bool,
    },
}

pub fn run(cmd: HostsCommand) -> Result<ExitCode> {
    let paths = TermicPaths::from_env()?;
    match cmd {
        HostsCommand::Add { name, destination } => {
            let path = Config::path_in(&paths.config_dir);
            crate::config::hosts::save_added(&path, &name, &destination)?;
            outln!(
                "Added host {name} ({destination}) to {}. Check it with `termic hosts ls`.",
                path.display()
            )?;
            tell_server(&paths)?;
            Ok(ExitCode::SUCCESS)
        }
        HostsCommand::Rm { name } => {
            let path = Config::path_in(&paths.config_dir);
            crate::config::hosts::save_removed(&path, &name)?;
            outln!("Removed host {name} from {}.", path.display())?;
            tell_server(&paths)?;
            Ok(ExitCode::SUCCESS)
        }
        HostsCommand::Ls { json } => {
            let config = Config::load(&paths.config_dir)?;
            let status = ask_all(&config.hosts);
            if json {
                outln!("{}", crate::printed::json_text(&status)?)?;
            } else if status.is_empty() {
                outln!("No hosts. Add one with `termic hosts add NAME user@box`.")?;
            } else {
                out!("{}", table(&status))?;
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// A running server reads `[hosts]` again (`reload_hosts`), so a host
/// added links and one removed unlinks now, attached or not. No server
/// running: nothing to tell (the next one reads the file as it starts).
fn tell_server(paths: &TermicPaths) -> Result<()> {
    use crate::server::client::{connect, Connected, Start};
    let said = match connect(paths, Start::Never) {
        Ok(None) => return Ok(()),
        Ok(Some(Connected::Ready(mut client))) => match client.request(&Request::ReloadHosts) {
            Ok(Response::HostsReloaded { .. }) => "The running termic server follows it now.".into(),
            Ok(other) => format!(
                "The running termic server did not read it ({}): it will when a workspace attaches.",
                crate::server::protocol::unexpected("it", &other)
            ),
            Err(e) => format!(
                "The running termic server did not read it ({e}): it will when a workspace attaches."
            ),
        },
        Ok(Some(Connected::Mismatch { .. })) => {
            "The running termic server is another version: it reads the hosts when it starts again."
                .into()
        }
        Err(e) => format!("Could not tell the running termic server ({}).", crate::printed::error_text(&e)),
    };
    outln!("{}", clean_line(&said))?;
    Ok(())
}

/// What `hosts ls` says of one host.
#[derive(Debug, Clone, Serialize)]
pub struct HostStatus {
    pub name: String,
    pub destination: String,
    pub reachable: bool,
    pub version: Option<String>,
    pub tasks: Option<usize>,
    pub error: Option<String>,
}

/// Every host asked at once, each within [`super::run_detached::HOST_DEADLINE`].
pub fn ask_all(hosts: &[HostDef]) -> Vec<HostStatus> {
    let asks: Vec<_> = hosts
        .iter()
        .cloned()
        .map(|h| {
            std::thread::spawn(move || {
                let answer = remote::with_host(&h, Some(super::run_detached::HOST_DEADLINE), |r| {
                    match r.request(&Request::List)? {
                        Response::Tasks(rows) => Ok((r.version.clone(), rows.len())),
                        other => Err(crate::server::protocol::unexpected(
                            &format!("host {}", r.host),
                            &other,
                        )),
                    }
                });
                let (reachable, version, tasks, error) = match answer {
                    Ok((v, n)) => (true, Some(v), Some(n), None),
                    Err(e) => (false, None, None, Some(crate::printed::error_text(&e))),
                };
                HostStatus {
                    name: h.name,
                    destination: h.destination,
                    reachable,
                    version,
                    tasks,
                    error,
                }
            })
        })
        .collect();
    asks.into_iter().filter_map(|t| t.join().ok()).collect()
}

/// The human table (pure). Remote text (a version, ssh's words) is cleaned.
pub fn table(status: &[HostStatus]) -> String {
    let mut cells = vec![[
        "HOST".to_owned(),
        "DESTINATION".into(),
        "STATE".into(),
        "VERSION".into(),
        "TASKS".into(),
    ]];
    for s in status {
        cells.push([
            s.name.clone(),
            clean_line(&s.destination).into_owned(),
            if s.reachable {
                "reachable".into()
            } else {
                format!(
                    "unreachable: {}",
                    clean_line(s.error.as_deref().unwrap_or("no answer"))
                )
            },
            s.version
                .as_deref()
                .map_or_else(|| "-".into(), |v| clean_line(v).into_owned()),
            s.tasks.map_or_else(|| "-".into(), |n| n.to_string()),
        ]);
    }
    super::ls::aligned(&cells)
}
