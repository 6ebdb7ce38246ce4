//! Push notifications from the server (issue 30 item 3): a local HTTP
//! endpoint in the test plays the push service, ntfy and the webhook.
//! What a browser's service worker would do is done here: the body is
//! decrypted with the subscription's private key and auth secret (RFC
//! 8291) and the VAPID header's signature checked (RFC 8292). The
//! browser's own subscribe step is not covered (no push service is
//! reachable here).

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use p256::elliptic_curve::sec1::ToEncodedPoint;
use p256::SecretKey;
use serde_json::Value;

use crate::harness::{fake_agent_config, hook, Termic};
use crate::served::Served;
use crate::wait::eventually_some;

/// One request the endpoint received.
#[derive(Debug, Clone)]
pub(crate) struct Received {
    path: String,
    headers: HashMap<String, String>,
    body: Vec<u8>,
}

impl Received {
    pub(crate) fn header(&self, name: &str) -> &str {
        self.headers
            .get(&name.to_ascii_lowercase())
            .map_or("", String::as_str)
    }
}

/// A local HTTP server: answers each path with its status (201 when not
/// listed), or never answers a path marked 0, and keeps what it got.
pub(crate) struct Endpoint {
    port: u16,
    got: Arc<Mutex<Vec<Received>>>,
}

impl Endpoint {
    pub(crate) fn start(statuses: &[(&str, u16)]) -> Endpoint {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let got = Arc::new(Mutex::new(Vec::new()));
        let statuses: HashMap<String, u16> =
            statuses.iter().map(|(p, s)| (p.to_string(), *s)).collect();
        let (theirs, statuses) = (Arc::clone(&got), Arc::new(statuses));
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { return };
                let (got, statuses) = (Arc::clone(&theirs), Arc::clone(&statuses));
                std::thread::spawn(move || serve(stream, &got, &statuses));
            }
        });
        Endpoint { port, got }
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    pub(crate) fn at(&self, path: &str) -> Vec<Received> {
        self.got
            .lock()
            .unwrap()
            .iter()
            .filter(|r| r.path == path)
            .cloned()
            .collect()
    }

    /// Waits until `path` got `n` requests; returns them.
    pub(crate) fn wait(&self, path: &str, n: usize) -> Vec<Received> {
        eventually_some(Duration::from_secs(30), || {
            let got = self.at(path);
            (got.len() >= n).then_some(got)
        })
        .unwrap_or_else(|| panic!("{path} never got {n} requests: {:?}", self.at(path)))
    }
}

/// One connection: requests until it closes (ureq keeps it alive).
fn serve(stream: TcpStream, got: &Mutex<Vec<Received>>, statuses: &HashMap<String, u16>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut out = stream;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let path = line.split_whitespace().nth(1).unwrap_or("").to_owned();
        let mut headers = HashMap::new();
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h).unwrap_or(0) == 0 {
                return;
            }
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_owned());
            }
        }
        let mut body = Vec::new();
        if let Some(len) = headers.get("content-length") {
            body.resize(len.parse().unwrap(), 0);
            reader.read_exact(&mut body).unwrap();
        } else if headers.get("transfer-encoding").map(String::as_str) == Some("chunked") {
            loop {
                let mut size = String::new();
                reader.read_line(&mut size).unwrap();
                let size = usize::from_str_radix(size.trim(), 16).unwrap();
                let mut chunk = vec![0; size + 2];
                reader.read_exact(&mut chunk).unwrap();
                if size == 0 {
                    break;
                }
                body.extend_from_slice(&chunk[..size]);
            }
        }
        let status = statuses.get(&path).copied().unwrap_or(201);
        got.lock().unwrap().push(Received {
            path,
            headers,
            body,
        });
        if status == 0 {
            // Never answers: holds the connection until the test ends.
            std::thread::sleep(Duration::from_secs(3600));
            return;
        }
        let answer = format!("HTTP/1.1 {status} X\r\ncontent-length: 0\r\n\r\n");
        if out.write_all(answer.as_bytes()).is_err() {
            return;
        }
    }
}

/// A browser's subscription keys, made by the test.
pub(crate) struct Browser {
    key: SecretKey,
    auth: [u8; 16],
}

