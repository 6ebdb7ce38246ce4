//! Attention delivery: when a task nobody is watching starts needing you or
//! finishes, ring the bell and send a notification that says what the agent
//! needs when it told us. The decision is pure ([`decide`]); the writes to the
//! outer terminal and the desktop call are at the edge ([`Notifier`]).
//!
//! Desktop notifications go through notify-rust. Without a notification
//! service (no session bus, the normal case over SSH) they fall back to an
//! OSC 777 written to the outer terminal, which Ghostty, WezTerm, iTerm2,
//! foot and kitty show as a desktop notification (tmux needs passthrough).

use std::io::Write;

use crossbeam_channel::Sender;
use termic_signal::text::clean_line;

/// The user's switches (Settings and the wizard).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotifySettings {
    pub bell: bool,
    pub desktop: bool,
    /// Without a notification service, write OSC 777 to the outer terminal.
    pub osc_fallback: bool,
}

/// What a transition asks of the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Attention {
    /// `detail` is the agent's own words when it gave them (a native
    /// `blocked` message such as "approve Write: src/main.rs"), else the
    /// hook's kind (`permission`, `question`).
    NeedsYou {
        detail: Option<String>,
    },
    Done,
    /// The agent gave up on an API error: "stopped: auth failed";
    /// `None`: a remote host's task whose host named no reason this
    /// termic knows ("stopped on an error").
    Stopped {
        reason: Option<termic_signal::stop::StopReason>,
    },
    /// The agent stopped on a usage limit: "rate limited until 15:00".
    RateLimited {
        until: Option<termic_signal::limit::ResetAt>,
    },
}

/// A task reached a state that may earn attention.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttentionEvent {
    pub task: String,
    pub agent: String,
    pub attention: Attention,
    /// The user is looking at this task right now.
    pub watched: bool,
    /// What the task changed, `+12 -3, 2 files`, for a done (issue 32).
    pub stat: Option<String>,
}

/// What to do about one [`AttentionEvent`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Delivery {
    pub bell: bool,
    /// Notification text, when one should be sent.
    pub notification: Option<String>,
}

/// Decides the bell and the notification. A watched task earns nothing: the
/// user sees the badge change. Interrupted and exited never reach here.
pub fn decide(event: &AttentionEvent, settings: NotifySettings) -> Delivery {
    if event.watched {
        return Delivery::default();
    }
    let text = match &event.attention {
        Attention::NeedsYou { detail: Some(d) } => {
            format!("{} ({}) needs you: {d}", event.task, event.agent)
        }
        Attention::NeedsYou { detail: None } => {
            format!("{} ({}) needs you", event.task, event.agent)
        }
        Attention::Done => match &event.stat {
            Some(stat) => format!("{} ({}) is done: {stat}", event.task, event.agent),
            None => format!("{} ({}) is done", event.task, event.agent),
        },
        Attention::Stopped {
            reason: Some(reason),
        } => {
            format!("{} ({}) stopped: {reason}", event.task, event.agent)
        }
        Attention::Stopped { reason: None } => {
            format!("{} ({}) stopped on an error", event.task, event.agent)
        }
        Attention::RateLimited { until: Some(until) } => {
            format!(
                "{} ({}) rate limited until {until}",
                event.task, event.agent
            )
        }
        Attention::RateLimited { until: None } => {
            format!("{} ({}) rate limited", event.task, event.agent)
        }
    };
    Delivery {
        bell: settings.bell,
        notification: settings.desktop.then_some(text),
    }
}

/// The OSC 777 notification bytes for the outer terminal. The text is
/// cleaned ([`clean_line`]: no ESC, BEL, C1 or bidirectional control) and
/// `;` (the field separator) is replaced, so it cannot end the sequence or
/// inject another. Inside tmux the sequence is wrapped for passthrough
/// (tmux needs `allow-passthrough on` to forward it).
pub fn osc_notification(text: &str, in_tmux: bool) -> Vec<u8> {
    let clean: String = clean_line(text)
        .chars()
        .map(|c| if c == ';' { ' ' } else { c })
        .take(200)
        .collect();
    let osc = format!("\x1b]777;notify;termic;{clean}\x07");
    if in_tmux {
        format!("\x1bPtmux;{}\x1b\\", osc.replace('\x1b', "\x1b\x1b")).into_bytes()
    } else {
        osc.into_bytes()
    }
}

