//! What a notification says (pure): the JSON the web page's service
//! worker shows, and the same for a webhook; ntfy gets its title and body.
//!
//! `{"title":"<host>: <task name>","body":"<why>","task":<number>,
//! "host":"<host>","reason":"permission|question|plan|done|error|...",
//! "actions":[{"action":"<choice id>","title":"<label>"}]}`
//!
//! Every text is cleaned (no control or bidirectional characters: a task
//! names itself and an agent's message is its own words) and capped.

use serde::Serialize;
use termic_signal::text::clean_line;

/// The longest title or body, in characters (a phone shows two lines).
pub const MAX_TEXT_CHARS: usize = 160;

/// The most actions a notification carries (browsers show two or three).
pub const MAX_ACTIONS: usize = 3;

/// What happened to the task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Why {
    /// The task needs the user. `kind`: "permission", "question", "plan"
    /// or another the agent named; `detail`: its own words, when it gave
    /// them ("Write src/login.rs").
    NeedsYou {
        kind: Option<String>,
        detail: Option<String>,
    },
    /// Its turn ended.
    Done,
    /// It gave up on an error ("server error").
    Error { label: String },
    /// It stopped on a usage limit, until `HH:MM` when the agent said.
    RateLimited { until: Option<String> },
}

impl Why {
    /// Only "needs you" reaches a device in needs-you-only mode.
    pub fn needs_you(&self) -> bool {
        matches!(self, Why::NeedsYou { .. })
    }

    /// The payload's `reason`.
    pub fn reason(&self) -> String {
        match self {
            Why::NeedsYou { kind, .. } => {
                let kind = kind.as_deref().map(clean_token);
                kind.filter(|k| !k.is_empty())
                    .unwrap_or_else(|| "needs_you".into())
            }
            Why::Done => "done".into(),
            Why::Error { .. } => "error".into(),
            Why::RateLimited { .. } => "rate_limited".into(),
        }
    }

    /// The notification's body: "permission: Write src/login.rs",
    /// "question", "done", "error: rate limited".
    pub fn body(&self) -> String {
        let text = match self {
            Why::NeedsYou { kind, detail } => {
                let kind = kind.as_deref().map(clean_token).filter(|k| !k.is_empty());
                let detail = detail.as_deref().map(|d| clean_line(d).trim().to_owned());
                let detail = detail.filter(|d| !d.is_empty());
                match (kind, detail) {
                    // The kind alone came as the detail too.
                    (Some(k), Some(d)) if d == k => k,
                    (Some(k), Some(d)) => format!("{k}: {d}"),
                    (Some(k), None) => k,
                    (None, Some(d)) => format!("needs you: {d}"),
                    (None, None) => "needs you".into(),
                }
            }
            Why::Done => "done".into(),
            Why::Error { label } => match clean_line(label).trim() {
                // A remote host's row names no reason.
                "" => "error".into(),
                label => format!("error: {label}"),
            },
            Why::RateLimited { until: Some(until) } => {
                format!("rate limited until {}", clean_line(until).trim())
            }
            Why::RateLimited { until: None } => "rate limited".into(),
        };
        cap(&text)
    }
}

/// A kind as a short token: letters, digits, `_` and `-` only.
fn clean_token(kind: &str) -> String {
    kind.chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'))
        .take(32)
        .collect::<String>()
        .to_ascii_lowercase()
}

/// A host's name as config.toml allows it (letters, digits, `_`, `-`),
/// case kept: the page matches it against its `@NAME` groups.
fn host_token(host: &str) -> String {
    host.chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'))
        .take(64)
        .collect()
}

/// At most [`MAX_TEXT_CHARS`] characters, an ellipsis where cut.
fn cap(text: &str) -> String {
    if text.chars().count() <= MAX_TEXT_CHARS {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(MAX_TEXT_CHARS - 1).collect();
    out.push('\u{2026}');
    out
}

/// One button on the notification: a choice the agent's dialog offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Action {
    /// The choice's id, sent back when tapped.
    pub action: String,
    /// Its label.
    pub title: String,
}

/// One notification about one task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notification {
    /// The task's number (what every client shows and every verb takes).
    pub task: u64,
    /// The task's name.
    pub name: String,
    /// This machine's host name, or "local"; for a remote host's task
    /// the host's name in config.toml.
    pub host: String,
    /// A remote host's task (2026-12-06): that host's name in config.toml
    /// (`task` is then its number there). The page opens it as
    /// `#task=HOST:N`; `None` for a task of this machine.
    pub remote: Option<String>,
    pub why: Why,
    /// The choices a tap can answer with. Empty until the server knows a
    /// dialog's choices (issue 30, one-tap answers): the one place to
    /// fill them is where the server builds the notification.
    pub actions: Vec<Action>,
}

/// The JSON sent to a browser and a webhook.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Payload {
    pub title: String,
    pub body: String,
    pub task: u64,
    pub host: String,
    pub reason: String,
    pub actions: Vec<Action>,
    /// The remote host's name when the task is a remote host's (absent
    /// for this machine's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remote: Option<String>,
}

