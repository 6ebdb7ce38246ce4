//! The push dispatcher: the server sends each notification a transition
//! earns (needs you, done, error) to every subscribed browser (Web Push),
//! and to ntfy and a webhook when config.toml names them, whether or not
//! a client is attached, except for a task some client is looking at
//! right now (an attached client's watched task, an open view of it).
//!
//! One thread sends; the transitions reach it through a bounded queue of
//! [`QUEUE`] notifications. The feed thread never waits: when the queue
//! is full the oldest notification is dropped (the newest says the
//! latest state) and server.log says so, at most every 10 s. Each
//! notification's targets are sent in parallel (one short-lived thread
//! each, every request bounded by termic-push's 5 s connect and 10 s
//! total), so a push service that never answers delays the next
//! notification by at most 10 s and the other targets of this one not
//! at all. A panic in one send is caught and logged; the thread goes on.
//! What the push services answer: 404 and 410 remove that subscription
//! from `push-subscriptions.json`; 429, 5xx and any other failure drop
//! that one notification with one line in server.log (no retry).

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use termic_push::deliver::{self, Client, Outcome, Request};
use termic_push::payload::{Action, Notification, Why};
use termic_push::subscriptions::{self, Stamp, Subscription};
use termic_push::vapid::{self, VapidKeys};
use termic_runtime::{lock, TaskId};

use super::limits::RateLimit;
use super::protocol::Choice;
use crate::config::{Config, PushSettings};
use crate::notify::Attention;
use crate::printed::errln;
use termic_signal::engine::FROM_OUTPUT;

/// Notifications waiting for the sender, at most.
pub const QUEUE: usize = 64;

/// Targets of one notification sent at once, at most (the rest wait for
/// a free place: each send is bounded, so they wait 10 s at most each).
pub const PARALLEL: usize = 16;

/// The directory `termic web` and the server share (subscriptions, VAPID
/// keys): `<data dir>/web`.
pub fn web_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("web")
}

/// The server's push dispatcher.
pub struct Push {
    queue: Mutex<VecDeque<Notification>>,
    ready: Condvar,
    /// Which task each client (by its number) is looking at.
    looking: Mutex<Vec<(u64, TaskId)>>,
    /// Which remote host's task (host, number) each client is looking
    /// at: an attached app's pane, a page's view through `termic web`.
    looking_remote: Mutex<Vec<(u64, String, u64)>>,
    web_dir: PathBuf,
    config_dir: PathBuf,
    host: String,
    /// Drops of a full queue, logged at most every 10 s.
    drops: Mutex<RateLimit>,
    /// The subscriptions file as last read.
    subs: Mutex<SubsCache>,
    keys: Mutex<Option<VapidKeys>>,
    keys_failed: Mutex<bool>,
}

#[derive(Default)]
struct SubsCache {
    /// The file's identity when read (`None`: it did not exist).
    stamp: Option<Option<Stamp>>,
    subs: Vec<Subscription>,
}

impl Push {
    pub fn new(data_dir: &Path, config_dir: &Path) -> Push {
        Push {
            queue: Mutex::new(VecDeque::with_capacity(QUEUE)),
            ready: Condvar::new(),
            looking: Mutex::new(Vec::new()),
            looking_remote: Mutex::new(Vec::new()),
            web_dir: web_dir(data_dir),
            config_dir: config_dir.to_path_buf(),
            host: host_name(),
            drops: Mutex::new(RateLimit::new(super::limits::REPORT_EVERY)),
            subs: Mutex::new(SubsCache::default()),
            keys: Mutex::new(None),
            keys_failed: Mutex::new(false),
        }
    }

    /// Client `client` now looks at `task` (`None`: at none, or it left).
    pub fn look(&self, client: u64, task: Option<TaskId>) {
        let mut looking = lock(&self.looking);
        looking.retain(|(c, _)| *c != client);
        if let Some(task) = task {
            looking.push((client, task));
        }
    }

    /// Client `client` now looks at task `number` of remote host `host`
    /// (`None`: at none, or it left).
    pub fn look_remote(&self, client: u64, task: Option<(String, u64)>) {
        let mut looking = lock(&self.looking_remote);
        looking.retain(|(c, ..)| *c != client);
        if let Some((host, number)) = task {
            looking.push((client, host, number));
        }
    }