/// A desktop notification's text as plain text: cleaned ([`clean_line`]),
/// and, for a freedesktop notification server, `&`, `<` and `>` written as
/// entities. The spec lets a server with the `body-markup` capability
/// (KDE's, dunst, ...) render a body's tags and links, and the text holds
/// task names and what the program printed: escaped, a `<a href>` shows as
/// the characters it is, whatever the server. macOS shows bodies as they
/// are, so there it is only cleaned.
pub fn desktop_text(text: &str) -> String {
    let clean = clean_line(text);
    if cfg!(target_os = "macos") {
        return clean.into_owned();
    }
    let mut out = String::with_capacity(clean.len());
    for c in clean.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}

/// Where desktop notifications go on this machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// Try notify-rust; fall back to the terminal if it fails.
    Desktop,
    /// No notification service: straight to the outer terminal.
    Terminal,
}

/// macOS always has a notification centre; elsewhere notify-rust needs a
/// D-Bus session bus.
pub fn route(is_macos: bool, session_bus: bool) -> Route {
    if is_macos || session_bus {
        Route::Desktop
    } else {
        Route::Terminal
    }
}

/// The desktop notification's summary (its title line, termic's own
/// plain text); the body is the text [`decide`] wrote, as
/// [`desktop_text`].
pub const SUMMARY: &str = "termic";

/// The action a click on the notification itself invokes (the
/// notification spec's name for it).
pub const DEFAULT_ACTION: &str = "default";

/// What a desktop notification sends back to the app.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotifyReply {
    /// The desktop could not show it: write this text as OSC 777.
    Fallback(String),
    /// The user clicked the notification: focus this task.
    Focus(u64),
    /// The user clicked a remote task's notification: focus task `number`
    /// of host `host` (issue 29).
    FocusRemote { host: String, number: u64 },
}

/// Sends notifications. Desktop calls run on a thread so a slow bus never
/// stalls the UI; a failure comes back on `reply` as the text, and the app
/// writes it to the terminal with [`osc_notification`]. Where the server
/// supports actions, the thread then waits for the notification's default
/// action (a click) or its closing, and a click comes back as
/// [`NotifyReply::Focus`].
pub struct Notifier {
    pub route: Route,
    pub in_tmux: bool,
    /// The user allows the OSC 777 fallback (Settings: `osc_fallback`).
    pub osc_fallback: bool,
    reply: Sender<NotifyReply>,
}

impl Notifier {
    pub fn from_env(reply: Sender<NotifyReply>, osc_fallback: bool) -> Self {
        let session_bus =
            std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some_and(|v| !v.is_empty());
        Notifier {
            route: route(cfg!(target_os = "macos"), session_bus),
            in_tmux: std::env::var_os("TMUX").is_some(),
            osc_fallback,
            reply,
        }
    }

    /// Rings and notifies about `task`. `out` is the outer terminal,
    /// written between frames.
    pub fn deliver(
        &self,
        delivery: &Delivery,
        task: u64,
        out: &mut impl Write,
    ) -> std::io::Result<()> {
        self.deliver_for(delivery, NotifyReply::Focus(task), out)
    }

    /// As [`Notifier::deliver`], `click` being what a click on the desktop
    /// notification sends back.
    pub fn deliver_for(
        &self,
        delivery: &Delivery,
        click: NotifyReply,
        out: &mut impl Write,
    ) -> std::io::Result<()> {
        if delivery.bell {
            out.write_all(b"\x07")?;
        }
        if let Some(text) = &delivery.notification {
            match self.route {
                Route::Terminal if self.osc_fallback => {
                    out.write_all(&osc_notification(text, self.in_tmux))?
                }
                Route::Terminal => {}
                Route::Desktop => {
                    let (reply, osc) = (self.reply.clone(), self.osc_fallback);
                    let (text_for_thread, reply_for_thread) = (text.clone(), reply.clone());
                    let started = std::thread::Builder::new()
                        .name("termic-notify".into())
                        .spawn(move || {
                            show_desktop(&text_for_thread, click, osc, &reply_for_thread)
                        });
                    // Out of threads (`ulimit -u`): the terminal shows it,
                    // as when the desktop refuses; never a panic (in the
                    // server this is the timer thread).
                    if started.is_err() && osc {
                        let _ = reply.send(NotifyReply::Fallback(text.clone()));
                    }
                }
            }
        }
        out.flush()
    }
}

