//! Issue 27: a notification's body is plain text. A Codex task's OSC 7501
//! `msg=` is the program's own words, and notification servers with the
//! `body-markup` capability (KDE's, dunst) render a body's tags and links:
//! termic must send `<`, `>` and `&` as entities, so the desktop shows the
//! characters and never a link that says termic. Seen where it matters: on
//! a real session bus, by a notification server (tests/dbus).

#[path = "../dbus/mod.rs"]
mod dbus;

use base64::Engine as _;

use crate::harness::{fake_agent_config, Fixture};
use crate::served::{text, Served};
use dbus::{NotifyServer, SessionBus};

/// What the program printed, in its needs-you report: a link, an image
/// of a local file, an ampersand, and terminal control (ESC, C1, bidi).
const PRINTED: &str = "<a href=\"https://example.com/login\">Session expired: click to \
re-authenticate</a> <img src=\"file:///etc/passwd\"/> &amp; R&D \x1b[2J\u{9b}\u{202e}";

#[test]
fn a_notification_body_reaches_the_desktop_as_escaped_plain_text() {
    let Some(bus) = SessionBus::start() else {
        return;
    };
    let server = NotifyServer::start(&bus);
    let msg = base64::engine::general_purpose::STANDARD.encode(PRINTED);
    // A Codex-based agent (native status always) that needs you at once,
    // with the printed text as its message; no client is attached, so the
    // termic server notifies the desktop itself.
    let script = format!(
        "printf '\\033]7501;state=blocked:app=codex:kind=permission:msg={msg}\\007'; sleep 600"
    );
    let f = Fixture::new();
    f.config(&fake_agent_config(&script).replace("\"claude\"", "\"codex\""));
    let s = Served { f };
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_termic"))
        .args(["run", "--detach", "fake", "--name", "t<b>1</b>"])
        .current_dir(&s.f.work)
        .env_clear()
        .env("HOME", &s.f.home)
        .env("TERMIC_CONFIG_DIR", &s.f.config_dir)
        .env("TERMIC_DATA_DIR", &s.f.data_dir)
        .env("PATH", s.f.path_var())
        .env("DBUS_SESSION_BUS_ADDRESS", &bus.address)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));

    let shown = server.next_with("needs you");
    assert_eq!(shown["summary"], "termic");
    assert_eq!(
        shown["body"],
        "t&lt;b&gt;1&lt;/b&gt; (fake) needs you: from the program's output: \
         &lt;a href=\"https://example.com/login\"&gt;Session expired: click to \
         re-authenticate&lt;/a&gt; &lt;img src=\"file:///etc/passwd\"/&gt; \
         &amp;amp; R&amp;D [2J"
    );
}
