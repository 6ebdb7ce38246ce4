//! The server's links to the remote hosts (issue 29): while the server
//! runs with hosts in config.toml (read at its start and at each attach),
//! one thread per configured host keeps one `subscribe` stream over
//! `ssh ... termic server bridge` and writes what it hears into the shared
//! [`Board`] that every attached app draws from, and from which the server
//! itself tells of a remote task's change while no client is attached.
//!
//! Bounds: one ssh process per host at a time (the thread starts the next
//! only after the last was killed and reaped); a lost or refused link is
//! retried after [`backoff`] (1 s doubling to 60 s); a host removed from
//! config.toml, `server stop` and every other ending of the server stop
//! the threads and kill and reap their ssh before returning, so no ssh is
//! left behind. Waking the apps and the server's teller: one bounded(1)
//! channel each, `try_send` (a wake already pending is enough: the board
//! is read as it is).

use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::{bail, Result};
use crossbeam_channel::{Receiver, Sender};
use termic_runtime::clock::Clock;
use termic_runtime::lock;

use super::protocol::{Request, Response};
use super::remote::{self, SshProcess};
use crate::app::remote_hosts::{backoff, Board, RemoteFeed};
use crate::config::hosts::HostDef;
use crate::printed::errln;

type Wakers = Arc<Mutex<Vec<(u64, Sender<()>)>>>;

/// Every host's link, for the server.
pub(super) struct HostFeeds {
    board: Arc<Mutex<Board>>,
    wakers: Wakers,
    clock: Arc<dyn Clock>,
    inner: Mutex<Inner>,
    /// `ssh` ($TERMIC_SSH), or a test's fake.
    program: std::ffi::OsString,
    /// Woken (one pending wake at most) at each change of the board: the
    /// server's teller of notes while nobody is attached.
    pub(super) noted: Receiver<()>,
}

/// The waker id of the server's own teller (clients count from 1).
const TELLER: u64 = 0;

#[derive(Default)]
struct Inner {
    feeds: Vec<Feed>,
}

struct Feed {
    host: HostDef,
    stop: Arc<FeedStop>,
    thread: Option<JoinHandle<()>>,
}

/// How a feed is told to end, and its ssh, killable from another thread.
#[derive(Default)]
pub(super) struct FeedStop {
    stopped: Mutex<bool>,
    woken: Condvar,
    pub(super) ssh: Mutex<Option<SshProcess>>,
}

impl FeedStop {
    pub(super) fn is_stopped(&self) -> bool {
        *lock(&self.stopped)
    }

    /// Stop: the feed's ssh is killed and reaped now (its reads end), and
    /// a feed waiting to retry wakes.
    pub(super) fn stop(&self) {
        *lock(&self.stopped) = true;
        self.woken.notify_all();
        drop(lock(&self.ssh).take());
    }

    /// Wait `d` or until stopped; true when stopped.
    pub(super) fn wait(&self, d: Duration) -> bool {
        let stopped = lock(&self.stopped);
        let (stopped, _) = self
            .woken
            .wait_timeout_while(stopped, d, |s| !*s)
            .unwrap_or_else(|e| e.into_inner());
        *stopped
    }

    /// Keep `ssh` where [`FeedStop::stop`] finds it; false (and `ssh`
    /// killed) when already stopped.
    pub(super) fn hold(&self, ssh: SshProcess) -> bool {
        let mut slot = lock(&self.ssh);
        if self.is_stopped() {
            drop(ssh);
            return false;
        }
        *slot = Some(ssh);
        true
    }
}

impl HostFeeds {
    pub(super) fn new(clock: Arc<dyn Clock>) -> HostFeeds {
        let (tx, noted) = crossbeam_channel::bounded(1);
        HostFeeds {
            board: Arc::default(),
            wakers: Arc::new(Mutex::new(vec![(TELLER, tx)])),
            clock,
            inner: Mutex::default(),
            program: remote::ssh_program(),
            noted,
        }
    }

    /// The board every link writes to.
    pub(super) fn board(&self) -> &Mutex<Board> {
        &self.board
    }