    /// Whether some client looks at task `number` of host `host` now.
    pub fn looked_at_remote(&self, host: &str, number: u64) -> bool {
        lock(&self.looking_remote)
            .iter()
            .any(|(_, h, n)| h == host && *n == number)
    }

    /// A remote host's task changed to needs you, done or error (a note
    /// of the hosts' board): queued unless a client is looking at it.
    /// Never waits.
    pub fn offer_remote(&self, note: &crate::app::remote_hosts::Note) {
        if self.looked_at_remote(&note.host, note.number) {
            return;
        }
        self.queue(remote_notification(note));
    }

    /// Whether some client looks at `task` now.
    pub fn looked_at(&self, task: TaskId) -> bool {
        lock(&self.looking).iter().any(|(_, t)| *t == task)
    }

    /// Task `id` (number `number`, named `name`) earned `attention`;
    /// `kind` is the attention's kind when the agent named it, `choices`
    /// the answers its dialog offers now (the row's). Queued unless a
    /// client is looking at the task. Never waits.
    pub fn offer(
        &self,
        id: TaskId,
        (number, name): (u64, &str),
        attention: &Attention,
        kind: Option<String>,
        choices: &[Choice],
    ) {
        if self.looked_at(id) {
            return;
        }
        self.queue(notification(
            number, name, &self.host, attention, kind, choices,
        ));
    }

    /// Queues `note` for the sender; a full queue drops its oldest.
    fn queue(&self, note: Notification) {
        let mut queue = lock(&self.queue);
        if queue.len() >= QUEUE {
            queue.pop_front();
            if let Some(held) = lock(&self.drops).hit(Instant::now()) {
                errln!(
                    "termic server: push queue full ({QUEUE}); dropped the oldest notification{}",
                    match held {
                        0 => String::new(),
                        n => format!(" ({n} more since the last report)"),
                    }
                );
            }
        }
        queue.push_back(note);
        self.ready.notify_one();
    }

