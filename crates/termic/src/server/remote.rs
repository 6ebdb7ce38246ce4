//! A termic server on another machine, reached as a client through the
//! user's own `ssh` (issue 29): `ssh -T -o BatchMode=yes [ssh_args] -- DEST
//! 'TERMIC' server bridge`. The far side's `termic server bridge` joins the
//! ssh channel to that user's server socket, so what goes through is the
//! protocol of docs/protocol.md, hello first, unchanged.
//!
//! Nothing here opens a socket, parses an address or does crypto: ssh does
//! all of that, with the user's keys, agent, ~/.ssh/config, ProxyJump and
//! ControlMaster. The destination and every ssh argument are argv entries
//! (never a local shell); the one string a shell sees is the remote
//! command, which ssh hands to the remote user's login shell, so the
//! remote termic path is single-quoted there.

use std::ffi::OsString;
use std::io::{BufReader, BufWriter, Read};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};

use std::time::Duration;

use anyhow::{anyhow, bail, Result};

use super::protocol::{self, read_frame, write_frame, Request, Response, PROTOCOL};
use crate::config::hosts::HostDef;

/// How long ssh may take to set up the connection (its ConnectTimeout).
pub const CONNECT_TIMEOUT_SECS: u32 = 10;

/// How long a failed connection waits for the rest of ssh's stderr.
const STDERR_WAIT: Duration = Duration::from_secs(1);

/// How much of ssh's stderr is kept for the message (the rest is read and
/// dropped, so ssh never blocks on it).
const STDERR_KEEP: usize = 4096;

/// The `ssh` argv after the program name (pure). `-T`: no terminal on the
/// far side, the channel carries bytes; `BatchMode=yes`: a password or
/// host key prompt is a fast failure, never a hang; `--`: nothing after it
/// is read as an option, and the destination was checked not to start
/// with `-` anyway (config validation).
pub fn ssh_argv(host: &HostDef) -> Vec<OsString> {
    ssh_argv_running(host, remote_command(&host.termic))
}

/// [`ssh_argv`] with `command` as the remote command (a string the remote
/// user's login shell reads: quote every word of it, [`shell_quote`]).
pub fn ssh_argv_running(host: &HostDef, command: String) -> Vec<OsString> {
    let mut argv: Vec<OsString> = vec![
        "-T".into(),
        "-o".into(),
        "BatchMode=yes".into(),
        "-o".into(),
        format!("ConnectTimeout={CONNECT_TIMEOUT_SECS}").into(),
        "-o".into(),
        "ServerAliveInterval=15".into(),
    ];
    argv.extend(host.ssh_args.iter().map(OsString::from));
    argv.push("--".into());
    argv.push(host.destination.clone().into());
    argv.push(command.into());
    argv
}

/// The command the remote shell runs: `'TERMIC' server bridge` (pure).
pub fn remote_command(termic: &str) -> String {
    format!("{} server bridge", shell_quote(termic))
}

/// `s` as one POSIX shell word: single quotes, a `'` written `'\''` (pure).
pub fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Where a verb's TASK points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Local(String),
    Remote { host: String, task: String },
}

/// `HOST:TASK` when HOST is a configured host's name and TASK is not
/// empty; anything else is a local TASK, as before hosts existed (a local
/// task may have `:` in its name). Pure.
pub fn parse_target(arg: &str, hosts: &[HostDef]) -> Target {
    if let Some((host, task)) = arg.split_once(':') {
        if !task.is_empty() && hosts.iter().any(|h| h.name == host) {
            return Target::Remote {
                host: host.to_owned(),
                task: task.to_owned(),
            };
        }
    }
    Target::Local(arg.to_owned())
}