    /// Attached client `client` joins with config.toml's `hosts` as it
    /// reads now: the links match them ([`HostFeeds::sync`]), and the
    /// client's app gets the board.
    pub(super) fn join(&self, client: u64, hosts: &[HostDef]) -> RemoteFeed {
        let (tx, rx) = crossbeam_channel::bounded(1);
        lock(&self.wakers).push((client, tx));
        self.sync(hosts);
        let seen = lock(&self.board).last_seq();
        let (program, clock, defs) = (
            self.program.clone(),
            Arc::clone(&self.clock),
            hosts.to_vec(),
        );
        let act = actor(self.program.clone(), defs.clone());
        let open: crate::app::remote_pane::PaneOpener = Arc::new(move |name, number, size| {
            let host = defs.iter().find(|h| h.name == name)?.clone();
            super::host_pane::open(program.clone(), host, number, size, Arc::clone(&clock))
        });
        RemoteFeed {
            board: Arc::clone(&self.board),
            wake: rx,
            seen,
            open,
            act,
        }
    }

    /// The links match `hosts` (config.toml as it reads now): a host added
    /// since starts, one removed or changed stops (its ssh killed and
    /// reaped before this returns).
    pub(super) fn sync(&self, hosts: &[HostDef]) {
        let mut inner = lock(&self.inner);
        let names: Vec<String> = hosts.iter().map(|h| h.name.clone()).collect();
        lock(&self.board).set_hosts(&names);
        let (keep, gone): (Vec<Feed>, Vec<Feed>) = std::mem::take(&mut inner.feeds)
            .into_iter()
            .partition(|f| hosts.contains(&f.host));
        stop_feeds(gone);
        inner.feeds = keep;
        for host in hosts {
            if inner.feeds.iter().any(|f| &f.host == host) {
                continue;
            }
            let stop = Arc::new(FeedStop::default());
            let (board, wakers, clock) = (
                Arc::clone(&self.board),
                Arc::clone(&self.wakers),
                Arc::clone(&self.clock),
            );
            let (h, s, program) = (host.clone(), Arc::clone(&stop), self.program.clone());
            let thread = std::thread::Builder::new()
                .name("termic-host".into())
                .spawn(move || {
                    let link = Link {
                        program: &program,
                        host: &h,
                        stop: &s,
                        board: &board,
                        wakers: &wakers,
                        clock: clock.as_ref(),
                    };
                    link.run();
                });
            match thread {
                Ok(thread) => inner.feeds.push(Feed {
                    host: host.clone(),
                    stop,
                    thread: Some(thread),
                }),
                // Out of threads: the host shows why; the next attach
                // tries again.
                Err(e) => lock(&self.board).down(
                    &host.name,
                    self.clock.wall_ms(),
                    format!("host {}: no thread for it: {e}", host.name),
                ),
            }
        }
    }

    /// Client `client` left: the links stay (the server tells of the
    /// hosts' tasks while nobody is attached).
    pub(super) fn leave(&self, client: u64) {
        lock(&self.wakers).retain(|(c, _)| *c != client);
    }

    /// The server ends: every link stops, its ssh killed and reaped.
    pub(super) fn stop_all(&self) {
        let feeds = std::mem::take(&mut lock(&self.inner).feeds);
        stop_feeds(feeds);
    }
}

impl Drop for HostFeeds {
    fn drop(&mut self) {
        self.stop_all();
    }
}

/// Runs one request on a host over a connection of its own (the one
/// `termic kill HOST:TASK` makes), on a thread, within
/// [`HOST_DEADLINE`](crate::commands::run_detached::HOST_DEADLINE).
fn actor(program: std::ffi::OsString, defs: Vec<HostDef>) -> crate::app::remote_actions::HostActor {
    Arc::new(move |name, request, answer| {
        let Some(host) = defs.iter().find(|h| h.name == name).cloned() else {
            answer(Err(format!("host {name}: not in config.toml now")));
            return;
        };
        let program = program.clone();
        // Taken by the thread, or here when no thread started: the app
        // hears every request it counts under way.
        let answer = Arc::new(Mutex::new(Some(answer)));
        let taken = Arc::clone(&answer);
        let spawned = std::thread::Builder::new()
            .name("termic-host-act".into())
            .spawn(move || {
                let deadline = Some(crate::commands::run_detached::HOST_DEADLINE);
                let result = remote::with_host_using(&program, &host, deadline, move |r| {
                    r.request(&request)
                });
                if let Some(answer) = lock(&taken).take() {
                    answer(result.map_err(|e| crate::printed::error_text(&e)));
                }
            });
        if let Err(e) = spawned {
            if let Some(answer) = lock(&answer).take() {
                answer(Err(format!("host {name}: no thread for the request: {e}")));
            }
        }
    })
}