    /// The sender thread's loop: never returns.
    pub fn run(self: Arc<Self>) {
        let client = Client::default();
        loop {
            let note = {
                let mut queue = lock(&self.queue);
                loop {
                    if let Some(note) = queue.pop_front() {
                        break note;
                    }
                    queue = self.ready.wait(queue).unwrap_or_else(|e| e.into_inner());
                }
            };
            // Nothing in one notification's sending may end the thread.
            let sent = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                self.send(&client, &note)
            }));
            if sent.is_err() {
                errln!("termic server: sending a notification panicked; it was dropped");
            }
        }
    }

    /// Every target of one notification.
    fn send(&self, client: &Client, note: &Notification) {
        let settings = Config::load_lenient(&self.config_dir).settings.push;
        let targets = self.targets(note, &settings);
        for batch in targets.chunks(PARALLEL) {
            std::thread::scope(|s| {
                for target in batch {
                    let started = std::thread::Builder::new()
                        .name("termic-push-send".into())
                        .spawn_scoped(s, || self.send_one(client, target));
                    if let Err(e) = started {
                        errln!(
                            "termic server: {} not sent: cannot start a thread: {e}",
                            target.label
                        );
                    }
                }
            });
        }
    }

    fn send_one(&self, client: &Client, target: &Target) {
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            client.post(&target.request)
        }))
        .unwrap_or_else(|_| Outcome::Failed("the sender panicked".into()));
        match outcome {
            Outcome::Delivered(_) => {}
            Outcome::Gone(status) if target.web_push => {
                let path = self.subs_path();
                match subscriptions::remove_endpoint(&path, &target.request.url) {
                    Ok(_) => errln!(
                        "termic server: {} said the subscription is gone (HTTP {status}); removed it",
                        target.label
                    ),
                    Err(e) => errln!(
                        "termic server: {} said the subscription is gone (HTTP {status}), \
                         but it could not be removed: {e}",
                        target.label
                    ),
                }
            }
            Outcome::Gone(status) | Outcome::Dropped(status) => errln!(
                "termic server: {} answered HTTP {status}; the notification was dropped",
                target.label
            ),
            Outcome::Failed(why) => errln!(
                "termic server: {} not reached ({why}); the notification was dropped",
                target.label
            ),
        }
    }

    fn subs_path(&self) -> PathBuf {
        self.web_dir.join(subscriptions::SUBSCRIPTIONS_FILE)
    }

    /// The subscriptions, read again when the file changed. A file that
    /// cannot be used is logged once (until it changes) and sends nothing.
    fn subscriptions(&self) -> Vec<Subscription> {
        let path = self.subs_path();
        let now = subscriptions::stamp_of(&path);
        let mut cache = lock(&self.subs);
        if cache.stamp != Some(now) {
            cache.stamp = Some(now);
            cache.subs = match subscriptions::load(&path) {
                // An entry that cannot be pushed to is said once, here.
                Ok((subs, _)) => subs
                    .into_iter()
                    .filter(|sub| match sub.check() {
                        Ok(()) => true,
                        Err(why) => {
                            errln!(
                                "termic server: the push subscription of device {} \
                                 cannot be used: {why}",
                                termic_signal::text::clean_line(&sub.device)
                            );
                            false
                        }
                    })
                    .collect(),
                Err(e) => {
                    errln!("termic server: {e}");
                    Vec::new()
                }
            };
        }
        cache.subs.clone()
    }

    /// The VAPID keys, loaded or made once; a failure is logged once.
    fn vapid(&self) -> Option<VapidKeys> {
        let mut keys = lock(&self.keys);
        if keys.is_none() {
            match vapid::vapid_keys(&self.web_dir) {
                Ok(k) => *keys = Some(k),
                Err(e) => {
                    let mut failed = lock(&self.keys_failed);
                    if !*failed {
                        errln!("termic server: no web push: {e}");
                        *failed = true;
                    }
                }
            }
        }
        keys.clone()
    }

    /// Every request for `note` (pure but for the files it reads).
    fn targets(&self, note: &Notification, settings: &PushSettings) -> Vec<Target> {
        let mut out = Vec::new();
        let wanted: Vec<Subscription> = self
            .subscriptions()
            .into_iter()
            .filter(|s| s.wants_note(note))
            .collect();
        if !wanted.is_empty() {
            if let Some(keys) = self.vapid() {
                let now = SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs());
                for sub in &wanted {
                    // The endpoint is a capability: the log names its origin.
                    let label = format!(
                        "the push service at {}",
                        vapid::origin(&sub.endpoint).unwrap_or_else(|| "an odd URL".into())
                    );
                    match deliver::web_push_request(note, sub, &keys, &settings.push_contact, now) {
                        Ok(request) => out.push(Target {
                            label,
                            request,
                            web_push: true,
                        }),
                        Err(why) => errln!(
                            "termic server: a push subscription of device {} cannot be used: {why}",
                            termic_signal::text::clean_line(&sub.device)
                        ),
                    }
                }
            }
        }
        if let Some(url) = &settings.ntfy {
            out.push(Target {
                label: "ntfy".into(),
                request: deliver::ntfy_request(note, url, settings.ntfy_token.as_deref()),
                web_push: false,
            });
        }
        if let Some(url) = &settings.webhook {
            out.push(Target {
                label: "the webhook".into(),
                request: deliver::webhook_request(note, url),
                web_push: false,
            });
        }
        out
    }
}

/// One request to send and how to name it in server.log.
struct Target {
    label: String,
    request: Request,
    web_push: bool,
}

/// The notification for an attention (pure).
pub fn notification(
    number: u64,
    name: &str,
    host: &str,
    attention: &Attention,
    kind: Option<String>,
    choices: &[Choice],
) -> Notification {
    let why = match attention {
        Attention::NeedsYou { detail } => Why::NeedsYou {
            kind,
            detail: detail.clone(),
        },
        Attention::Done => Why::Done,
        Attention::Stopped { reason } => Why::Error {
            label: reason.map(|r| r.label().to_owned()).unwrap_or_default(),
        },
        Attention::RateLimited { until } => Why::RateLimited {
            until: until.map(|t| t.as_wire()),
        },
    };
    Notification {
        task: number,
        name: name.to_owned(),
        host: host.to_owned(),
        remote: None,
        actions: actions_for(attention, choices),
        why,
    }
}