/// The configured host named `name`, or an error listing the names.
pub fn find_host<'h>(hosts: &'h [HostDef], name: &str) -> Result<&'h HostDef> {
    hosts.iter().find(|h| h.name == name).ok_or_else(|| {
        let known: Vec<&str> = hosts.iter().map(|h| h.name.as_str()).collect();
        if known.is_empty() {
            anyhow!("no host is named {name}: add one with `termic hosts add {name} user@box`")
        } else {
            anyhow!(
                "no host is named {name} (configured: {}); add one with `termic hosts add NAME user@box`",
                known.join(", ")
            )
        }
    })
}

/// A connection to a remote server that said hello.
pub struct Remote {
    pub host: String,
    destination: String,
    /// The remote termic's version (its welcome).
    pub version: String,
    input: BufReader<ChildStdout>,
    output: BufWriter<ChildStdin>,
    stderr: Arc<Mutex<Vec<u8>>>,
    /// Says when ssh's stderr ended (all it said is in `stderr`).
    stderr_done: mpsc::Receiver<()>,
}

/// The ssh process of a [`Remote`]: killed and reaped on drop, so no ssh
/// outlives the command (the far side's bridge then sees its stdin end).
pub struct SshProcess(Child);

impl Drop for SshProcess {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl SshProcess {
    pub fn pid(&self) -> u32 {
        self.0.id()
    }
}

/// Start ssh to `host` and say hello. Pure of terminals: ssh's stdin and
/// stdout are pipes, its stderr is kept (bounded) for the message.
pub fn connect(host: &HostDef) -> Result<(SshProcess, Remote)> {
    let (process, mut remote) = spawn(host)?;
    remote.hello()?;
    Ok((process, remote))
}

/// Start ssh to `host`; the hello is not said yet ([`Remote::hello`]).
pub(crate) fn spawn(host: &HostDef) -> Result<(SshProcess, Remote)> {
    spawn_program(&ssh_program(), host)
}

pub(crate) fn spawn_program(
    program: &std::ffi::OsStr,
    host: &HostDef,
) -> Result<(SshProcess, Remote)> {
    let mut child = Command::new(program)
        .args(ssh_argv(host))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| anyhow!("host {}: cannot run ssh: {e}", host.name))?;
    let stdin = child.stdin.take().expect("piped");
    let stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    let process = SshProcess(child);
    let kept = Arc::new(Mutex::new(Vec::new()));
    let keep = kept.clone();
    let (done_tx, stderr_done) = mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = [0u8; 1024];
        while let Ok(n @ 1..) = stderr.read(&mut buf) {
            let mut kept = keep.lock().unwrap_or_else(|e| e.into_inner());
            let room = STDERR_KEEP.saturating_sub(kept.len());
            kept.extend_from_slice(&buf[..n.min(room)]);
        }
        let _ = done_tx.send(());
    });
    let remote = Remote {
        host: host.name.clone(),
        destination: host.destination.clone(),
        version: String::new(),
        input: BufReader::new(stdout),
        output: BufWriter::new(stdin),
        stderr: kept,
        stderr_done,
    };
    Ok((process, remote))
}

/// `ssh`, or $TERMIC_SSH (a test's wrapper, or an ssh outside PATH).
pub(crate) fn ssh_program() -> OsString {
    std::env::var_os("TERMIC_SSH").unwrap_or_else(|| "ssh".into())
}

impl Remote {
    /// Say hello; the host's welcome, or an error naming the host and
    /// the fix.
    pub(crate) fn hello(&mut self) -> Result<()> {
        let said = write_frame(
            &mut self.output,
            &Request::Hello {
                protocol: PROTOCOL,
                version: env!("CARGO_PKG_VERSION").to_owned(),
                // The verbs show no start-up notice of the host's (tasks
                // its lost server left): quiet keeps it for a client that
                // shows it, the host's own workspace.
                quiet: true,
            },
        );
        let answer = read_frame::<Response>(&mut self.input);
        match answer {
            Ok(Response::Welcome { version, .. }) if said.is_ok() => {
                self.version = version;
                Ok(())
            }
            Ok(Response::Refused { message }) => bail!(
                "host {}: {message} (on the host: ssh {} termic server stop)",
                self.host,
                self.destination
            ),
            Ok(Response::Error { message }) => bail!("host {}: {message}", self.host),
            Ok(_) | Err(protocol::FrameError::Invalid(_)) => bail!(
                "host {}: its termic does not speak protocol {PROTOCOL}; install this termic version ({}) there",
                self.host,
                env!("CARGO_PKG_VERSION")
            ),
            Err(_) => bail!("{}", self.lost("cannot reach")),
        }
    }