/// One desktop notification, on its own thread (see [`Notifier`]).
fn show_desktop(text: &str, click: NotifyReply, osc_fallback: bool, reply: &Sender<NotifyReply>) {
    // Asked first, so the listening starts before the show. A server
    // without actions gets none and is not waited on.
    let actions =
        notify_rust::get_capabilities().is_ok_and(|caps| caps.iter().any(|c| c == "actions"));
    let mut n = notify_rust::Notification::new();
    n.summary(SUMMARY).body(&desktop_text(text));
    let shown = zbus::block_on(async {
        let clicks = match actions {
            true => Clicks::listen().await,
            false => None,
        };
        if clicks.is_some() {
            n.action(DEFAULT_ACTION, "Show the task");
        }
        let handle = n.show_async().await?;
        if let Some(clicks) = clicks {
            if clicks.clicked(handle.id()).await {
                let _ = reply.send(click);
            }
        }
        Ok::<(), notify_rust::error::Error>(())
    });
    if shown.is_err() && osc_fallback {
        let _ = reply.send(NotifyReply::Fallback(text.to_owned()));
    }
}

/// The notification server's signals, subscribed to before the
/// notification is shown. notify-rust's own wait subscribes after the show
/// and again between messages, so a click (ActionInvoked, then
/// NotificationClosed) that came in that window was lost, or only its
/// closing was seen: CI lost every click of a run that way.
struct Clicks {
    stream: zbus::MessageStream,
}

impl Clicks {
    const INTERFACE: &'static str = "org.freedesktop.Notifications";

    async fn listen() -> Option<Clicks> {
        let bus = zbus::Connection::session().await.ok()?;
        let rule = zbus::MatchRule::builder()
            .msg_type(zbus::message::Type::Signal)
            .interface(Self::INTERFACE)
            .build()
            .ok()?;
        let stream = zbus::MessageStream::for_match_rule(rule, &bus, None)
            .await
            .ok()?;
        Some(Clicks { stream })
    }