/// The notification for a remote host's note (pure): the host's name in
/// config.toml as its host, the task's number there, why from its row
/// (the kind and message it needs you for; an error's reason, protocol
/// 10, when the host named one this termic knows: "error: auth failed",
/// else "error") and the dialog's answers the row offered.
pub fn remote_notification(note: &crate::app::remote_hosts::Note) -> Notification {
    let asked = note.attention.as_deref();
    let (why, attention) = match note.state.as_str() {
        "needs_you" => {
            let detail = asked.and_then(|a| {
                let message = a.message.as_deref()?;
                Some(match a.from_output {
                    true => format!("{FROM_OUTPUT}{message}"),
                    false => message.to_owned(),
                })
            });
            let why = Why::NeedsYou {
                kind: asked.map(|a| a.kind.clone()),
                detail: detail.clone(),
            };
            (why, Attention::NeedsYou { detail })
        }
        "done" => (Why::Done, Attention::Done),
        _ => (
            Why::Error {
                label: note
                    .reason
                    .map(|r| r.label().to_owned())
                    .unwrap_or_default(),
            },
            Attention::Stopped {
                reason: note.reason,
            },
        ),
    };
    Notification {
        task: note.number,
        name: note.task.clone(),
        host: note.host.clone(),
        remote: Some(note.host.clone()),
        actions: actions_for(&attention, &note.choices),
        why,
    }
}

/// The choices a notification offers as buttons, in this order: a
/// platform shows two, and these two are the permission dialog's answer
/// (approve once, deny). Approve always and a question's options stay
/// in the page, where the whole dialog is shown.
pub const ACTION_CHOICES: [&str; 2] = ["approve_once", "deny"];

/// The buttons a notification carries (pure): a task that needs you, and
/// whose agent's dialog offers approve once or deny now, gets those two.
/// A tap asks the page to send that `answer`; the server sends the keys
/// only if the dialog still shows that choice.
fn actions_for(attention: &Attention, choices: &[Choice]) -> Vec<Action> {
    if !matches!(attention, Attention::NeedsYou { .. }) {
        return Vec::new();
    }
    ACTION_CHOICES
        .iter()
        .filter_map(|id| choices.iter().find(|c| c.id == *id))
        .map(|c| Action {
            action: c.id.clone(),
            title: termic_signal::text::clean_line(&c.label).into_owned(),
        })
        .collect()
}