    /// The message for a connection that ended: what ssh said, cleaned.
    fn lost(&self, what: &str) -> String {
        // ssh closed its stdout; its last words may still be on the way
        // (a second at most: it is exiting).
        let _ = self.stderr_done.recv_timeout(STDERR_WAIT);
        let said = self.stderr.lock().map(|b| b.clone()).unwrap_or_default();
        let said = String::from_utf8_lossy(&said);
        let said = crate::printed::clean_line(said.trim()).into_owned();
        let fix = if said.contains("ermission denied") || said.contains("Host key verification") {
            " (ssh runs with BatchMode=yes: set up a key, e.g. `ssh-copy-id`, and accept the host key once with plain `ssh`)"
        } else if said.contains("not found") || said.contains("No such file") {
            " (install termic on the host, or set `termic = \"/path/to/termic\"` in its [hosts] section)"
        } else {
            ""
        };
        if said.is_empty() {
            format!("host {}: {what} it: the connection closed", self.host)
        } else {
            format!("host {}: {what} it: {said}{fix}", self.host)
        }
    }

    /// The connection's two halves, for a stream read and written from
    /// two threads (`attach HOST:TASK`).
    pub(crate) fn into_streams(self) -> (BufReader<ChildStdout>, BufWriter<ChildStdin>) {
        (self.input, self.output)
    }

    /// The next frame of a stream (`subscribe`); an error naming the host
    /// when the connection ends.
    pub fn read(&mut self) -> Result<Response> {
        match read_frame::<Response>(&mut self.input) {
            Ok(response) => Ok(response),
            Err(_) => bail!("{}", self.lost("lost the connection to")),
        }
    }

    /// Send one request and read its answer; an `Error` answer is an error
    /// naming the host.
    pub fn request(&mut self, request: &Request) -> Result<Response> {
        if write_frame(&mut self.output, request).is_err() {
            bail!("{}", self.lost("lost the connection to"));
        }
        match read_frame::<Response>(&mut self.input) {
            Ok(Response::Error { message }) if message == super::protocol::UNKNOWN_REQUEST => {
                bail!("{}", older_host(&self.host))
            }
            Ok(Response::Error { message }) => bail!("host {}: {message}", self.host),
            Ok(response) => Ok(response),
            // A server of protocol 8 ends the connection at a request it
            // does not know.
            Err(_) if request.added_in_9() => bail!("{}", older_host(&self.host)),
            Err(_) => bail!("{}", self.lost("lost the connection to")),
        }
    }
}

/// What a user reads when host `host`'s termic does not know a request
/// (pure).
pub fn older_host(host: &str) -> String {
    format!(
        "host {host}: its termic is older than this one and cannot do this: update termic on {host}"
    )
}

/// Connect to `host` and run `f` on the connection, giving up after
/// `deadline` (then ssh is killed): a host that hangs costs its caller
/// that long at most. `None`: no bound (`termic wait`).
pub fn with_host<T: Send + 'static>(
    host: &HostDef,
    deadline: Option<Duration>,
    f: impl FnOnce(&mut Remote) -> Result<T> + Send + 'static,
) -> Result<T> {
    with_host_using(&ssh_program(), host, deadline, f)
}