    /// Waits until notification `id` is clicked (true) or closed, expired,
    /// dismissed or replaced (false): the wait does not outlive it.
    async fn clicked(mut self, id: u32) -> bool {
        use futures_lite::StreamExt;
        while let Some(Ok(msg)) = self.stream.next().await {
            let member = msg.header().member().map(|m| m.to_string());
            match member.as_deref() {
                Some("ActionInvoked") => {
                    if let Ok((nid, action)) = msg.body().deserialize::<(u32, String)>() {
                        if nid == id {
                            return action == DEFAULT_ACTION;
                        }
                    }
                }
                Some("NotificationClosed") => {
                    if let Ok((nid, _reason)) = msg.body().deserialize::<(u32, u32)>() {
                        if nid == id {
                            return false;
                        }
                    }
                }
                _ => {}
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL_ON: NotifySettings = NotifySettings {
        bell: true,
        desktop: true,
        osc_fallback: true,
    };

    fn event(attention: Attention, watched: bool) -> AttentionEvent {
        AttentionEvent {
            stat: None,
            task: "fix".into(),
            agent: "claude".into(),
            attention,
            watched,
        }
    }

    #[test]
    fn unwatched_needs_you_says_what_the_agent_needs() {
        let d = decide(
            &event(
                Attention::NeedsYou {
                    detail: Some("approve Write: src/main.rs".into()),
                },
                false,
            ),
            ALL_ON,
        );
        assert!(d.bell);
        assert_eq!(
            d.notification.as_deref(),
            Some("fix (claude) needs you: approve Write: src/main.rs")
        );
        let d = decide(&event(Attention::NeedsYou { detail: None }, false), ALL_ON);
        assert_eq!(d.notification.as_deref(), Some("fix (claude) needs you"));
    }

    #[test]
    fn unwatched_done_rings_and_notifies() {
        let d = decide(&event(Attention::Done, false), ALL_ON);
        assert_eq!(
            d,
            Delivery {
                bell: true,
                notification: Some("fix (claude) is done".into())
            }
        );
    }

    #[test]
    fn an_unwatched_rate_limit_says_until_when() {
        let limited = Attention::RateLimited {
            until: termic_signal::limit::ResetAt::new(15, 0),
        };
        let d = decide(&event(limited, false), ALL_ON);
        assert!(d.bell);
        assert_eq!(
            d.notification.as_deref(),
            Some("fix (claude) rate limited until 15:00")
        );
        let d = decide(
            &event(Attention::RateLimited { until: None }, false),
            ALL_ON,
        );
        assert_eq!(d.notification.as_deref(), Some("fix (claude) rate limited"));
    }

    #[test]
    fn an_unwatched_error_says_stopped_and_why() {
        let stopped = Attention::Stopped {
            reason: Some(termic_signal::stop::StopReason::RateLimited),
        };
        let d = decide(&event(stopped, false), ALL_ON);
        assert!(d.bell);
        let text = d.notification.unwrap();
        assert!(text.ends_with("stopped: rate limited"), "{text}");
        assert!(!text.contains('\u{2014}'), "{text}");
        // A remote task whose host named no reason it knows.
        let d = decide(&event(Attention::Stopped { reason: None }, false), ALL_ON);
        assert_eq!(
            d.notification.as_deref(),
            Some("fix (claude) stopped on an error")
        );
    }

    #[test]
    fn watched_task_earns_nothing() {
        assert_eq!(
            decide(&event(Attention::Done, true), ALL_ON),
            Delivery::default()
        );
    }

    #[test]
    fn each_part_can_be_switched_off() {
        let e = event(Attention::Done, false);
        let d = decide(
            &e,
            NotifySettings {
                bell: false,
                desktop: true,
                osc_fallback: true,
            },
        );
        assert!(!d.bell && d.notification.is_some());
        let d = decide(
            &e,
            NotifySettings {
                bell: true,
                desktop: false,
                osc_fallback: true,
            },
        );
        assert!(d.bell && d.notification.is_none());
    }

    #[test]
    fn osc_text_cannot_break_out_of_the_sequence() {
        assert_eq!(
            osc_notification("a needs you", false),
            b"\x1b]777;notify;termic;a needs you\x07"
        );
        assert_eq!(
            osc_notification("x\x07\x1b]0;evil;y", false),
            b"\x1b]777;notify;termic;x]0 evil y\x07"
        );
        // C1 (an 8-bit OSC and ST) and bidirectional controls are gone too.
        assert_eq!(
            osc_notification("a\u{9d}0;t\u{9c}\u{202e}b\nc", false),
            b"\x1b]777;notify;termic;a0 tb c\x07"
        );
    }

    #[test]
    #[cfg(not(target_os = "macos"))]
    fn a_desktop_body_is_plain_text_with_markup_escaped() {
        let text = "t (codex) needs you: <a href=\"https://x\">Session expired</a> \
                    <img src=\"file:///etc/passwd\"/> & \x1b[2J\u{9b}\u{202e}";
        assert_eq!(
            desktop_text(text),
            "t (codex) needs you: &lt;a href=\"https://x\"&gt;Session expired&lt;/a&gt; \
             &lt;img src=\"file:///etc/passwd\"/&gt; &amp; [2J"
        );
        assert_eq!(desktop_text("bg (fake) is done"), "bg (fake) is done");
    }

    #[test]
    fn tmux_gets_passthrough() {
        assert_eq!(
            osc_notification("hi", true),
            b"\x1bPtmux;\x1b\x1b]777;notify;termic;hi\x07\x1b\\"
        );
    }

    #[test]
    fn no_bus_means_the_terminal() {
        assert_eq!(route(false, false), Route::Terminal);
        assert_eq!(route(false, true), Route::Desktop);
        assert_eq!(route(true, false), Route::Desktop);
    }

    #[test]
    fn terminal_route_writes_bell_then_osc() {
        let (tx, _rx) = crossbeam_channel::unbounded();
        let mut n = Notifier {
            route: Route::Terminal,
            in_tmux: false,
            osc_fallback: true,
            reply: tx,
        };
        let delivery = Delivery {
            bell: true,
            notification: Some("t is done".into()),
        };
        let mut out = Vec::new();
        n.deliver(&delivery, 1, &mut out).unwrap();
        assert_eq!(out, b"\x07\x1b]777;notify;termic;t is done\x07");
        n.osc_fallback = false;
        let mut out = Vec::new();
        n.deliver(&delivery, 1, &mut out).unwrap();
        assert_eq!(out, b"\x07", "fallback switched off: the bell only");
    }
}