impl Browser {
    pub(crate) fn new() -> Browser {
        let mut auth = [0u8; 16];
        getrandom::fill(&mut auth).unwrap();
        Browser {
            key: termic_push::ece::random_secret().unwrap(),
            auth,
        }
    }

    pub(crate) fn entry(
        &self,
        device: &str,
        endpoint: &str,
        muted: &[u64],
        needs_you_only: bool,
    ) -> Value {
        let b64 = termic_push::b64::encode;
        serde_json::json!({
            "device": device,
            "endpoint": endpoint,
            "keys": {
                "p256dh": b64(self.key.public_key().to_encoded_point(false).as_bytes()),
                "auth": b64(&self.auth),
            },
            "muted": muted,
            "needs_you_only": needs_you_only,
            "label": format!("{device}'s browser"),
        })
    }

    /// What the service worker gets: the decrypted payload.
    pub(crate) fn open(&self, got: &Received) -> Value {
        assert_eq!(got.header("content-encoding"), "aes128gcm");
        let plain = termic_push::ece::decrypt(&got.body, &self.key, &self.auth)
            .expect("the push decrypts with the subscription's keys");
        serde_json::from_slice(&plain).unwrap()
    }
}

pub(crate) fn subscribe(data_dir: &Path, entries: &[Value]) {
    let web = data_dir.join("web");
    std::fs::create_dir_all(&web).unwrap();
    std::fs::write(
        web.join("push-subscriptions.json"),
        serde_json::to_vec_pretty(entries).unwrap(),
    )
    .unwrap();
}

