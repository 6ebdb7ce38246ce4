//! `termic server stop` (and the hidden `termic server run` a client starts
//! detached).

use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use clap::Subcommand;

use crate::paths::TermicPaths;
use crate::printed::outln;
use crate::server::client::{self, Connected, Start};
use crate::server::protocol::Request;

#[derive(Debug, Subcommand)]
pub enum ServerCommand {
    /// End every task of the server (their whole process trees) and the server.
    ///
    /// Every task gets SIGHUP and SIGTERM, then SIGKILL after a grace period;
    /// the command returns once the server and every task process are gone.
    #[command(after_help = "Examples:\n  termic server stop\n\n\
Exit codes: 0 stopped (or no server was running), 1 error.")]
    Stop,
    /// Run the server in the foreground (clients start it on demand).
    ///
    /// For debugging: `termic run --detach` starts the server by itself.
    #[command(
        hide = true,
        after_help = "Examples:\n  termic server run\n\n\
Exit codes: 0 the server ended, 1 error (another server runs)."
    )]
    Run,
    /// Join stdin and stdout to this user's termic server, byte for byte.
    ///
    /// What `ssh HOST termic server bridge` runs on a remote host, so a
    /// termic elsewhere reaches this one's tasks through your own ssh. The
    /// server is started when none runs. It ends when either side closes.
    #[command(
        after_help = "Examples:\n  termic server bridge   (what `ssh HOST termic server bridge` runs; termic does it for [hosts])\n\n\
Exit codes: 0 one side closed, 1 error (no server could be started)."
    )]
    Bridge,
}

/// How long `stop` waits for the server to be gone: its tasks get the kill
/// grace, then SIGKILL rounds.
const STOP_TIMEOUT: Duration = Duration::from_secs(30);

pub fn run(cmd: ServerCommand) -> Result<ExitCode> {
    let paths = TermicPaths::from_env()?;
    match cmd {
        ServerCommand::Run => {
            // Flattened with the hint: a start at the process limit names
            // `ulimit -u` in server.log, which the starting client shows.
            let status = crate::server::serve(paths)
                .map_err(|e| anyhow::anyhow!(crate::server::limits::with_hint(&e)))?;
            Ok(ExitCode::from(status))
        }
        ServerCommand::Stop => stop(&paths),
        ServerCommand::Bridge => crate::server::bridge::run(&paths),
    }
}

fn stop(paths: &TermicPaths) -> Result<ExitCode> {
    let pid = match client::connect(paths, Start::Never)? {
        None => {
            outln!("No termic server is running.")?;
            return Ok(ExitCode::SUCCESS);
        }
        Some(Connected::Ready(mut client)) => {
            client.request(&Request::Stop)?;
            client.server_pid
        }
        // Another version cannot be asked: SIGTERM ends its tasks the same
        // way (the server's signal handler), and the socket says its pid.
        Some(Connected::Mismatch { server_pid, .. }) => {
            // SAFETY: a signal to the pid the kernel vouched for (SO_PEERCRED),
            // of our own uid.
            unsafe {
                libc::kill(server_pid, libc::SIGTERM);
            }
            server_pid
        }
    };
    let start = Instant::now();
    while !termic_runtime::session::process_gone(pid) {
        if start.elapsed() > STOP_TIMEOUT {
            bail!(
                "the termic server (pid {pid}) is still running after {}s",
                STOP_TIMEOUT.as_secs()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    outln!("The termic server stopped; no task is left running.")?;
    Ok(ExitCode::SUCCESS)
}
