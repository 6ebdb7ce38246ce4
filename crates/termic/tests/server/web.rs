//! `termic web` (issue 30): pairing, device credentials, the Host and
//! Origin checks over plain TCP (these run everywhere), and the page in a
//! real headless Chromium driven over the DevTools protocol (`#[ignore]`,
//! .ci/run's "web client in a real browser" step).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};
use tungstenite::client::IntoClientRequest;
use tungstenite::Message;

use crate::harness::hook;
use crate::served::Served;
use crate::wait::{eventually, eventually_some};

/// A `termic web` process on a free loopback port, killed when dropped.
struct Web {
    child: Child,
    port: u16,
}

impl Drop for Web {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_web(s: &Served) -> Web {
    let mut child = Command::new(env!("CARGO_BIN_EXE_termic"))
        .args(["web", "--listen", "127.0.0.1:0"])
        .current_dir(&s.f.work)
        .env_clear()
        .env("HOME", &s.f.home)
        .env("TERMIC_CONFIG_DIR", &s.f.config_dir)
        .env("TERMIC_DATA_DIR", &s.f.data_dir)
        .env("PATH", s.f.path_var())
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(s.f.data_dir.join("web.log")).unwrap())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = line
        .trim()
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("termic web said {line:?}"));
    Web { child, port }
}

/// `termic web pair`'s link (its last line).
fn pair_link(s: &Served, args: &[&str]) -> String {
    let mut all = vec!["web", "pair"];
    all.extend_from_slice(args);
    let out = s.expect(&all, 0);
    out.lines().last().unwrap().trim().to_string()
}

/// One HTTP exchange: the status code and the whole answer.
fn http(port: u16, request: &str) -> (u16, String) {
    let mut c = TcpStream::connect(("127.0.0.1", port)).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    c.write_all(request.as_bytes()).unwrap();
    let mut answer = String::new();
    let _ = c.read_to_string(&mut answer);
    let code = answer
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (code, answer)
}

/// POSTs a pairing token as the page does: the credential cookie, or the answer.
fn post_pair(port: u16, token: &str, origin: &str) -> Result<String, (u16, String)> {
    let body = json!({ "token": token }).to_string();
    let (code, answer) = http(
        port,
        &format!(
            "POST /api/pair HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: {origin}\r\n\
User-Agent: test\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        ),
    );
    answer
        .lines()
        .find_map(|l| l.strip_prefix("Set-Cookie: termic_device="))
        .filter(|_| code == 200)
        .map(|v| v.split(';').next().unwrap().to_string())
        .ok_or((code, answer))
}

fn me(port: u16, host: &str, extra: &str) -> u16 {
    http(
        port,
        &format!("GET /api/me HTTP/1.1\r\nHost: {host}\r\n{extra}\r\n"),
    )
    .0
}

type Ws = tungstenite::WebSocket<TcpStream>;

/// A WebSocket to /ws with these headers; Err: the HTTP status refusing it.
fn ws(port: u16, host: &str, headers: &[(&str, &str)]) -> Result<Ws, u16> {
    let mut req = format!("ws://127.0.0.1:{port}/ws")
        .into_client_request()
        .unwrap();
    req.headers_mut().insert("Host", host.parse().unwrap());
    for (k, v) in headers {
        let name = tungstenite::http::HeaderName::from_bytes(k.as_bytes()).unwrap();
        req.headers_mut().insert(name, v.parse().unwrap());
    }
    let stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(15)))
        .unwrap();
    match tungstenite::client::client(req, stream) {
        Ok((ws, _)) => Ok(ws),
        Err(tungstenite::HandshakeError::Failure(tungstenite::Error::Http(r))) => {
            Err(r.status().as_u16())
        }
        Err(e) => panic!("{e}"),
    }
}

/// The next text message (binary ones skipped), or None when closed.
fn next_text(ws: &mut Ws) -> Option<Value> {
    loop {
        match ws.read() {
            Ok(Message::Text(t)) => return Some(serde_json::from_str(&t).unwrap()),
            Ok(Message::Close(_)) | Err(_) => return None,
            Ok(_) => {}
        }
    }
}