/// [`with_host`] with `program` in ssh's place (the tests' fake ssh).
pub(crate) fn with_host_using<T: Send + 'static>(
    program: &std::ffi::OsStr,
    host: &HostDef,
    deadline: Option<Duration>,
    f: impl FnOnce(&mut Remote) -> Result<T> + Send + 'static,
) -> Result<T> {
    let Some(deadline) = deadline else {
        let (_process, mut remote) = spawn_program(program, host)?;
        remote.hello()?;
        return f(&mut remote);
    };
    // ssh is started here, so this thread kills it when the deadline
    // passes (or when the answer came: Drop); the worker then sees its
    // pipes close and ends. Nothing outlives the call.
    let (process, mut remote) = spawn_program(program, host)?;
    let (tx, rx) = mpsc::sync_channel(1);
    std::thread::spawn(move || {
        let result = remote.hello().and_then(|()| f(&mut remote));
        let _ = tx.send(result);
    });
    let result = rx.recv_timeout(deadline);
    drop(process);
    match result {
        Ok(result) => result,
        Err(_) => bail!(
            "host {}: no answer within {}s",
            host.name,
            deadline.as_secs()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(dest: &str, args: &[&str], termic: &str) -> HostDef {
        HostDef {
            name: "box".into(),
            destination: dest.into(),
            ssh_args: args.iter().map(|s| (*s).into()).collect(),
            termic: termic.into(),
        }
    }

    #[test]
    fn the_argv_is_batch_mode_options_then_the_destination_after_dashdash() {
        let argv = ssh_argv(&host("me@devbox", &["-p", "2222"], "termic"));
        let argv: Vec<&str> = argv.iter().map(|a| a.to_str().unwrap()).collect();
        assert_eq!(
            argv,
            [
                "-T",
                "-o",
                "BatchMode=yes",
                "-o",
                "ConnectTimeout=10",
                "-o",
                "ServerAliveInterval=15",
                "-p",
                "2222",
                "--",
                "me@devbox",
                "'termic' server bridge"
            ]
        );
    }

    /// No local shell: a destination full of shell syntax is one argv
    /// entry, as is, and the program is ssh itself.
    #[test]
    fn shell_syntax_in_a_destination_stays_one_argument() {
        let dest = "me@box;touch${IFS}/tmp/pwned`id`$(id)|x&y";
        let argv = ssh_argv(&host(dest, &[], "termic"));
        let i = argv.iter().position(|a| a == "--").unwrap();
        assert_eq!(argv[i + 1], OsString::from(dest));
        assert_eq!(argv.len(), i + 3);
        let cmd = Command::new(ssh_program());
        assert_eq!(cmd.get_program(), "ssh");
    }

    /// The remote command is the only text a shell reads (the remote
    /// user's, as ssh works): the termic path is one quoted word.
    #[test]
    fn the_remote_termic_path_is_one_quoted_word() {
        assert_eq!(remote_command("termic"), "'termic' server bridge");
        assert_eq!(
            remote_command("/opt/my termic/it's; rm -rf ~"),
            r"'/opt/my termic/it'\''s; rm -rf ~' server bridge"
        );
        // Through a real POSIX shell, it is one word.
        let out = Command::new("/bin/sh")
            .args([
                "-c",
                &format!("printf '%s\\n' {}", shell_quote("a'b $(id) `id` c")),
            ])
            .output()
            .unwrap();
        assert_eq!(String::from_utf8(out.stdout).unwrap(), "a'b $(id) `id` c\n");
    }

    #[test]
    fn host_task_parsing_needs_a_configured_host_and_a_task() {
        let hosts = [host("me@devbox", &[], "termic")];
        assert_eq!(
            parse_target("box:3", &hosts),
            Target::Remote {
                host: "box".into(),
                task: "3".into()
            }
        );
        assert_eq!(
            parse_target("box:a:b", &hosts),
            Target::Remote {
                host: "box".into(),
                task: "a:b".into()
            }
        );
        assert_eq!(parse_target("3", &hosts), Target::Local("3".into()));
        assert_eq!(parse_target("box:", &hosts), Target::Local("box:".into()));
        assert_eq!(
            parse_target("other:3", &hosts),
            Target::Local("other:3".into())
        );
        assert_eq!(parse_target("box:3", &[]), Target::Local("box:3".into()));
        assert!(find_host(&hosts, "nope")
            .unwrap_err()
            .to_string()
            .contains("configured: box"));
    }

    /// A fake ssh (a script in ssh's place) for the paths no real sshd
    /// gives on demand.
    fn fake_ssh(dir: &std::path::Path, body: &str) -> OsString {
        let path = dir.join("ssh");
        crate::test_support::write_script(&path, &format!("#!/bin/sh\n{body}\n"));
        path.into_os_string()
    }

    fn pid_in(path: &std::path::Path) -> i32 {
        std::fs::read_to_string(path)
            .unwrap()
            .trim()
            .parse()
            .unwrap()
    }

    /// A host that never answers costs its deadline, and its ssh is
    /// killed and reaped before the call returns: nothing is left.
    #[test]
    fn a_host_that_hangs_is_given_up_on_and_its_ssh_is_gone() {
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("pid");
        let ssh = fake_ssh(
            dir.path(),
            &format!("echo $$ > {}; exec sleep 600", pidfile.display()),
        );
        let started = std::time::Instant::now();
        let e = with_host_using(
            &ssh,
            &host("me@box", &[], "termic"),
            Some(Duration::from_secs(2)),
            |r| r.request(&Request::List),
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("host box: no answer within"), "{e}");
        assert!(started.elapsed() < Duration::from_secs(5));
        let pid = pid_in(&pidfile);
        // Reaped: not even a zombie of ours.
        assert!(
            !std::path::Path::new(&format!("/proc/{pid}")).exists(),
            "ssh {pid} is left"
        );
    }

    /// ssh's own words reach the user, cleaned, with the fix: BatchMode
    /// made a key problem a fast failure, and a missing remote termic
    /// says how to name it.
    #[test]
    fn what_ssh_said_is_the_message_with_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        let ssh = fake_ssh(
            dir.path(),
            "printf 'me@box: Permission denied (publickey).\\033]0;x\\007\\n' >&2; exit 255",
        );
        let e = with_host_using(
            &ssh,
            &host("me@box", &[], "termic"),
            Some(Duration::from_secs(10)),
            |r| r.request(&Request::List),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.starts_with("host box: cannot reach it: me@box: Permission denied (publickey)."),
            "{e}"
        );
        assert!(e.contains("set up a key"), "{e}");
        assert!(!e.contains('\x1b') && !e.contains('\x07'), "{e:?}");
        let ssh = fake_ssh(
            dir.path(),
            "echo \"sh: 1: 'termic': not found\" >&2; exit 127",
        );
        let e = with_host_using(&ssh, &host("me@box", &[], "termic"), None, |r| {
            r.request(&Request::List)
        })
        .unwrap_err()
        .to_string();
        assert!(e.contains("install termic on the host"), "{e}");
    }

    /// A host whose server is of another protocol answers the hello with
    /// `refused`: the message names the host and where to run the fix.
    #[test]
    fn a_refused_hello_names_the_host_and_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        let body = r#"{"refused":{"message":"the running termic server is version 0.0.9"}}"#;
        let frame = dir.path().join("frame");
        let mut bytes = (body.len() as u32).to_be_bytes().to_vec();
        bytes.extend_from_slice(body.as_bytes());
        std::fs::write(&frame, bytes).unwrap();
        let ssh = fake_ssh(dir.path(), &format!("cat {}", frame.display()));
        let e = with_host_using(
            &ssh,
            &host("me@box", &[], "termic"),
            Some(Duration::from_secs(10)),
            |r| r.request(&Request::List),
        )
        .unwrap_err()
        .to_string();
        assert_eq!(
            e,
            "host box: the running termic server is version 0.0.9 (on the host: ssh me@box termic server stop)"
        );
    }
}
