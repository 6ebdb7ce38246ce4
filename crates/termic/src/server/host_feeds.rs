//! The server's links to the remote hosts (issue 29): while at least one
//! client is attached, one thread per configured host keeps one
//! `subscribe` stream over `ssh ... termic server bridge` and writes what
//! it hears into the shared [`Board`] that every attached app draws from.
//!
//! Bounds: one ssh process per host at a time (the thread starts the next
//! only after the last was killed and reaped); a lost or refused link is
//! retried after [`backoff`] (1 s doubling to 60 s); the last client to
//! detach, `server stop` and every other ending of the server stop the
//! threads and kill and reap their ssh before returning, so no ssh is left
//! behind. Waking the apps: one bounded(1) channel per app, `try_send`
//! (a wake already pending is enough: the app reads the board as it is).

use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::{bail, Result};
use crossbeam_channel::Sender;
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
}

#[derive(Default)]
struct Inner {
    /// Attached clients that hold the links open.
    users: usize,
    feeds: Vec<Feed>,
}

struct Feed {
    host: HostDef,
    stop: Arc<FeedStop>,
    thread: Option<JoinHandle<()>>,
}

/// How a feed is told to end, and its ssh, killable from another thread.
#[derive(Default)]
struct FeedStop {
    stopped: Mutex<bool>,
    woken: Condvar,
    ssh: Mutex<Option<SshProcess>>,
}

impl FeedStop {
    fn is_stopped(&self) -> bool {
        *lock(&self.stopped)
    }

    /// Stop: the feed's ssh is killed and reaped now (its reads end), and
    /// a feed waiting to retry wakes.
    fn stop(&self) {
        *lock(&self.stopped) = true;
        self.woken.notify_all();
        drop(lock(&self.ssh).take());
    }

    /// Wait `d` or until stopped; true when stopped.
    fn wait(&self, d: Duration) -> bool {
        let stopped = lock(&self.stopped);
        let (stopped, _) = self
            .woken
            .wait_timeout_while(stopped, d, |s| !*s)
            .unwrap_or_else(|e| e.into_inner());
        *stopped
    }

    /// Keep `ssh` where [`FeedStop::stop`] finds it; false (and `ssh`
    /// killed) when already stopped.
    fn hold(&self, ssh: SshProcess) -> bool {
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
        HostFeeds {
            board: Arc::default(),
            wakers: Arc::default(),
            clock,
            inner: Mutex::default(),
        }
    }

    /// Attached client `client` joins with config.toml's `hosts` as it
    /// reads now: the links match them (a host added since starts, one
    /// removed or changed stops), and the client's app gets the board.
    pub(super) fn join(&self, client: u64, hosts: &[HostDef]) -> RemoteFeed {
        let (tx, rx) = crossbeam_channel::bounded(1);
        lock(&self.wakers).push((client, tx));
        let mut inner = lock(&self.inner);
        inner.users += 1;
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
            let (h, s) = (host.clone(), Arc::clone(&stop));
            let thread = std::thread::Builder::new()
                .name("termic-host".into())
                .spawn(move || run_feed(&h, &s, &board, &wakers, clock.as_ref()));
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
        let seen = lock(&self.board).last_seq();
        RemoteFeed {
            board: Arc::clone(&self.board),
            wake: rx,
            seen,
        }
    }

    /// Client `client` left: the last one to leave stops every link.
    pub(super) fn leave(&self, client: u64) {
        lock(&self.wakers).retain(|(c, _)| *c != client);
        let mut inner = lock(&self.inner);
        inner.users = inner.users.saturating_sub(1);
        if inner.users == 0 {
            stop_feeds(std::mem::take(&mut inner.feeds));
        }
    }

    /// The server ends: every link stops, its ssh killed and reaped.
    pub(super) fn stop_all(&self) {
        let feeds = std::mem::take(&mut lock(&self.inner).feeds);
        stop_feeds(feeds);
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

/// One host's link until stopped: connect, follow, and after a failure
/// wait the backoff and connect again.
fn run_feed(
    host: &HostDef,
    stop: &FeedStop,
    board: &Mutex<Board>,
    wakers: &Wakers,
    clock: &dyn Clock,
) {
    let mut failures = 0u32;
    while !stop.is_stopped() {
        let ended = follow(host, stop, board, wakers, clock);
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
        lock(board).down(&host.name, clock.wall_ms(), reason);
        wake(wakers);
        if stop.wait(backoff(failures)) {
            break;
        }
    }
    drop(lock(&stop.ssh).take());
}

/// Connect to `host`, subscribe, and apply its pushes to the board until
/// the link ends.
fn follow(
    host: &HostDef,
    stop: &FeedStop,
    board: &Mutex<Board>,
    wakers: &Wakers,
    clock: &dyn Clock,
) -> Ended {
    let (ssh, mut remote) = match remote::spawn(host) {
        Ok(started) => started,
        Err(e) => return Ended::Failed(format!("{e:#}")),
    };
    if !stop.hold(ssh) {
        return Ended::Stopped;
    }
    let listed = (|| -> Result<()> {
        remote.hello()?;
        match remote.request(&Request::Subscribe)? {
            Response::Subscribed { now, tasks } => {
                lock(board).subscribed(&host.name, now, clock.wall_ms(), tasks);
                Ok(())
            }
            _ => bail!("host {}: its server did not list its tasks", host.name),
        }
    })();
    if let Err(e) = listed {
        return match stop.is_stopped() {
            true => Ended::Stopped,
            false => Ended::Failed(format!("{e:#}")),
        };
    }
    wake(wakers);
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
            Err(e) => return Ended::Lost(format!("{e:#}")),
        }
        wake(wakers);
    }
}