/// This machine's host name, or "local".
fn host_name() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer and its length match.
    let r = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    let name = String::from_utf8_lossy(&buf[..end]);
    let name = termic_signal::text::clean_line(name.trim()).into_owned();
    if r != 0 || name.is_empty() {
        "local".to_owned()
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_attention_becomes_the_notification_the_issue_describes() {
        let n = notification(
            4,
            "login",
            "devbox",
            &Attention::NeedsYou {
                detail: Some("Write src/login.rs".into()),
            },
            Some("permission".into()),
            &[],
        );
        let p = n.payload();
        assert_eq!(p.title, "devbox: login");
        assert_eq!(p.body, "permission: Write src/login.rs");
        assert_eq!(p.reason, "permission");
        let stopped = notification(
            4,
            "login",
            "devbox",
            &Attention::Stopped {
                reason: Some(termic_signal::stop::StopReason::RateLimited),
            },
            None,
            &[],
        );
        assert_eq!(stopped.payload().body, "error: rate limited");
    }

    fn choice(id: &str, label: &str) -> Choice {
        Choice {
            id: id.into(),
            label: label.into(),
        }
    }

    #[test]
    fn a_permission_carries_approve_once_and_deny_as_actions_and_nothing_else_does() {
        let offered = [
            choice("approve_always", "Yes, and don't ask again"),
            choice("deny", "No\u{1b}[31m"),
            choice("approve_once", "Yes"),
        ];
        let needs = Attention::NeedsYou {
            detail: Some("Write src/login.rs".into()),
        };
        let n = notification(
            4,
            "login",
            "devbox",
            &needs,
            Some("permission".into()),
            &offered,
        );
        let actions: Vec<(&str, &str)> = n
            .actions
            .iter()
            .map(|a| (a.action.as_str(), a.title.as_str()))
            .collect();
        assert_eq!(actions, [("approve_once", "Yes"), ("deny", "No[31m")]);
        assert_eq!(n.payload().actions.len(), 2);
        // A question's options, no choices, done: no buttons.
        let options = [choice("option_1", "Red"), choice("option_2", "Blue")];
        assert!(actions_for(&needs, &options).is_empty());
        assert!(actions_for(&needs, &[]).is_empty());
        assert!(actions_for(&Attention::Done, &offered).is_empty());
    }

    #[test]
    fn a_remote_note_names_its_host_says_why_and_is_not_pushed_while_looked_at() {
        use crate::app::remote_hosts::Note;
        use crate::server::protocol::RowAttention;
        let note = |state: &str| Note {
            seq: 1,
            host: "far".into(),
            number: 2,
            task: "create".into(),
            agent: "claude".into(),
            state: state.into(),
            reason: None,
            attention: (state == "needs_you").then(|| {
                Box::new(RowAttention {
                    kind: "permission".into(),
                    message: Some("Write out.txt".into()),
                    from_output: true,
                })
            }),
            choices: vec![choice("approve_once", "Yes"), choice("deny", "No")],
        };
        let asks = remote_notification(&note("needs_you")).payload();
        assert_eq!(asks.title, "far: create");
        assert_eq!(asks.host, "far");
        assert_eq!(asks.remote.as_deref(), Some("far"));
        assert_eq!(asks.task, 2);
        assert_eq!(asks.reason, "permission");
        assert_eq!(
            asks.body,
            "permission: from the program's output: Write out.txt"
        );
        assert_eq!(asks.actions.len(), 2);
        let done = remote_notification(&note("done")).payload();
        assert_eq!((done.body.as_str(), done.actions.len()), ("done", 0));
        // A host of protocol 9, or one naming a reason this termic does
        // not know: a plain error.
        let error = remote_notification(&note("error")).payload();
        assert_eq!(
            (error.body.as_str(), error.reason.as_str()),
            ("error", "error")
        );
        // Protocol 10: the reason the host named (issue 30's "error: rate
        // limited", for a remote host's task too).
        let auth = remote_notification(&Note {
            reason: Some(termic_signal::stop::StopReason::AuthFailed),
            ..note("error")
        })
        .payload();
        assert_eq!(
            (auth.body.as_str(), auth.reason.as_str(), auth.actions.len()),
            ("error: auth failed", "error", 0)
        );

        let dir = std::env::temp_dir();
        let push = Push::new(&dir, &dir);
        push.look_remote(3, Some(("far".into(), 2)));
        push.offer_remote(&note("done"));
        assert!(lock(&push.queue).is_empty(), "looked at: nothing");
        push.offer_remote(&Note {
            number: 1,
            ..note("done")
        });
        push.look_remote(3, None);
        push.offer_remote(&note("done"));
        let queued: Vec<u64> = lock(&push.queue).iter().map(|n| n.task).collect();
        assert_eq!(queued, [1, 2]);
    }

    #[test]
    fn a_full_queue_drops_the_oldest_and_a_watched_task_gets_nothing() {
        let dir = std::env::temp_dir();
        let push = Push::new(&dir, &dir);
        for n in 0..(QUEUE as u64 + 5) {
            push.offer(TaskId(1), (n, "t"), &Attention::Done, None, &[]);
        }
        let queue = lock(&push.queue);
        assert_eq!(queue.len(), QUEUE);
        assert_eq!(queue.front().unwrap().task, 5, "the oldest went");
        assert_eq!(queue.back().unwrap().task, QUEUE as u64 + 4);
        drop(queue);
        push.look(7, Some(TaskId(2)));
        push.offer(TaskId(2), (99, "t"), &Attention::Done, None, &[]);
        assert_eq!(lock(&push.queue).back().unwrap().task, QUEUE as u64 + 4);
        push.look(7, None);
        assert!(!push.looked_at(TaskId(2)));
    }
}