pub(crate) fn subscriptions(data_dir: &Path) -> Vec<Value> {
    let text = std::fs::read(data_dir.join("web/push-subscriptions.json")).unwrap();
    serde_json::from_slice::<Value>(&text)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

/// The task: needs you (a permission), then done once answered.
fn asks_then_done() -> String {
    [
        hook("attention", ";kind=permission"),
        "read answer".into(),
        hook("done", ""),
        "sleep 600".into(),
    ]
    .join("; ")
}

pub(crate) fn served(script: &str, notifications: &str) -> Served {
    let s = Served::new(script);
    let config = format!(
        "{}\n[notifications]\npush_contact = \"mailto:push-test@example.com\"\n{notifications}",
        fake_agent_config(script)
    );
    s.f.config(&config);
    s
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

fn host_name() -> String {
    let text = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    match text.trim() {
        "" => "local".into(),
        name => name.into(),
    }
}

#[test]
fn a_task_that_needs_you_is_pushed_encrypted_and_signed_to_a_subscribed_browser() {
    let endpoint = Endpoint::start(&[]);
    let s = served(&asks_then_done(), "");
    let browser = Browser::new();
    subscribe(
        &s.f.data_dir,
        &[browser.entry("phone", &endpoint.url("/push/phone"), &[], false)],
    );
    s.expect(&["run", "fake", "--name", "login", "--detach"], 0);
    s.expect(
        &["wait", "login", "--for", "needs-you", "--timeout", "30"],
        0,
    );

    let got = endpoint.wait("/push/phone", 1).remove(0);
    let payload = browser.open(&got);
    let host = host_name();
    assert_eq!(payload["host"], host.as_str(), "{payload}");
    assert_eq!(payload["title"], format!("{host}: login"), "{payload}");
    assert_eq!(payload["task"], 1, "{payload}");
    assert_eq!(payload["reason"], "permission", "{payload}");
    assert_eq!(payload["body"], "permission", "{payload}");
    assert_eq!(payload["actions"], serde_json::json!([]), "{payload}");
    assert_eq!(got.header("urgency"), "high");
    assert_eq!(got.header("ttl"), "86400");

    // VAPID: the token's signature holds with the key it names, which is
    // the key in vapid.json (0600); the audience is the endpoint's origin.
    let (claims, key) = termic_push::vapid::verify_authorization(got.header("authorization"))
        .expect("a valid VAPID header");
    assert_eq!(claims.aud, format!("http://127.0.0.1:{}", endpoint.port));
    assert_eq!(claims.sub, "mailto:push-test@example.com");
    let now = now_secs();
    assert!(
        claims.exp > now && claims.exp <= now + 24 * 3600,
        "exp {} now {now}",
        claims.exp
    );
    let vapid = s.f.data_dir.join("web/vapid.json");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&vapid).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let file: Value = serde_json::from_slice(&std::fs::read(&vapid).unwrap()).unwrap();
    assert_eq!(file["public"], termic_push::b64::encode(&key));

    // Answered: done is pushed too, at normal urgency.
    s.expect(&["send", "login", "yes", "--enter"], 0);
    let done = endpoint.wait("/push/phone", 2).remove(1);
    let payload = browser.open(&done);
    assert_eq!(payload["reason"], "done", "{payload}");
    assert_eq!(payload["body"], "done", "{payload}");
    assert_eq!(done.header("urgency"), "normal");
}

#[test]
fn mute_needs_you_only_a_gone_subscription_ntfy_and_the_webhook() {
    let endpoint = Endpoint::start(&[("/push/gone", 410)]);
    let notifications = format!(
        "ntfy = \"{}\"\nntfy_token = \"tk_secret\"\nwebhook = \"{}\"\n",
        endpoint.url("/ntfy/topic"),
        endpoint.url("/hook")
    );
    let s = served(&asks_then_done(), &notifications);
    let (muted, only, gone, all) = (
        Browser::new(),
        Browser::new(),
        Browser::new(),
        Browser::new(),
    );
    subscribe(
        &s.f.data_dir,
        &[
            muted.entry("muted", &endpoint.url("/push/muted"), &[1], false),
            only.entry("only", &endpoint.url("/push/only"), &[], true),
            gone.entry("gone", &endpoint.url("/push/gone"), &[], false),
            all.entry("all", &endpoint.url("/push/all"), &[], false),
        ],
    );
    s.expect(&["run", "fake", "--name", "t1", "--detach"], 0);
    s.expect(&["wait", "t1", "--for", "needs-you", "--timeout", "30"], 0);
    let first = endpoint.wait("/push/all", 1);
    assert_eq!(all.open(&first[0])["reason"], "permission");
    assert_eq!(only.open(&endpoint.wait("/push/only", 1)[0])["task"], 1);
    assert_eq!(gone.open(&endpoint.wait("/push/gone", 1)[0])["task"], 1);

    // 410: that subscription is removed; the others stay as written.
    let left = crate::wait::eventually_some(Duration::from_secs(30), || {
        let subs = subscriptions(&s.f.data_dir);
        (subs.len() == 3).then_some(subs)
    })
    .expect("the gone subscription is removed");
    let devices: Vec<&str> = left.iter().map(|e| e["device"].as_str().unwrap()).collect();
    assert_eq!(devices, ["muted", "only", "all"]);
    assert_eq!(left[0]["muted"], serde_json::json!([1]));
    assert_eq!(left[1]["needs_you_only"], true);
    assert_eq!(
        left[2]["label"], "all's browser",
        "fields we do not know are kept"
    );

    // ntfy: the body is why, the title names host and task, the token is sent.
    let ntfy = endpoint.wait("/ntfy/topic", 1).remove(0);
    assert_eq!(String::from_utf8_lossy(&ntfy.body), "permission");
    assert_eq!(ntfy.header("title"), format!("{}: t1", host_name()));
    assert_eq!(ntfy.header("authorization"), "Bearer tk_secret");
    assert_eq!(ntfy.header("priority"), "high");
    // The webhook: the same JSON a browser gets, in the clear.
    let hook = endpoint.wait("/hook", 1).remove(0);
    assert_eq!(hook.header("content-type"), "application/json");
    let json: Value = serde_json::from_slice(&hook.body).unwrap();
    assert_eq!(json, all.open(&first[0]));

    // Done: not for needs-you-only, not for the muted task, not for the
    // removed subscription. A second task's needs you then proves it:
    // notifications go out in order, one after the other.
    s.expect(&["send", "t1", "yes", "--enter"], 0);
    assert_eq!(
        all.open(&endpoint.wait("/push/all", 2)[1])["reason"],
        "done"
    );
    s.expect(&["run", "fake", "--name", "t2", "--detach"], 0);
    let all_got = endpoint.wait("/push/all", 3);
    assert_eq!(all.open(&all_got[2])["task"], 2);
    let only_got = endpoint.wait("/push/only", 2);
    let only_seen: Vec<(Value, Value)> = only_got
        .iter()
        .map(|r| {
            let p = only.open(r);
            (p["task"].clone(), p["reason"].clone())
        })
        .collect();
    assert_eq!(
        only_seen,
        [
            (1.into(), "permission".into()),
            (2.into(), "permission".into())
        ]
    );
    let muted_got = endpoint.wait("/push/muted", 1);
    assert_eq!(muted_got.len(), 1, "the muted task never reached it");
    assert_eq!(muted.open(&muted_got[0])["task"], 2);
    assert_eq!(endpoint.at("/push/gone").len(), 1, "removed: nothing more");
    let log = std::fs::read_to_string(s.f.data_dir.join("server.log")).unwrap();
    assert!(
        log.contains("said the subscription is gone (HTTP 410); removed it"),
        "{log}"
    );
    assert!(
        !log.contains("/push/gone"),
        "no endpoint URL in the log: {log}"
    );
}

#[test]
fn a_push_service_that_never_answers_delays_no_state_and_no_other_target() {
    let endpoint = Endpoint::start(&[("/push/stuck", 0)]);
    let s = served(&asks_then_done(), "");
    let (stuck, fine) = (Browser::new(), Browser::new());
    subscribe(
        &s.f.data_dir,
        &[
            stuck.entry("stuck", &endpoint.url("/push/stuck"), &[], false),
            fine.entry("fine", &endpoint.url("/push/fine"), &[], false),
        ],
    );
    s.expect(&["run", "fake", "--name", "t1", "--detach"], 0);
    s.expect(&["wait", "t1", "--for", "needs-you", "--timeout", "30"], 0);
    let reached = Instant::now();
    endpoint.wait("/push/stuck", 1);
    endpoint.wait("/push/fine", 1);
    let fine_after = reached.elapsed();
    // While the stuck one holds its request: the server answers and the
    // task's next state shows at once.
    let asked = Instant::now();
    s.expect(&["send", "t1", "yes", "--enter"], 0);
    s.expect(&["wait", "t1", "--for", "done", "--timeout", "30"], 0);
    let state_after = asked.elapsed();
    assert!(
        fine_after < Duration::from_secs(5),
        "the other subscription waited {fine_after:?}"
    );
    assert!(
        state_after < Duration::from_secs(5),
        "the state change waited {state_after:?}"
    );
    eprintln!("push: other target after {fine_after:?}, next state after {state_after:?}");
    // The stuck request is given up within the 10 s bound, and the done
    // notification goes out after it.
    let done = endpoint.wait("/push/fine", 2).remove(1);
    assert_eq!(fine.open(&done)["reason"], "done");
    let log = crate::wait::eventually_some(Duration::from_secs(30), || {
        let log = std::fs::read_to_string(s.f.data_dir.join("server.log")).ok()?;
        log.contains("not reached").then_some(log)
    })
    .expect("the timeout is logged");
    assert!(
        log.contains("the push service at http://127.0.0.1"),
        "{log}"
    );
}

#[test]
fn a_task_a_client_or_a_view_is_looking_at_is_not_pushed() {
    let endpoint = Endpoint::start(&[]);
    // t1 needs you once the test says so, while a client looks at it.
    let script = format!(
        "echo ready; while [ ! -f go ]; do sleep 0.05; done; {}; sleep 600",
        hook("attention", ";kind=question")
    );
    let s = served(&script, "");
    let browser = Browser::new();
    subscribe(
        &s.f.data_dir,
        &[browser.entry("phone", &endpoint.url("/push/phone"), &[], false)],
    );
    s.expect(&["run", "fake", "--name", "looked", "--detach"], 0);
    let mut client = Termic::start(&s.f, &["attach", "looked"]);
    client.wait_text("ready");
    std::fs::write(s.f.work.join("go"), "").unwrap();
    s.expect(
        &["wait", "looked", "--for", "needs-you", "--timeout", "30"],
        0,
    );
    client.prefix(b"d");
    assert_eq!(client.wait_exit(), 0);
    // Nobody looks at the second one: it is pushed, and it is the first
    // notification the browser gets (they go out in order).
    s.expect(&["run", "fake", "--name", "unseen", "--detach"], 0);
    let got = endpoint.wait("/push/phone", 1);
    let payload = browser.open(&got[0]);
    assert_eq!(
        payload["title"],
        format!("{}: unseen", host_name()),
        "{payload}"
    );
    assert_eq!(payload["reason"], "question");

    // A view of a task (the web page's terminal, a remote host) is looking
    // too, for as long as it is open.
    std::fs::remove_file(s.f.work.join("go")).unwrap();
    s.expect(&["run", "fake", "--name", "viewed", "--detach"], 0);
    let (mut view, _) = crate::attach::streams::Viewer::open(&s, "viewed", 80, 24);
    view.wait_text("ready");
    std::fs::write(s.f.work.join("go"), "").unwrap();
    s.expect(
        &["wait", "viewed", "--for", "needs-you", "--timeout", "30"],
        0,
    );
    drop(view);
    s.expect(&["run", "fake", "--name", "after", "--detach"], 0);
    let got = endpoint.wait("/push/phone", 2);
    let titles: Vec<Value> = got
        .iter()
        .map(|r| browser.open(r)["title"].clone())
        .collect();
    let host = host_name();
    assert_eq!(
        titles,
        [format!("{host}: unseen"), format!("{host}: after")],
        "nothing about the viewed task"
    );
}

#[test]
fn a_subscriptions_file_that_cannot_be_parsed_is_logged_once_and_sends_nothing() {
    let endpoint = Endpoint::start(&[]);
    let notifications = format!("webhook = \"{}\"\n", endpoint.url("/hook"));
    let s = served(&asks_then_done(), &notifications);
    let web = s.f.data_dir.join("web");
    std::fs::create_dir_all(&web).unwrap();
    std::fs::write(web.join("push-subscriptions.json"), "{not a list").unwrap();
    s.expect(&["run", "fake", "--name", "t1", "--detach"], 0);
    s.expect(&["wait", "t1", "--for", "needs-you", "--timeout", "30"], 0);
    // The webhook still gets it; the server lives and says why once.
    endpoint.wait("/hook", 1);
    s.expect(&["send", "t1", "yes", "--enter"], 0);
    endpoint.wait("/hook", 2);
    let log = std::fs::read_to_string(s.f.data_dir.join("server.log")).unwrap();
    assert_eq!(
        log.matches("is not a list of push subscriptions").count(),
        1,
        "{log}"
    );
    assert_eq!(s.ls().len(), 1, "the server still answers");
    assert_eq!(
        std::fs::read(web.join("push-subscriptions.json")).unwrap(),
        b"{not a list",
        "left as it was"
    );

    // Fixed by its writer: read again. An entry that cannot be pushed to
    // (plain http off this machine) is said once and skipped; the good one
    // gets the next notification.
    let browser = Browser::new();
    subscribe(
        &s.f.data_dir,
        &[
            browser.entry("odd", "http://push.example/x", &[], false),
            browser.entry("good", &endpoint.url("/push/good"), &[], false),
        ],
    );
    s.expect(&["run", "fake", "--name", "t2", "--detach"], 0);
    let got = endpoint.wait("/push/good", 1);
    assert_eq!(browser.open(&got[0])["task"], 2);
    let log = std::fs::read_to_string(s.f.data_dir.join("server.log")).unwrap();
    assert_eq!(
        log.matches(
            "the push subscription of device odd cannot be used: a push endpoint must be https"
        )
        .count(),
        1,
        "{log}"
    );
}

#[test]
fn the_agents_own_words_say_why_in_the_body() {
    let endpoint = Endpoint::start(&[]);
    // A claude-based agent that speaks OSC 7501 (after termic answered its
    // probe): blocked on a permission, in its own words (base64 of
    // "Write src/login.rs").
    let script = "printf '\\033]7501;?\\033\\\\'; sleep 1; \
                  printf '\\033]7501;state=working:app=claude-code\\033\\\\'; \
                  printf '\\033]7501;state=blocked:app=claude-code:kind=permission:msg=V3JpdGUgc3JjL2xvZ2luLnJz\\033\\\\'; \
                  sleep 600";
    let s = served(script, "");
    let browser = Browser::new();
    subscribe(
        &s.f.data_dir,
        &[browser.entry("phone", &endpoint.url("/push/phone"), &[], false)],
    );
    s.expect(&["run", "fake", "--name", "login", "--detach"], 0);
    let got = endpoint.wait("/push/phone", 1);
    let payload = browser.open(&got[0]);
    assert_eq!(payload["reason"], "permission", "{payload}");
    // Marked as the program's words, as in the desktop notification: the
    // text came from the task's output, not from termic.
    assert_eq!(
        payload["body"], "permission: from the program's output: Write src/login.rs",
        "{payload}"
    );
}

#[test]
fn a_busy_or_failing_push_service_drops_that_notification_once_and_keeps_the_subscription() {
    let endpoint = Endpoint::start(&[("/push/busy", 429), ("/push/down", 503)]);
    let s = served(&asks_then_done(), "");
    let (busy, down, fine) = (Browser::new(), Browser::new(), Browser::new());
    subscribe(
        &s.f.data_dir,
        &[
            busy.entry("busy", &endpoint.url("/push/busy"), &[], false),
            down.entry("down", &endpoint.url("/push/down"), &[], false),
            fine.entry("fine", &endpoint.url("/push/fine"), &[], false),
        ],
    );
    s.expect(&["run", "fake", "--name", "t1", "--detach"], 0);
    s.expect(&["wait", "t1", "--for", "needs-you", "--timeout", "30"], 0);
    endpoint.wait("/push/fine", 1);
    s.expect(&["send", "t1", "yes", "--enter"], 0);
    // Notifications go out one after the other: by the time the done
    // reached every target, a retry of the first would have come before it.
    endpoint.wait("/push/fine", 2);
    let reasons = |path: &str, browser: &Browser| -> Vec<Value> {
        endpoint
            .wait(path, 2)
            .iter()
            .map(|r| browser.open(r)["reason"].clone())
            .collect()
    };
    assert_eq!(
        reasons("/push/busy", &busy),
        ["permission", "done"],
        "no retry"
    );
    assert_eq!(
        reasons("/push/down", &down),
        ["permission", "done"],
        "no retry"
    );
    let devices: Vec<Value> = subscriptions(&s.f.data_dir)
        .iter()
        .map(|e| e["device"].clone())
        .collect();
    assert_eq!(devices, ["busy", "down", "fine"], "kept");
    // The answer is logged once it came: wait for the second of each.
    let log = crate::wait::eventually_some(Duration::from_secs(30), || {
        let log = std::fs::read_to_string(s.f.data_dir.join("server.log")).ok()?;
        (log.matches("answered HTTP 503").count() >= 2
            && log.matches("answered HTTP 429").count() >= 2)
            .then_some(log)
    })
    .expect("each drop is logged");
    assert_eq!(
        log.matches("answered HTTP 429; the notification was dropped")
            .count(),
        2,
        "{log}"
    );
    assert_eq!(
        log.matches("answered HTTP 503; the notification was dropped")
            .count(),
        2,
        "{log}"
    );
}

/// A permission the hook announces over Claude's dialog as termic-sim
/// paints it (the dialog and the hook come in one stream, in that order).
fn dialog_then_asks() -> String {
    [
        hook("working", ""),
        "printf 'Do you want to create out.txt?\\r\\n > 1. Yes\\r\\n   2. No\\r\\n'".into(),
        hook("attention", ";kind=permission"),
        "sleep 600".into(),
    ]
    .join("; ")
}

#[test]
fn a_permission_over_claudes_dialog_is_pushed_with_approve_and_deny_actions() {
    let endpoint = Endpoint::start(&[]);
    let s = served(&dialog_then_asks(), "");
    let browser = Browser::new();
    subscribe(
        &s.f.data_dir,
        &[browser.entry("phone", &endpoint.url("/push/phone"), &[], false)],
    );
    s.expect(&["run", "fake", "--name", "login", "--detach"], 0);
    let got = endpoint.wait("/push/phone", 1).remove(0);
    let payload = browser.open(&got);
    assert_eq!(payload["reason"], "permission", "{payload}");
    assert_eq!(
        payload["actions"],
        serde_json::json!([
            {"action": "approve_once", "title": "Yes"},
            {"action": "deny", "title": "No"}
        ]),
        "{payload}"
    );
}