/// A task that asks permission, reads a line, then says done.
fn asking_agent() -> String {
    [
        "printf 'Allow Write src/login.rs? (Enter approves)\\r\\n'".to_string(),
        hook("attention", ";kind=permission"),
        "read answer".into(),
        "printf 'approved\\r\\n'".into(),
        hook("done", ""),
        "sleep 600".into(),
    ]
    .join("; ")
}

#[test]
fn http_and_websockets_are_refused_without_a_credential_revoked_from_another_origin_or_host() {
    let s = Served::new(&asking_agent());
    s.expect(&["run", "fake", "--name", "login", "--detach"], 0);
    s.expect(&["wait", "login", "--for", "needs-you", "--timeout", "30"], 0);
    let web = start_web(&s);
    let port = web.port;
    let host = format!("127.0.0.1:{port}");
    let origin = format!("http://{host}");

    // The page itself holds no data and is served to anyone on the right Host.
    let (code, page) = http(port, &format!("GET / HTTP/1.1\r\nHost: {host}\r\n\r\n"));
    assert_eq!(code, 200);
    for header in [
        "Content-Security-Policy: default-src 'self'; script-src 'self';",
        "frame-ancestors 'none'",
        "Referrer-Policy: no-referrer",
        "X-Content-Type-Options: nosniff",
    ] {
        assert!(page.contains(header), "{header} missing:\n{page}");
    }
    assert_eq!(
        http(port, "GET / HTTP/1.1\r\nHost: attacker.example:80\r\n\r\n").0,
        421,
        "DNS rebinding: a Host that is not ours"
    );

    // Pairing: the link's token is in the fragment, never in the path.
    let link = pair_link(&s, &[]);
    assert!(link.starts_with(&format!("http://{host}/pair#")), "{link}");
    let token = link.rsplit('#').next().unwrap().to_string();
    assert!(token.len() >= 22, "128 bits or more: {token}");
    assert_eq!(post_pair(port, &token, "http://attacker.example").unwrap_err().0, 403);
    let cookie = post_pair(port, &token, &origin).unwrap();
    assert_eq!(post_pair(port, &token, &origin).unwrap_err().0, 403, "single use");
    let jar = format!("termic_device={cookie}");
    let devices = std::fs::read_to_string(s.f.data_dir.join("web/devices.json")).unwrap();
    assert!(!devices.contains(&cookie), "stored hashed");

    // HTTP: the credential and a same-origin request, on our Host.
    let same = "Sec-Fetch-Site: same-origin\r\n";
    assert_eq!(me(port, &host, &format!("Cookie: {jar}\r\n{same}")), 200);
    assert_eq!(me(port, &host, same), 401, "no credential");
    assert_eq!(me(port, &host, &format!("Cookie: termic_device=forged\r\n{same}")), 401);
    assert_eq!(
        me(port, &host, &format!("Cookie: {jar}\r\nOrigin: http://attacker.example\r\n")),
        403,
        "another origin"
    );
    assert_eq!(me(port, &host, &format!("Cookie: {jar}\r\n")), 403, "no origin at all");
    assert_eq!(me(port, "attacker.example", &format!("Cookie: {jar}\r\n{same}")), 421);

    // WebSocket: the same checks; a WebSocket without Origin is refused.
    let good: [(&str, &str); 2] = [("Origin", &origin), ("Cookie", &jar)];
    let mut list = ws(port, &host, &good).unwrap();
    list.send(Message::text("\"subscribe\"")).unwrap();
    let subscribed = next_text(&mut list).unwrap();
    assert_eq!(subscribed["subscribed"]["tasks"][0]["name"], "login", "{subscribed}");
    assert_eq!(ws(port, &host, &[("Origin", &origin)]).unwrap_err(), 401);
    assert_eq!(ws(port, &host, &[("Cookie", &jar)]).unwrap_err(), 403);
    assert_eq!(
        ws(port, &host, &[("Origin", "http://attacker.example"), ("Cookie", &jar)]).unwrap_err(),
        403
    );
    assert_eq!(ws(port, "attacker.example", &good).unwrap_err(), 421);

    // The browser speaks only subscribe, view and input: a kill is not passed on.
    let mut sneaky = ws(port, &host, &good).unwrap();
    sneaky
        .send(Message::text(r#"{"kill":{"task":"login"}}"#))
        .unwrap();
    assert!(next_text(&mut sneaky).is_none(), "closed");
    assert_eq!(s.ls().len(), 1, "the task is alive");

    // A read-only device sees the screen and cannot type.
    let ro = pair_link(&s, &["--read-only"]);
    let ro_cookie = post_pair(port, ro.rsplit('#').next().unwrap(), &origin).unwrap();
    let ro_jar = format!("termic_device={ro_cookie}");
    let mut view = ws(port, &host, &[("Origin", &origin), ("Cookie", &ro_jar)]).unwrap();
    view.send(Message::text(
        json!({"view": {"task": "login", "cols": 80, "rows": 24}}).to_string(),
    ))
    .unwrap();
    assert!(next_text(&mut view).unwrap()["viewing"].is_object());
    view.send(Message::text(
        json!({"input": {"key": {"code": "enter"}}}).to_string(),
    ))
    .unwrap();
    let refused = eventually_some(Duration::from_secs(10), || {
        next_text(&mut view).filter(|m| m["error"].is_object())
    })
    .unwrap();
    assert!(
        refused["error"]["message"].as_str().unwrap().contains("read-only"),
        "{refused}"
    );
    assert_eq!(s.ls()[0]["state"], "needs_you", "the Enter was not sent");

    // Revoked: refused at once, and its open stream is closed.
    let out = s.expect(&["web", "devices"], 0);
    assert!(out.contains("read-only") && out.contains("full"), "{out}");
    s.expect(&["web", "devices", "revoke", "1"], 0);
    assert_eq!(me(port, &host, &format!("Cookie: {jar}\r\n{same}")), 401);
    assert_eq!(ws(port, &host, &good).unwrap_err(), 401);
    assert!(
        next_text_or_close(&mut list, Duration::from_secs(12)),
        "the revoked device's list stream ends"
    );
}

/// Reads until the stream closes (true) or `within` passes (false).
fn next_text_or_close(ws: &mut Ws, within: Duration) -> bool {
    let start = std::time::Instant::now();
    ws.get_mut()
        .set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    while start.elapsed() < within {
        match ws.read() {
            Ok(Message::Close(_)) => return true,
            Ok(_) => {}
            Err(tungstenite::Error::Io(e))
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => return true,
        }
    }
    false
}

#[test]
fn pairing_attempts_are_limited_to_five_a_minute_and_not_logged_with_their_token() {
    let s = Served::new("sleep 600");
    let web = start_web(&s);
    let origin = format!("http://127.0.0.1:{}", web.port);
    for i in 0..5 {
        assert_eq!(
            post_pair(web.port, &format!("guess{i}"), &origin).unwrap_err().0,
            403
        );
    }
    let link = pair_link(&s, &[]);
    let token = link.rsplit('#').next().unwrap();
    let (code, _) = post_pair(web.port, token, &origin).unwrap_err();
    assert_eq!(code, 429, "the sixth attempt, even with the right token");
    let out = s.expect(&["web", "devices"], 0);
    assert!(out.contains("No paired devices"), "{out}");
    let log = s.f.data_dir.join("web.log");
    assert!(eventually(Duration::from_secs(5), || {
        std::fs::read_to_string(&log).is_ok_and(|l| l.contains("over 5 attempts a minute"))
    }));
    let log = std::fs::read_to_string(&log).unwrap();
    assert_eq!(log.matches("refused pairing").count(), 6, "{log}");
    assert!(!log.contains(token) && !log.contains("guess"), "{log}");
}