impl super::Server {
    /// Serve the `hosts` stream until the client closes the connection or
    /// stops reading: the links follow config.toml's hosts as the file
    /// reads now, as for an attached client, and every host
    /// is sent now and again at each change of the board. No queue: a
    /// wake is a bounded(1) channel, so changes while a write waits are
    /// one snapshot.
    pub(super) fn host_stream(
        &self,
        mut input: std::io::BufReader<std::os::unix::net::UnixStream>,
        out: std::io::BufWriter<std::os::unix::net::UnixStream>,
    ) {
        use std::sync::atomic::Ordering;
        let _ = out
            .get_ref()
            .set_write_timeout(Some(super::attach::WRITE_TIMEOUT));
        let out: super::ClientOut = Arc::new(Mutex::new(out));
        let client = self.next_client.fetch_add(1, Ordering::SeqCst);
        self.add_client(client, &out);
        let hosts = crate::config::Config::load_lenient(&self.paths.config_dir).hosts;
        let feed = self.hosts.join(client, &hosts);
        // Whatever the client sends is read and ignored; its close ends
        // the stream.
        let (closed_tx, closed) = crossbeam_channel::bounded::<()>(0);
        let reader = std::thread::Builder::new()
            .name("termic-hosts-reader".into())
            .spawn(move || {
                while super::protocol::read_frame::<Request>(&mut input).is_ok() {}
                drop(closed_tx);
            });
        if reader.is_ok() {
            loop {
                let now = self.hosts.clock.wall_ms();
                let hosts = lock(&feed.board).host_tasks(now);
                let sent = super::protocol::write_frame(&mut *lock(&out), &Response::Hosts(hosts));
                if sent.is_err() {
                    break;
                }
                crossbeam_channel::select! {
                    recv(feed.wake) -> woken => if woken.is_err() { break },
                    recv(closed) -> _ => break,
                }
            }
        }
        self.hosts.leave(client);
        self.forget_client(client);
        let _ = lock(&out).get_ref().shutdown(std::net::Shutdown::Both);
    }
}

/// Stop every feed first (their ssh killed at once), then wait for each
/// thread: nothing of theirs is left when this returns.
fn stop_feeds(feeds: Vec<Feed>) {
    for f in &feeds {
        f.stop.stop();
    }
    for mut f in feeds {
        if let Some(thread) = f.thread.take() {
            let _ = thread.join();
        }
    }
}

fn wake(wakers: &Wakers) {
    for (_, tx) in lock(wakers).iter() {
        let _ = tx.try_send(());
    }
}

/// How one link ended.
enum Ended {
    /// It was listed then lost (a retry starts from the first delay).
    Lost(String),
    /// It never got as far as the list.
    Failed(String),
    Stopped,
}

/// What one host's feed thread works with.
struct Link<'a> {
    program: &'a std::ffi::OsStr,
    host: &'a HostDef,
    stop: &'a FeedStop,
    board: &'a Mutex<Board>,
    wakers: &'a Wakers,
    clock: &'a dyn Clock,
}