impl Notification {
    /// "<host>: <task name>".
    pub fn title(&self) -> String {
        let host = clean_line(&self.host);
        let name = clean_line(&self.name);
        cap(&format!("{}: {}", host.trim(), name.trim()))
    }

    /// The payload, every text cleaned and capped (pure).
    pub fn payload(&self) -> Payload {
        Payload {
            title: self.title(),
            body: self.why.body(),
            task: self.task,
            host: cap(clean_line(&self.host).trim()),
            reason: self.why.reason(),
            actions: self
                .actions
                .iter()
                .take(MAX_ACTIONS)
                .map(|a| Action {
                    action: cap(&clean_token(&a.action)),
                    title: cap(clean_line(&a.title).trim()),
                })
                .collect(),
            remote: self.remote.as_deref().map(host_token),
        }
    }

    /// The push service's `Topic` (RFC 8030 5.4: at most 32 characters of
    /// the URL-safe base64 alphabet): one per task, so a newer
    /// notification of a task replaces its undelivered older one.
    pub fn topic(&self) -> String {
        let topic = match &self.remote {
            None => format!("termic-task-{}", self.task),
            Some(host) => format!("termic-{}-{}", host_token(host), self.task),
        };
        topic.chars().take(32).collect()
    }

    /// The payload as JSON bytes.
    pub fn json(&self) -> Vec<u8> {
        serde_json::to_vec(&self.payload()).expect("a payload serializes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note(why: Why) -> Notification {
        Notification {
            task: 3,
            name: "login".into(),
            host: "devbox".into(),
            remote: None,
            why,
            actions: Vec::new(),
        }
    }

    #[test]
    fn the_body_says_why_as_the_issue_writes_it() {
        let permission = Why::NeedsYou {
            kind: Some("permission".into()),
            detail: Some("Write src/login.rs".into()),
        };
        assert_eq!(permission.body(), "permission: Write src/login.rs");
        assert_eq!(permission.reason(), "permission");
        let question = Why::NeedsYou {
            kind: Some("question".into()),
            detail: Some("question".into()),
        };
        assert_eq!(question.body(), "question");
        assert_eq!(Why::Done.body(), "done");
        let error = Why::Error {
            label: "rate limited".into(),
        };
        assert_eq!(error.body(), "error: rate limited");
        assert_eq!(error.reason(), "error");
        let limited = Why::RateLimited {
            until: Some("15:00".into()),
        };
        assert_eq!(limited.body(), "rate limited until 15:00");
        assert_eq!(limited.reason(), "rate_limited");
        assert_eq!(Why::RateLimited { until: None }.body(), "rate limited");
        let bare = Why::NeedsYou {
            kind: None,
            detail: None,
        };
        assert_eq!(
            (bare.body().as_str(), bare.reason().as_str()),
            ("needs you", "needs_you")
        );
    }

    #[test]
    fn the_payload_has_the_contracts_fields() {
        let json: serde_json::Value = serde_json::from_slice(&note(Why::Done).json()).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"title": "devbox: login", "body": "done", "task": 3,
                "host": "devbox", "reason": "done", "actions": []})
        );
    }

    #[test]
    fn a_remote_tasks_payload_names_its_host_and_has_a_topic_of_its_own() {
        let mut n = note(Why::Error {
            label: String::new(),
        });
        n.host = "far".into();
        n.remote = Some("far".into());
        let json: serde_json::Value = serde_json::from_slice(&n.json()).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"title": "far: login", "body": "error", "task": 3,
                "host": "far", "reason": "error", "actions": [], "remote": "far"})
        );
        assert_eq!(n.topic(), "termic-far-3");
        n.remote = None;
        assert_eq!(n.topic(), "termic-task-3");
        n.remote = Some("a-very-long-host-name-indeed-yes".into());
        assert_eq!(n.topic().len(), 32);
    }

    #[test]
    fn hostile_text_is_cleaned_and_capped() {
        let mut n = note(Why::NeedsYou {
            kind: Some("perm\u{1b}ission<script>".into()),
            detail: Some(format!("\u{202e}exe.txt\x07\n{}", "x".repeat(500))),
        });
        n.name = "a\u{1b}]0;evil\u{7}b".into();
        n.actions = vec![
            Action {
                action: "ok\u{1b}".into(),
                title: "Yes\u{2067}".into(),
            };
            5
        ];
        let p = n.payload();
        for text in [&p.title, &p.body, &p.reason] {
            assert!(
                !text.chars().any(termic_signal::text::is_unprintable),
                "{text:?}"
            );
            assert!(text.chars().count() <= MAX_TEXT_CHARS);
        }
        assert_eq!(p.reason, "permissionscript");
        assert_eq!(p.title, "devbox: a]0;evilb");
        assert!(p.body.ends_with('\u{2026}'));
        assert_eq!(p.actions.len(), MAX_ACTIONS);
        assert_eq!(p.actions[0].action, "ok");
        assert_eq!(p.actions[0].title, "Yes");
    }
}