impl Link<'_> {
    /// The link until stopped: connect, follow, and after a failure wait
    /// the backoff and connect again.
    fn run(&self) {
        let (host, stop) = (self.host, self.stop);
        let mut failures = 0u32;
        while !stop.is_stopped() {
            let ended = self.follow();
            // This link's ssh is gone before the next one starts.
            drop(lock(&stop.ssh).take());
            let reason = match ended {
                Ended::Stopped => break,
                Ended::Lost(reason) => {
                    failures = 1;
                    reason
                }
                Ended::Failed(reason) => {
                    failures = failures.saturating_add(1);
                    reason
                }
            };
            if stop.is_stopped() {
                break;
            }
            errln!("termic server: {reason}");
            lock(self.board).down(&host.name, self.clock.wall_ms(), reason);
            wake(self.wakers);
            if stop.wait(backoff(failures)) {
                break;
            }
        }
        drop(lock(&stop.ssh).take());
    }

    /// Connect, subscribe, and apply the host's pushes to the board until
    /// the link ends.
    fn follow(&self) -> Ended {
        let (host, stop, board) = (self.host, self.stop, self.board);
        let (ssh, mut remote) = match remote::spawn_program(self.program, host) {
            Ok(started) => started,
            Err(e) => return Ended::Failed(crate::printed::error_text(&e)),
        };
        if !stop.hold(ssh) {
            return Ended::Stopped;
        }
        let listed = (|| -> Result<()> {
            remote.hello()?;
            match remote.request(&Request::Subscribe)? {
                Response::Subscribed { now, tasks } => {
                    lock(board).subscribed(&host.name, now, self.clock.wall_ms(), tasks);
                    Ok(())
                }
                _ => bail!("host {}: its server did not list its tasks", host.name),
            }
        })();
        if let Err(e) = listed {
            return match stop.is_stopped() {
                true => Ended::Stopped,
                false => Ended::Failed(crate::printed::error_text(&e)),
            };
        }
        wake(self.wakers);
        loop {
            let pushed = remote.read();
            if stop.is_stopped() {
                return Ended::Stopped;
            }
            match pushed {
                Ok(Response::Task(row)) => lock(board).task(&host.name, row),
                Ok(Response::TaskRemoved { id }) => lock(board).removed(&host.name, id),
                Ok(Response::Detached(_)) => {
                    return Ended::Lost(format!("host {}: its termic server stopped", host.name))
                }
                // Something a later version pushes: ignored.
                Ok(_) => continue,
                Err(e) => return Ended::Lost(crate::printed::error_text(&e)),
            }
            wake(self.wakers);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::remote_hosts::Link as Shown;
    use crate::server::protocol::{write_frame, TaskRow};
    use termic_runtime::clock::{ManualClock, SystemClock};

    fn host() -> HostDef {
        HostDef {
            name: "far".into(),
            destination: "me@far".into(),
            ssh_args: Vec::new(),
            termic: "termic".into(),
        }
    }

    /// Feeds that run `body` as their ssh (a shell script), every ssh it
    /// starts writing its pid to `pids`.
    fn feeds(
        dir: &std::path::Path,
        body: &str,
        clock: Arc<dyn Clock>,
    ) -> (HostFeeds, std::path::PathBuf) {
        let pids = dir.join("pids");
        let path = dir.join("ssh");
        crate::test_support::write_script(
            &path,
            &format!("#!/bin/sh\necho $$ >> {}\n{body}\n", pids.display()),
        );
        let mut feeds = HostFeeds::new(clock);
        feeds.program = path.into_os_string();
        (feeds, pids)
    }

    fn started(pids: &std::path::Path) -> Vec<i32> {
        std::fs::read_to_string(pids)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect()
    }

    fn eventually(what: &str, mut done: impl FnMut() -> bool) {
        let start = std::time::Instant::now();
        while !done() {
            assert!(start.elapsed() < Duration::from_secs(20), "{what}: never");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn gone(pid: i32) -> bool {
        !std::path::Path::new(&format!("/proc/{pid}")).exists()
    }

    /// A host that never answers holds one ssh, no more, shared by every
    /// client; the last client to leave does not end it (the server tells
    /// of the host's tasks while nobody is attached); a host removed from
    /// the config, and the server's end, kill and reap it before returning.
    #[test]
    fn one_ssh_per_host_kept_after_the_last_client_until_removed_or_stopped() {
        let dir = tempfile::tempdir().unwrap();
        let (feeds, pids) = feeds(dir.path(), "exec sleep 600", Arc::new(SystemClock::new()));
        feeds.sync(&[host()]);
        eventually("the ssh", || !started(&pids).is_empty());
        // Clients share the link.
        let a = feeds.join(1, &[host()]);
        let _b = feeds.join(2, &[host()]);
        std::thread::sleep(Duration::from_millis(300));
        assert_eq!(started(&pids).len(), 1);
        assert_eq!(lock(&a.board).hosts[0].link, Shown::Connecting);
        feeds.leave(1);
        feeds.leave(2);
        let pid = started(&pids)[0];
        assert!(!gone(pid), "the link ended with the last client");
        // The host removed from config.toml: its ssh is gone on return.
        feeds.sync(&[]);
        assert!(gone(pid), "ssh {pid} is left");
        assert!(lock(&a.board).hosts.is_empty());
        // The server's end stops a link the same way.
        feeds.sync(&[host()]);
        eventually("a new ssh", || started(&pids).len() == 2);
        feeds.stop_all();
        assert!(gone(started(&pids)[1]));
    }

    /// A host that cannot be reached is retried after 1 s, 2 s, 4 s...,
    /// never in a tight loop, and says why it is unreachable.
    #[test]
    fn an_unreachable_host_is_retried_with_backoff() {
        let dir = tempfile::tempdir().unwrap();
        let (feeds, pids) = feeds(
            dir.path(),
            "echo 'ssh: connect to host far port 22: Connection refused' >&2; exit 255",
            Arc::new(SystemClock::new()),
        );
        let feed = feeds.join(1, &[host()]);
        let begun = std::time::Instant::now();
        eventually("the first failure", || {
            matches!(lock(&feed.board).hosts[0].link, Shown::Down { .. })
        });
        let groups = lock(&feed.board).groups(0, 0);
        assert_eq!(
            groups[0].status.as_deref(),
            Some("unreachable: ssh: connect to host far port 22: Connection refused")
        );
        std::thread::sleep(Duration::from_millis(2500).saturating_sub(begun.elapsed()));
        // Attempts at 0 s, 1 s and 3 s: two by 2.5 s (a tight loop would
        // have made hundreds).
        let tries = started(&pids).len();
        assert!((1..=2).contains(&tries), "{tries} attempts in 2.5 s");
        eventually("the third attempt, at 3 s", || started(&pids).len() == 3);
        assert!(
            begun.elapsed() >= Duration::from_millis(2900),
            "{:?}",
            begun.elapsed()
        );
        feeds.stop_all();
        for pid in started(&pids) {
            assert!(gone(pid));
        }
    }

    /// What a host lists comes onto the board with its clock's skew, and
    /// each client's app is woken (one pending wake at most).
    #[test]
    fn a_hosts_list_reaches_the_board_with_its_clock() {
        let dir = tempfile::tempdir().unwrap();
        // This machine's clock reads 1_800_000_000_000; the host's is an
        // hour ahead and its task entered its state 90 s before its now.
        let remote_now: u64 = 1_800_003_600_000;
        let row = TaskRow {
            since: remote_now - 90_000,
            ..TaskRow::for_test(4, "build", "claude", "working")
        };
        let mut frames = Vec::new();
        write_frame(
            &mut frames,
            &Response::Welcome {
                version: "x".into(),
                pid: 1,
                notice: None,
            },
        )
        .unwrap();
        write_frame(
            &mut frames,
            &Response::Subscribed {
                now: remote_now,
                tasks: vec![row],
            },
        )
        .unwrap();
        std::fs::write(dir.path().join("frames"), frames).unwrap();
        let clock = Arc::new(ManualClock::new(0, 1_800_000_000_000));
        let (feeds, _) = feeds(
            dir.path(),
            &format!("cat {}/frames; exec sleep 600", dir.path().display()),
            clock,
        );
        let feed = feeds.join(1, &[host()]);
        eventually("the list", || {
            lock(&feed.board).hosts[0].link == Shown::Connected
        });
        feed.wake.recv_timeout(Duration::from_secs(5)).unwrap();
        let groups = lock(&feed.board).groups(1_800_000_000_000, 0);
        assert_eq!(groups[0].tasks[0].name, "build");
        assert_eq!(groups[0].tasks[0].in_state, Duration::from_secs(90));
        feeds.leave(1);
    }

    /// The task commands' actor: a host of another protocol (its server
    /// refuses the hello) is an error naming the host and the fix; a host
    /// that answers gives its answer; a host no longer configured says so.
    #[test]
    fn the_actor_names_a_host_that_refuses_and_passes_on_an_answer() {
        let dir = tempfile::tempdir().unwrap();
        let script = |name: &str, answers: &[Response]| {
            let mut frames = Vec::new();
            for a in answers {
                write_frame(&mut frames, a).unwrap();
            }
            let path = dir.path().join(name);
            std::fs::write(&path, frames).unwrap();
            format!("cat {}; exec sleep 600", path.display())
        };
        let ask = |body: &str, host_name: &str| {
            let (feeds, _) = feeds(dir.path(), body, Arc::new(SystemClock::new()));
            let act = actor(feeds.program.clone(), vec![host()]);
            let (tx, rx) = crossbeam_channel::bounded(1);
            let request = Request::Rename {
                task: "1".into(),
                name: "x".into(),
            };
            act(
                host_name.into(),
                request,
                Box::new(move |a| tx.send(a).unwrap()),
            );
            rx.recv_timeout(Duration::from_secs(10)).unwrap()
        };
        let refused = ask(
            &script(
                "refused",
                &[Response::Refused {
                    message: crate::server::protocol::mismatch_message("0.0.1", "0.1.0"),
                }],
            ),
            "far",
        )
        .unwrap_err();
        assert!(refused.starts_with("host far: "), "{refused}");
        assert!(refused.contains("termic server stop"), "{refused}");
        let row = TaskRow::for_test(1, "x", "claude", "idle");
        let welcome = Response::Welcome {
            version: "x".into(),
            pid: 1,
            notice: None,
        };
        let renamed = ask(
            &script("renamed", &[welcome, Response::Renamed(row.clone())]),
            "far",
        );
        assert_eq!(renamed, Ok(Response::Renamed(row)));
        let gone = ask("exec sleep 600", "gone").unwrap_err();
        assert_eq!(gone, "host gone: not in config.toml now");
    }

    /// A host whose server stops (`detached("stopped")`) is down since
    /// then, with its last rows, and is reconnected after the first delay
    /// (it was listed: the backoff starts again at 1 s).
    #[test]
    fn a_host_whose_server_stops_is_disconnected_then_reconnected() {
        let dir = tempfile::tempdir().unwrap();
        let mut frames = Vec::new();
        for response in [
            Response::Welcome {
                version: "x".into(),
                pid: 1,
                notice: None,
            },
            Response::Subscribed {
                now: 0,
                tasks: Vec::new(),
            },
            Response::Detached(crate::server::protocol::DetachReason::Stopped),
        ] {
            write_frame(&mut frames, &response).unwrap();
        }
        std::fs::write(dir.path().join("frames"), frames).unwrap();
        let (feeds, pids) = feeds(
            dir.path(),
            &format!("cat {}/frames; exec sleep 600", dir.path().display()),
            Arc::new(SystemClock::new()),
        );
        let feed = feeds.join(1, &[host()]);
        eventually("down", || {
            matches!(
                lock(&feed.board).hosts[0].link,
                Shown::Down {
                    reachable: true,
                    ..
                }
            )
        });
        let status = lock(&feed.board).groups(0, 0)[0].status.clone().unwrap();
        assert!(status.starts_with("disconnected since "), "{status}");
        let down_at = std::time::Instant::now();
        eventually("the second ssh", || started(&pids).len() == 2);
        let waited = down_at.elapsed();
        assert!(
            waited >= Duration::from_millis(800) && waited < Duration::from_secs(10),
            "{waited:?}"
        );
        // The first ssh was reaped before the second started.
        assert!(gone(started(&pids)[0]));
        feeds.stop_all();
        assert!(started(&pids).into_iter().all(gone));
    }
}
