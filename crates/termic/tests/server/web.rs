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
pub(crate) struct Web {
    child: Child,
    pub(crate) port: u16,
}

impl Web {
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Web {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `termic web` and a phone paired with it by the printed link.
fn paired_phone(s: &Served) -> (Web, Browser) {
    let web = start_web(s);
    let mut b = Browser::phone();
    b.navigate(&pair_link(s, &[]));
    (web, b)
}

fn start_web(s: &Served) -> Web {
    start_web_with(s, &[]).0
}

/// `termic web` with more arguments, and the lines it printed after the
/// first (the fingerprint with --tls).
fn start_web_with(s: &Served, more: &[&str]) -> (Web, Vec<String>) {
    start_web_env(s, more, &[])
}

/// [`start_web_with`] with more environment variables (`TERMIC_SSH`).
pub(crate) fn start_web_env(s: &Served, more: &[&str], env: &[(&str, &str)]) -> (Web, Vec<String>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_termic"))
        .args(["web", "--listen", "127.0.0.1:0"])
        .args(more)
        .current_dir(&s.f.work)
        .env_clear()
        .env("HOME", &s.f.home)
        .env("TERMIC_CONFIG_DIR", &s.f.config_dir)
        .env("TERMIC_DATA_DIR", &s.f.data_dir)
        .env("PATH", s.f.path_var())
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(s.f.data_dir.join("web.log")).unwrap())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    let mut rest = Vec::new();
    for _ in 0..if more.is_empty() { 1 } else { 3 } {
        let mut l = String::new();
        out.read_line(&mut l).unwrap();
        rest.push(l.trim().to_string());
    }
    let port = crate::served::web_port(&line);
    (Web { child, port }, rest)
}

/// `termic web pair`'s link (its last line).
pub(crate) fn pair_link(s: &Served, args: &[&str]) -> String {
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

/// POSTs a pairing token as the page does: the credential's halves (the
/// cookie's and the page's), or the answer.
pub(crate) fn post_pair(
    port: u16,
    token: &str,
    origin: &str,
) -> Result<(String, String), (u16, String)> {
    let body = json!({ "token": token }).to_string();
    let (code, answer) = http(
        port,
        &format!(
            "POST /api/pair HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: {origin}\r\n\
User-Agent: test\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        ),
    );
    let cookie = answer
        .lines()
        .find_map(|l| l.strip_prefix("Set-Cookie: termic_device="))
        .filter(|_| code == 200)
        .map(|v| v.split(';').next().unwrap().to_string());
    let key = answer
        .find("\r\n\r\n")
        .and_then(|at| serde_json::from_str::<Value>(&answer[at + 4..]).ok())
        .and_then(|v| v["key"].as_str().map(str::to_string));
    match (cookie, key) {
        (Some(c), Some(k)) => Ok((c, k)),
        _ => Err((code, answer)),
    }
}

/// Headers for HTTP with both halves: `Cookie: {this}\r\n` gives the
/// cookie and the page's key header.
fn http_jar((cookie, key): &(String, String)) -> String {
    format!("termic_device={cookie}\r\nX-Termic-Key: {key}")
}

/// What a page's WebSocket offers as protocols: `termic` and its key.
pub(crate) fn ws_protocols((_, key): &(String, String)) -> String {
    format!("termic, key.{key}")
}

fn me(port: u16, host: &str, extra: &str) -> u16 {
    http(
        port,
        &format!("GET /api/me HTTP/1.1\r\nHost: {host}\r\n{extra}\r\n"),
    )
    .0
}

pub(crate) type Ws = tungstenite::WebSocket<TcpStream>;

/// A WebSocket to /ws with these headers; Err: the HTTP status refusing it.
pub(crate) fn ws(port: u16, host: &str, headers: &[(&str, &str)]) -> Result<Ws, u16> {
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
pub(crate) fn next_text(ws: &mut Ws) -> Option<Value> {
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

/// Claude Code's permission dialog as 2.1.332 paints it (the simulator's
/// `>`), as a shell command.
pub(crate) const CLAUDE_DIALOG: &str = "printf ' Do you want to create out.txt?\\r\\n > 1. Yes\\r\\n   2. Yes, allow all edits during this session (shift+tab)\\r\\n   3. No, and tell Claude what to do differently (esc)\\r\\n'";

/// A task painting Claude Code's permission dialog (as 2.1.332 does, the
/// simulator's `>`), asking through the hook, then taking one key raw.
pub(crate) fn dialog_agent() -> String {
    [
        "stty raw -echo".to_string(),
        CLAUDE_DIALOG.into(),
        hook("attention", ";kind=permission"),
        "k=$(head -c 1)".into(),
        "printf 'answered %s\\r\\n' \"$k\"".into(),
        hook("done", ""),
        "sleep 600".into(),
    ]
    .join("; ")
}

#[test]
fn http_and_websockets_are_refused_without_a_credential_revoked_from_another_origin_or_host() {
    let s = Served::new(&asking_agent());
    s.expect(&["run", "fake", "--name", "login", "--detach"], 0);
    s.expect(
        &["wait", "login", "--for", "needs-you", "--timeout", "30"],
        0,
    );
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
    assert_eq!(
        post_pair(port, &token, "http://attacker.example")
            .unwrap_err()
            .0,
        403
    );
    let cred = post_pair(port, &token, &origin).unwrap();
    let cookie = cred.0.clone();
    assert_eq!(
        post_pair(port, &token, &origin).unwrap_err().0,
        403,
        "single use"
    );
    let jar = http_jar(&cred);
    let cookie_only = format!("termic_device={cookie}");
    let protocols = ws_protocols(&cred);
    let devices = std::fs::read_to_string(s.f.data_dir.join("web/devices.json")).unwrap();
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &str| {
        std::fs::metadata(s.f.data_dir.join(p))
            .unwrap()
            .permissions()
            .mode()
            & 0o777
    };
    assert_eq!((mode("web"), mode("web/devices.json")), (0o700, 0o600));
    assert!(!devices.contains(&cookie), "stored hashed");

    // HTTP: the credential and a same-origin request, on our Host.
    let same = "Sec-Fetch-Site: same-origin\r\n";
    assert_eq!(me(port, &host, &format!("Cookie: {jar}\r\n{same}")), 200);
    assert_eq!(
        me(port, &host, &format!("Cookie: {cookie_only}\r\n{same}")),
        401,
        "the cookie alone (which the browser sends to every port of the host) is refused"
    );
    assert_eq!(me(port, &host, same), 401, "no credential");
    assert_eq!(
        me(
            port,
            &host,
            &format!("Cookie: termic_device=forged\r\n{same}")
        ),
        401
    );
    assert_eq!(
        me(
            port,
            &host,
            &format!("Cookie: {jar}\r\nOrigin: http://attacker.example\r\n")
        ),
        403,
        "another origin"
    );
    assert_eq!(
        me(port, &host, &format!("Cookie: {jar}\r\n")),
        403,
        "no origin at all"
    );
    assert_eq!(
        me(
            port,
            "attacker.example",
            &format!("Cookie: {jar}\r\n{same}")
        ),
        421
    );

    // WebSocket: the same checks; a WebSocket without Origin is refused.
    let good: [(&str, &str); 3] = [
        ("Origin", &origin),
        ("Cookie", &cookie_only),
        ("Sec-WebSocket-Protocol", &protocols),
    ];
    let mut list = ws(port, &host, &good).unwrap();
    list.send(Message::text("\"subscribe\"")).unwrap();
    let subscribed = next_text(&mut list).unwrap();
    assert_eq!(
        subscribed["subscribed"]["tasks"][0]["name"], "login",
        "{subscribed}"
    );
    assert_eq!(ws(port, &host, &[("Origin", &origin)]).unwrap_err(), 401);
    assert_eq!(
        ws(
            port,
            &host,
            &[("Origin", &origin), ("Cookie", &cookie_only)]
        )
        .unwrap_err(),
        401,
        "no key"
    );
    assert_eq!(
        ws(
            port,
            &host,
            &[
                ("Cookie", &cookie_only),
                ("Sec-WebSocket-Protocol", &protocols)
            ]
        )
        .unwrap_err(),
        403
    );
    assert_eq!(
        ws(
            port,
            &host,
            &[
                ("Origin", "http://attacker.example"),
                ("Cookie", &cookie_only),
                ("Sec-WebSocket-Protocol", &protocols)
            ]
        )
        .unwrap_err(),
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
    let ro_cred = post_pair(port, ro.rsplit('#').next().unwrap(), &origin).unwrap();
    let ro_jar = format!("termic_device={}", ro_cred.0);
    let ro_protocols = ws_protocols(&ro_cred);
    let mut view = ws(
        port,
        &host,
        &[
            ("Origin", &origin),
            ("Cookie", &ro_jar),
            ("Sec-WebSocket-Protocol", &ro_protocols),
        ],
    )
    .unwrap();
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
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("read-only"),
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

/// Accepts any certificate and keeps it (the test compares its
/// fingerprint with the one termic printed, as a user would).
#[derive(Debug)]
struct KeepCert(std::sync::Mutex<Vec<u8>>);

impl rustls::client::danger::ServerCertVerifier for KeepCert {
    fn verify_server_cert(
        &self,
        end_entity: &rustls::pki_types::CertificateDer<'_>,
        _: &[rustls::pki_types::CertificateDer<'_>],
        _: &rustls::pki_types::ServerName<'_>,
        _: &[u8],
        _: rustls::pki_types::UnixTime,
    ) -> Result<rustls::client::danger::ServerCertVerified, rustls::Error> {
        *self.0.lock().unwrap() = end_entity.to_vec();
        Ok(rustls::client::danger::ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        _: &[u8],
        _: &rustls::pki_types::CertificateDer<'_>,
        _: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        Ok(rustls::client::danger::HandshakeSignatureValid::assertion())
    }

    fn verify_tls13_signature(
        &self,
        _: &[u8],
        _: &rustls::pki_types::CertificateDer<'_>,
        _: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        Ok(rustls::client::danger::HandshakeSignatureValid::assertion())
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        vec![
            rustls::SignatureScheme::ECDSA_NISTP256_SHA256,
            rustls::SignatureScheme::ECDSA_NISTP384_SHA384,
            rustls::SignatureScheme::ED25519,
            rustls::SignatureScheme::RSA_PSS_SHA256,
            rustls::SignatureScheme::RSA_PKCS1_SHA256,
        ]
    }
}

type Tls = rustls::StreamOwned<rustls::ClientConnection, TcpStream>;

/// A TLS connection taking any certificate, and where it keeps it.
#[allow(deprecated)]
fn tls_connect(port: u16) -> (Tls, std::sync::Arc<KeepCert>) {
    let keep = std::sync::Arc::new(KeepCert(Default::default()));
    let config = rustls::ClientConfig::builder_with_provider(std::sync::Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .dangerous()
    .with_custom_certificate_verifier(keep.clone())
    .with_no_client_auth();
    let conn =
        rustls::ClientConnection::new(std::sync::Arc::new(config), "localhost".try_into().unwrap())
            .unwrap();
    let tcp = TcpStream::connect(("127.0.0.1", port)).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    (rustls::StreamOwned::new(conn, tcp), keep)
}

/// One HTTPS exchange: the answer, and the certificate the server showed.
fn https(port: u16, request: &str) -> (String, Vec<u8>) {
    let (mut tls, keep) = tls_connect(port);
    tls.write_all(request.as_bytes()).unwrap();
    let mut answer = Vec::new();
    let _ = tls.read_to_end(&mut answer);
    let cert = keep.0.lock().unwrap().clone();
    (String::from_utf8_lossy(&answer).into_owned(), cert)
}

#[test]
fn a_non_loopback_address_needs_tls_and_tls_shows_the_printed_fingerprint() {
    let s = Served::new("sleep 600");
    let out = s.termic(&["web", "--listen", "0.0.0.0:0"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--tls") && err.contains("--insecure-behind-proxy"),
        "the refusal names the flags: {err}"
    );

    let (web, lines) = start_web_with(&s, &["--tls"]);
    let printed = lines
        .iter()
        .find_map(|l| l.strip_prefix("Certificate SHA-256 fingerprint: "))
        .unwrap_or_else(|| panic!("{lines:?}"))
        .to_string();
    let host = format!("127.0.0.1:{}", web.port);
    let (answer, cert) = https(
        web.port,
        &format!("GET /api/me HTTP/1.1\r\nHost: {host}\r\nSec-Fetch-Site: same-origin\r\n\r\n"),
    );
    assert!(answer.starts_with("HTTP/1.1 401"), "{answer}");
    use sha2::Digest;
    let seen: Vec<String> = sha2::Sha256::digest(&cert)
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect();
    assert_eq!(
        seen.join(":"),
        printed,
        "the certificate served is the one printed"
    );

    // Over TLS the Origin is https, and the cookie is Secure.
    let link = pair_link(&s, &[]);
    assert!(link.starts_with(&format!("https://{host}/pair#")), "{link}");
    let body = json!({ "token": link.rsplit('#').next().unwrap() }).to_string();
    let pair = |origin: &str| {
        https(
            web.port,
            &format!(
                "POST /api/pair HTTP/1.1\r\nHost: {host}\r\nOrigin: {origin}\r\n\
Content-Length: {}\r\n\r\n{body}",
                body.len()
            ),
        )
        .0
    };
    assert!(
        pair(&format!("http://{host}")).starts_with("HTTP/1.1 403"),
        "http origin over TLS"
    );
    let answer = pair(&format!("https://{host}"));
    let cookie = answer
        .lines()
        .find(|l| l.starts_with("Set-Cookie: termic_device="))
        .unwrap_or_else(|| panic!("{answer}"));
    assert!(
        cookie.contains("; Secure") && cookie.contains("HttpOnly"),
        "{cookie}"
    );
    let jar = cookie
        .trim_start_matches("Set-Cookie: ")
        .split(';')
        .next()
        .unwrap()
        .to_string();
    let body: Value =
        serde_json::from_str(&answer[answer.find("\r\n\r\n").unwrap() + 4..]).unwrap();
    let key = body["key"].as_str().unwrap().to_string();

    // A WebSocket over TLS streams the task list.
    let mut req = format!("wss://{host}/ws").into_client_request().unwrap();
    req.headers_mut()
        .insert("Origin", format!("https://{host}").parse().unwrap());
    req.headers_mut().insert("Cookie", jar.parse().unwrap());
    req.headers_mut().insert(
        "Sec-WebSocket-Protocol",
        format!("termic, key.{key}").parse().unwrap(),
    );
    let (tls, _) = tls_connect(web.port);
    let (mut list, _) = tungstenite::client::client(req, tls).unwrap();
    list.send(Message::text("\"subscribe\"")).unwrap();
    let first = loop {
        match list.read().unwrap() {
            Message::Text(t) => break serde_json::from_str::<Value>(&t).unwrap(),
            _ => continue,
        }
    };
    assert!(first["subscribed"]["tasks"].is_array(), "{first}");
    assert!(
        http(web.port, &format!("GET / HTTP/1.1\r\nHost: {host}\r\n\r\n")).0 != 200,
        "no plain HTTP"
    );
}

#[test]
fn pairing_attempts_are_limited_to_five_a_minute_and_not_logged_with_their_token() {
    let s = Served::new("sleep 600");
    let web = start_web(&s);
    let origin = format!("http://127.0.0.1:{}", web.port);
    for i in 0..5 {
        assert_eq!(
            post_pair(web.port, &format!("guess{i}"), &origin)
                .unwrap_err()
                .0,
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

/// A headless Chromium, driven over the DevTools protocol, killed when dropped.
pub(crate) struct Browser {
    child: Child,
    _profile: tempfile::TempDir,
    page: Ws,
    next_id: u64,
    /// Every event the page sent (method names).
    events: Vec<String>,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Browser {
    /// Chromium showing a blank page at 390x844 (a phone).
    pub(crate) fn phone() -> Browser {
        let profile = tempfile::tempdir().unwrap();
        let child = Command::new("chromium")
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--remote-debugging-port=0",
                "--window-size=390,844",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let port_file = profile.path().join("DevToolsActivePort");
        let port: u16 = eventually_some(Duration::from_secs(30), || {
            std::fs::read_to_string(&port_file)
                .ok()?
                .lines()
                .next()?
                .parse()
                .ok()
        })
        .expect("chromium serves the DevTools protocol");
        let (_, list) = http(
            port,
            &format!("GET /json/list HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n"),
        );
        let body = &list[list.find("\r\n\r\n").unwrap() + 4..];
        let targets: Value = serde_json::from_str(body).unwrap();
        let url = targets
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["type"] == "page")
            .unwrap()["webSocketDebuggerUrl"]
            .as_str()
            .unwrap()
            .to_string();
        let stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let (page, _) = tungstenite::client::client(url.as_str(), stream).unwrap();
        let mut b = Browser {
            child,
            _profile: profile,
            page,
            next_id: 0,
            events: Vec::new(),
        };
        b.call("Page.enable", json!({}));
        b.call(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": true}),
        );
        b
    }

    /// A DevTools command's result. A JavaScript dialog (which nothing in
    /// the page should open) is recorded and dismissed.
    fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let msg = json!({"id": id, "method": method, "params": params});
        self.page.send(Message::text(msg.to_string())).unwrap();
        loop {
            let Message::Text(t) = self.page.read().unwrap() else {
                continue;
            };
            let v: Value = serde_json::from_str(&t).unwrap();
            if v["id"] == id {
                return v["result"].clone();
            }
            if let Some(m) = v["method"].as_str() {
                self.events.push(m.to_string());
                if m == "Page.javascriptDialogOpening" {
                    let dismiss = json!({"id": 0, "method": "Page.handleJavaScriptDialog",
                        "params": {"accept": false}});
                    self.page.send(Message::text(dismiss.to_string())).unwrap();
                }
            }
        }
    }

    pub(crate) fn eval(&mut self, expr: &str) -> Value {
        let r = self.call(
            "Runtime.evaluate",
            json!({"expression": expr, "returnByValue": true}),
        );
        r["result"]["value"].clone()
    }

    pub(crate) fn navigate(&mut self, url: &str) {
        self.call("Page.navigate", json!({ "url": url }));
    }

    /// Waits until `expr` is true in the page.
    pub(crate) fn until(&mut self, what: &str, expr: &str) {
        let ok = eventually(Duration::from_secs(30), || self.eval(expr) == json!(true));
        let state = self.eval("document.body ? document.body.innerText : ''");
        assert!(ok, "{what}: never true: {expr}\npage text: {state}");
    }

    pub(crate) fn screenshot(&mut self, path: &std::path::Path) {
        use base64::Engine;
        let r = self.call("Page.captureScreenshot", json!({"format": "png"}));
        let png = base64::engine::general_purpose::STANDARD
            .decode(r["data"].as_str().unwrap())
            .unwrap();
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, png).unwrap();
    }
}

/// Where the tests' screenshots go: target/web/ (test artefacts).
pub(crate) fn artefact(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../target/web")
        .join(name)
}

pub(crate) const TERM_TEXT: &str = "document.querySelector('#term .xterm-rows') ? \
document.querySelector('#term .xterm-rows').textContent : ''";

#[test]
#[ignore = "needs chromium: .ci/run's web client step"]
fn a_paired_phone_sees_a_task_need_you_with_its_screen_and_types_into_it() {
    if !crate::requires::program("chromium", "chromium") {
        return;
    }
    let s = Served::new(&asking_agent());
    s.expect(&["run", "fake", "--name", "login", "--detach"], 0);
    let web = start_web(&s);
    let mut b = Browser::phone();
    let link = pair_link(&s, &[]);
    b.navigate(&link);
    b.until(
        "the list shows the task needing you",
        "Array.from(document.querySelectorAll('#list li')).some(li => \
li.textContent.includes('login') && li.querySelector('.badge.needs_you'))",
    );
    assert_eq!(
        b.eval("location.href"),
        json!(format!("http://127.0.0.1:{}/", web.port)),
        "the token is gone from the address"
    );
    // Its dialog is no agent's termic knows: no button, and the page says
    // to answer on the screen.
    assert_eq!(
        b.eval(
            "[document.querySelectorAll('#list .ask .choice').length, \
(document.querySelector('#list .ask .no-choices') || {}).textContent]"
        ),
        json!([
            0,
            "No one-tap answer for this one: answer it on the screen."
        ])
    );
    b.eval("document.querySelector('#list li button').click()");
    b.until(
        "the task's screen shows its question",
        &format!("({TERM_TEXT}).includes('Allow Write src/login.rs?')"),
    );
    b.screenshot(&artefact("web-phone.png"));
    // The page's Enter key goes to the task: it reads its line and is done.
    b.eval("document.querySelector('#keys [data-key=enter]').click()");
    b.until(
        "the task printed its answer",
        &format!("({TERM_TEXT}).includes('approved')"),
    );
    b.eval("document.getElementById('back').click()");
    b.until(
        "the badge says done",
        "!!document.querySelector('#list li .badge.done')",
    );
}

#[test]
#[ignore = "needs chromium: .ci/run's web client step"]
fn a_phone_answers_a_permission_dialog_with_one_tap() {
    if !crate::requires::program("chromium", "chromium") {
        return;
    }
    let s = Served::new(&dialog_agent());
    s.expect(&["run", "fake", "--name", "create", "--detach"], 0);
    let (_web, mut b) = paired_phone(&s);
    b.until(
        "the list offers the dialog's three answers",
        "document.querySelectorAll('#list .ask .choice').length === 3",
    );
    let labels = b.eval(
        "Array.from(document.querySelectorAll('#list .ask .choice')).map(b => b.textContent)",
    );
    assert_eq!(
        labels,
        json!([
            "Yes",
            "Yes, allow all edits during this session (shift+tab)",
            "No, and tell Claude what to do differently (esc)"
        ])
    );
    assert_eq!(
        b.eval("document.querySelectorAll('#list .ask .no-choices').length"),
        json!(0),
        "buttons, so no note to answer on the screen"
    );
    b.eval("document.querySelector('#list li button').click()");
    b.until(
        "the task's screen shows the dialog",
        &format!("({TERM_TEXT}).includes('Do you want to create out.txt?')"),
    );
    b.screenshot(&artefact("web-phone-answer.png"));
    b.eval("document.querySelector('#ask .choice[data-choice=approve_once]').click()");
    b.until(
        "the task got 1",
        &format!("({TERM_TEXT}).includes('answered 1')"),
    );
    b.eval("document.getElementById('back').click()");
    b.until(
        "the badge says done",
        "!!document.querySelector('#list li .badge.done') && !document.querySelector('#list .ask')",
    );
}

/// A task painting Claude Code 2.1.332's multi-select question (as
/// crates/termic-signal/tests/screens/claude-2.1.332-multi-select.txt,
/// shortened), asking through the hook, then printing the next 7 bytes it
/// reads in hex.
fn multi_select_agent() -> String {
    [
        "stty raw -echo".to_string(),
        "printf 'Which toppings do you want?\\r\\n❯ 1. [ ] Cheese\\r\\n  2. [✔] Olives\\r\\n  3. [ ] Basil\\r\\n  4. [ ] Type something\\r\\n     Submit\\r\\n────────\\r\\n  5. Chat about this\\r\\nEnter to select · ↑/↓ to navigate · Esc to cancel\\r\\n'".into(),
        hook("attention", ";kind=question"),
        "set -- $(head -c 7 | od -An -tx1)".into(),
        "printf 'answered %s\\r\\n' \"$*\"".into(),
        "sleep 600".into(),
    ]
    .join("; ")
}

/// A multi-select question: one toggle per box, pressed when its box is
/// ticked, and Submit; a tap on Basil sends Down Down Enter.
#[test]
#[ignore = "needs chromium: .ci/run's web client step"]
fn a_phone_ticks_a_multi_select_question_box_by_box() {
    if !crate::requires::program("chromium", "chromium") {
        return;
    }
    let s = Served::new(&multi_select_agent());
    s.expect(&["run", "fake", "--name", "toppings", "--detach"], 0);
    let (_web, mut b) = paired_phone(&s);
    b.until(
        "the list offers the boxes and Submit",
        "document.querySelectorAll('#list .ask .choice').length === 4",
    );
    let buttons = b.eval(
        "Array.from(document.querySelectorAll('#list .ask .choice')).map(b => \
[b.dataset.choice, b.textContent, b.getAttribute('aria-pressed')])",
    );
    assert_eq!(
        buttons,
        json!([
            ["toggle_1", "[ ] Cheese", "false"],
            ["toggle_2", "[✔] Olives", "true"],
            ["toggle_3", "[ ] Basil", "false"],
            ["submit", "Submit", null]
        ])
    );
    b.eval("document.querySelector('#list li button').click()");
    b.until(
        "the task's screen shows the question",
        &format!("({TERM_TEXT}).includes('Which toppings do you want?')"),
    );
    b.eval("document.querySelector('#ask .choice[data-choice=toggle_3]').click()");
    b.until(
        "the task got Down Down Enter",
        &format!("({TERM_TEXT}).includes('answered 1b 5b 42 1b 5b 42 0d')"),
    );
}

/// The simulated Claude (termic-sim, its built-in `question-multi`
/// scenario: Claude Code 2.1.332's multi-select question, its keys as the
/// real one takes them) as agent `fake`, tracing to `trace`; its needs-you
/// comes from its native status (termic answers its probe).
fn simulated_claude(s: &Served, scenario: &str, trace: &std::path::Path) {
    let sim = std::path::Path::new(env!("CARGO_BIN_EXE_termic")).with_file_name("termic-sim");
    assert!(
        sim.exists(),
        "the agent simulator is missing at {}: cargo build -p termic-sim",
        sim.display()
    );
    let argv = [
        sim.display().to_string(),
        "claude".into(),
        scenario.into(),
        "--auto".into(),
        "--trace".into(),
        trace.display().to_string(),
    ];
    let quoted: Vec<String> = argv.iter().map(|a| format!("{a:?}")).collect();
    s.f.config(&format!(
        "[agents.fake]\nbase = \"claude\"\ncommand = [{}]\n",
        quoted.join(", ")
    ));
}

/// Issue 30 on a simulated Claude's multi-select question: the phone taps
/// Cheese, then Basil (each button pressed once its box shows ticked),
/// Submit, then the review's "Submit answers"; the simulated model gets
/// both, and the task ends done.
#[test]
#[ignore = "needs chromium: .ci/run's web client step"]
fn a_phone_answers_a_simulated_claude_multi_select_question() {
    if !crate::requires::program("chromium", "chromium") {
        return;
    }
    let s = Served::new("true");
    let trace = s.f.data_dir.join("sim-trace.jsonl");
    simulated_claude(&s, "question-multi", &trace);
    s.expect(&["run", "fake", "--name", "toppings", "--detach"], 0);
    let (_web, mut b) = paired_phone(&s);
    b.until(
        "the list offers the boxes and Submit",
        "document.querySelectorAll('#list .ask .choice').length === 4",
    );
    b.eval("document.querySelector('#list li button').click()");
    b.until(
        "the task's screen shows the question",
        &format!("({TERM_TEXT}).includes('Which toppings do you want?')"),
    );
    let button = |id: &str| format!("document.querySelector('#ask .choice[data-choice={id}]')");
    for (id, label) in [("toggle_1", "Cheese"), ("toggle_3", "Basil")] {
        b.until(
            &format!("{label} offered unticked"),
            &format!(
                "({0}) && ({0}).getAttribute('aria-pressed') === 'false'",
                button(id)
            ),
        );
        b.eval(&format!("({}).click()", button(id)));
        b.until(
            &format!("{label} shown ticked"),
            &format!("({0}) && ({0}).textContent === '[✔] {label}'", button(id)),
        );
    }
    b.eval(&format!("({}).click()", button("submit")));
    b.until(
        "the review offers Submit answers",
        &format!(
            "({0}) && ({0}).textContent === 'Submit answers'",
            button("option_1")
        ),
    );
    b.eval(&format!("({}).click()", button("option_1")));
    b.eval("document.getElementById('back').click()");
    b.until(
        "the badge says done",
        "!!document.querySelector('#list li .badge.done') && !document.querySelector('#list .ask')",
    );
    let answered: Vec<Value> = std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|l| l["ev"] == "answered")
        .collect();
    assert_eq!(answered.len(), 1, "{answered:?}");
    assert_eq!(answered[0]["answers"], json!(["Cheese", "Basil"]));
}

#[test]
#[ignore = "needs chromium: .ci/run's web client step"]
fn hostile_task_output_in_the_page_runs_no_script_and_navigates_nowhere() {
    if !crate::requires::program("chromium", "chromium") {
        return;
    }
    let s = Served::new("sleep 600");
    // What a page could be fooled by, then the screen corpus the TUI
    // survives, then a line that says it all arrived.
    let mut bytes: Vec<u8> = Vec::new();
    bytes.extend_from_slice(
        b"\x1b]8;;javascript:window.__pwned=1\x1b\\CLICKME-JS\x1b]8;;\x1b\\\r\n",
    );
    bytes.extend_from_slice(b"\x1b]8;;data:text/html,<script>top.__pwned=1</script>\x1b\\CLICKME-DATA\x1b]8;;\x1b\\\r\n");
    bytes.extend_from_slice(b"\x1b]52;c;cHduZWQ=\x07");
    bytes.extend_from_slice(b"\x1b]0;<img src=x onerror=\"window.__pwned=1\">\x07");
    bytes.extend_from_slice(b"\x1b]2;</title><script>window.__pwned=1</script>\x07");
    bytes.extend_from_slice(
        b"<script>window.__pwned=1</script><img src=x onerror=window.__pwned=1>\r\n",
    );
    for h in crate::hostile_corpus::corpus(4096) {
        bytes.extend_from_slice(&h.bytes);
        bytes.extend_from_slice(b"\x1b[0m\x1bc\r\n");
    }
    bytes.extend_from_slice(
        b"\x1b]8;;javascript:window.__pwned=1\x1b\\CLICKME-JS\x1b]8;;\x1b\\ END-OF-CORPUS\r\n",
    );
    std::fs::write(s.f.work.join("hostile.bin"), &bytes).unwrap();
    s.expect(
        &[
            "run",
            "--name",
            "hostile",
            "--detach",
            "--",
            "sh",
            "-c",
            "cat hostile.bin; exec sleep 600",
        ],
        0,
    );
    let web = start_web(&s);
    let mut b = Browser::phone();
    b.navigate(&pair_link(&s, &[]));
    b.until(
        "the list shows the task",
        "!!document.querySelector('#list li button')",
    );
    b.eval("document.querySelector('#list li button').click()");
    b.until(
        "the whole corpus arrived",
        &format!("({TERM_TEXT}).includes('END-OF-CORPUS')"),
    );
    // Click where the OSC 8 link is (a javascript: URL). The view stream
    // is a repaint of the server's screen model, which keeps no OSC 8
    // link, OSC 52 or title (measured 2026-12-06: no link reaches
    // xterm.js), so this checks that stays so; app.js's linkHandler is
    // the second line (only http and https, after a confirm).
    let at = b.eval(
        "(() => { const rows = document.querySelectorAll('#term .xterm-rows > div'); \
for (const r of rows) { if (r.textContent.includes('CLICKME-JS')) { const b = r.getBoundingClientRect(); \
return [b.left + 10, b.top + b.height / 2]; } } return null; })()",
    );
    let (x, y) = (at[0].as_f64().unwrap(), at[1].as_f64().unwrap());
    // xterm.js finds the link under the pointer when it moves there; the
    // click then activates it.
    let pause = json!({"expression": "new Promise(r => setTimeout(r, 300))", "awaitPromise": true});
    b.call(
        "Input.dispatchMouseEvent",
        json!({"type": "mouseMoved", "x": x, "y": y}),
    );
    b.call("Runtime.evaluate", pause.clone());
    for kind in ["mousePressed", "mouseReleased"] {
        b.call(
            "Input.dispatchMouseEvent",
            json!({"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}),
        );
    }
    // Give a link handler the time it would take, then look.
    b.call("Runtime.evaluate", pause);
    assert_eq!(
        b.eval("typeof window.__pwned"),
        json!("undefined"),
        "no script ran"
    );
    assert_eq!(
        b.eval("location.href"),
        json!(format!("http://127.0.0.1:{}/", web.port))
    );
    assert_eq!(
        b.eval("document.title"),
        json!("termic"),
        "a task's title is not the page's"
    );
    assert_eq!(
        b.eval("document.querySelectorAll('#term script, #term img').length"),
        json!(0),
        "no markup from the task in the page"
    );
    assert!(
        !b.events.iter().any(|e| e == "Page.javascriptDialogOpening"),
        "no dialog: {:?}",
        b.events
    );
    let targets = b.call("Target.getTargets", json!({}));
    let pages = targets["targetInfos"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["type"] == "page")
        .count();
    assert_eq!(pages, 1, "no window was opened: {targets}");
}

#[test]
fn a_device_subscribes_to_push_with_the_vapid_key_and_revoking_it_removes_the_subscription() {
    use base64::Engine;
    let s = Served::new("sleep 600");
    let web = start_web(&s);
    let host = format!("127.0.0.1:{}", web.port);
    let origin = format!("http://{host}");
    let link = pair_link(&s, &[]);
    let jar = http_jar(&post_pair(web.port, link.rsplit('#').next().unwrap(), &origin).unwrap());
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;

    // The key: made on first ask, an uncompressed P-256 point, kept 0600.
    let get_key = |extra: &str| {
        http(
            web.port,
            &format!("GET /api/push/key HTTP/1.1\r\nHost: {host}\r\n{extra}\r\n"),
        )
    };
    assert_eq!(get_key("Sec-Fetch-Site: same-origin\r\n").0, 401);
    let (code, answer) = get_key(&format!("Cookie: {jar}\r\nSec-Fetch-Site: same-origin\r\n"));
    assert_eq!(code, 200, "{answer}");
    let body: Value =
        serde_json::from_str(&answer[answer.find("\r\n\r\n").unwrap() + 4..]).unwrap();
    let public = b64.decode(body["public"].as_str().unwrap()).unwrap();
    assert_eq!((public.len(), public[0]), (65, 4));
    let vapid = s.f.data_dir.join("web/vapid.json");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&vapid).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let file: Value = serde_json::from_str(&std::fs::read_to_string(&vapid).unwrap()).unwrap();
    assert_eq!(file["public"], body["public"]);
    assert_eq!(
        b64.decode(file["private"].as_str().unwrap()).unwrap().len(),
        32
    );

    let post = |path: &str, origin: &str, body: &str| {
        http(
            web.port,
            &format!(
                "POST {path} HTTP/1.1\r\nHost: {host}\r\nOrigin: {origin}\r\nCookie: {jar}\r\n\
Content-Length: {}\r\n\r\n{body}",
                body.len()
            ),
        )
        .0
    };
    let mut point = vec![4u8];
    point.extend([7u8; 64]);
    let sub = json!({
        "endpoint": "https://push.example.net/send/abc",
        "keys": {"p256dh": b64.encode(&point), "auth": b64.encode([9u8; 16])}
    })
    .to_string();
    assert_eq!(
        post("/api/push/subscribe", "http://attacker.example", &sub),
        403
    );
    let bad = sub.replace("https://push", "http://push");
    assert_eq!(post("/api/push/subscribe", &origin, &bad), 400, "not https");
    assert_eq!(post("/api/push/subscribe", &origin, &sub), 200);
    assert_eq!(
        post("/api/push/subscribe", &origin, &sub),
        200,
        "again: replaced"
    );
    let subs = s.f.data_dir.join("web/push-subscriptions.json");
    let list: Value = serde_json::from_str(&std::fs::read_to_string(&subs).unwrap()).unwrap();
    assert_eq!(list.as_array().unwrap().len(), 1, "{list}");
    assert_eq!(list[0]["device"], "1");
    assert_eq!(list[0]["endpoint"], "https://push.example.net/send/abc");
    assert_eq!(list[0]["muted"], json!([]));
    assert_eq!(list[0]["needs_you_only"], false);

    s.expect(&["web", "devices", "revoke", "1"], 0);
    let list: Value = serde_json::from_str(&std::fs::read_to_string(&subs).unwrap()).unwrap();
    assert_eq!(list, json!([]), "a revoked device's subscriptions go");
}

/// utime + stime of process `pid`, in clock ticks.
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let after = &stat[stat.rfind(')').unwrap() + 2..];
    let f: Vec<&str> = after.split(' ').collect();
    f[11].parse::<u64>().unwrap() + f[12].parse::<u64>().unwrap()
}

/// Resident memory of process `pid`, in KiB.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap()
}

#[test]
#[ignore = "needs chromium: .ci/run's web client step"]
fn an_idle_page_costs_the_server_no_cpu_and_a_200_mib_flood_grows_termic_web_under_16_mb() {
    if !crate::requires::program("chromium", "chromium") {
        return;
    }
    let s = Served::new("sleep 600");
    s.expect(&["run", "fake", "--name", "quiet", "--detach"], 0);
    let web = start_web(&s);
    let web_pid = web.child.id();
    let server_pid = s.server_pid() as u32;
    let mut b = Browser::phone();
    b.navigate(&pair_link(&s, &[]));
    b.until("the list", "!!document.querySelector('#list li button')");
    b.eval("document.querySelector('#list li button').click()");
    b.until("the view", "!!document.querySelector('#term .xterm-rows')");
    // Opening the view costs a repaint: the server is quiet again once a
    // second passes without a tick (on a loaded machine that repaint can
    // land late). Then an idle list and an idle view for 5 s (a
    // measurement window, not a wait for an event).
    assert!(eventually(Duration::from_secs(30), || {
        let a = cpu_ticks(server_pid);
        std::thread::sleep(Duration::from_secs(1));
        cpu_ticks(server_pid) == a
    }));
    let before = (cpu_ticks(server_pid), cpu_ticks(web_pid));
    std::thread::sleep(Duration::from_secs(5));
    let after = (cpu_ticks(server_pid), cpu_ticks(web_pid));
    eprintln!(
        "idle 5 s: server {} ticks, termic web {} ticks",
        after.0 - before.0,
        after.1 - before.1
    );
    assert_eq!(
        after.0 - before.0,
        0,
        "the server spent CPU on an idle page"
    );

    b.eval("document.getElementById('back').click()");
    let rss_before = rss_kib(web_pid);
    s.expect(
        &[
            "run",
            "--name",
            "flood",
            "--detach",
            "--",
            "/bin/sh",
            "-c",
            "/usr/bin/yes termic-flood | /usr/bin/head -c 209715200; echo; echo FLOOD-END; exec sleep 600",
        ],
        0,
    );
    b.until(
        "the flood task is listed",
        "Array.from(document.querySelectorAll('#list li button')).some(b => b.textContent.includes('flood'))",
    );
    b.eval(
        "Array.from(document.querySelectorAll('#list li button')).find(b => b.textContent.includes('flood')).click()",
    );
    let start = std::time::Instant::now();
    let mut peak = rss_before;
    let ended = eventually(Duration::from_secs(300), || {
        peak = peak.max(rss_kib(web_pid));
        b.eval(&format!("({TERM_TEXT}).includes('FLOOD-END')")) == json!(true)
    });
    eprintln!(
        "200 MiB flood viewed: {:.1} s, termic web RSS {} KiB before, {} KiB peak (+{} KiB)",
        start.elapsed().as_secs_f64(),
        rss_before,
        peak,
        peak - rss_before
    );
    assert!(ended, "the flood's end reached the page");
    assert!(
        peak - rss_before < 16 * 1024,
        "termic web grew {} KiB",
        peak - rss_before
    );
}

#[test]
fn notification_choices_change_only_this_devices_subscriptions_and_need_a_full_live_credential() {
    use base64::Engine;
    let s = Served::new("sleep 600");
    let web = start_web(&s);
    let host = format!("127.0.0.1:{}", web.port);
    let origin = format!("http://{host}");
    let pair = |args: &[&str]| {
        let link = pair_link(&s, args);
        http_jar(&post_pair(web.port, link.rsplit('#').next().unwrap(), &origin).unwrap())
    };
    let (one, two, ro) = (pair(&[]), pair(&[]), pair(&["--read-only"]));
    let post = |jar: &str, path: &str, body: &str| {
        let (code, answer) = http(
            web.port,
            &format!(
                "POST {path} HTTP/1.1\r\nHost: {host}\r\nOrigin: {origin}\r\nCookie: {jar}\r\n\
Content-Length: {}\r\n\r\n{body}",
                body.len()
            ),
        );
        let body = answer
            .find("\r\n\r\n")
            .map(|i| answer[i + 4..].to_string())
            .unwrap_or_default();
        (code, body)
    };
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let mut point = vec![4u8];
    point.extend([7u8; 64]);
    let sub = |n: u32| {
        json!({
            "endpoint": format!("https://push.example.net/send/{n}"),
            "keys": {"p256dh": b64.encode(&point), "auth": b64.encode([9u8; 16])}
        })
        .to_string()
    };
    assert_eq!(post(&one, "/api/push/subscribe", &sub(1)).0, 200);
    assert_eq!(post(&two, "/api/push/subscribe", &sub(2)).0, 200);
    assert_eq!(
        post(&two, "/api/push/choices", r#"{"task":4,"muted":true}"#).0,
        200
    );
    let path = s.f.data_dir.join("web/push-subscriptions.json");
    let read =
        || -> Value { serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap() };
    let theirs = read()[1].clone();
    assert_eq!(theirs["device"], "2");

    // Mute task 7, then the needs-you-only switch: this device's entry.
    let (code, body) = post(&one, "/api/push/choices", r#"{"task":7,"muted":true}"#);
    assert_eq!(code, 200, "{body}");
    let (code, body) = post(&one, "/api/push/choices", r#"{"needs_you_only":true}"#);
    assert_eq!(code, 200, "{body}");
    let answer: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        answer["choices"],
        json!({"muted": [7], "muted_remote": [], "needs_you_only": true})
    );
    let list = read();
    assert_eq!(list[0]["muted"], json!([7]), "{list}");
    assert_eq!(list[0]["needs_you_only"], true);
    assert_eq!(list[1], theirs, "another device's entry is kept as it was");
    let (_, body) = post(&one, "/api/push/choices", r#"{"task":7,"muted":false}"#);
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap()["choices"]["muted"],
        json!([])
    );
    assert_eq!(read()[1], theirs);

    // Malformed, read-only, absent, revoked: refused, nothing written.
    let before = std::fs::read(&path).unwrap();
    assert_eq!(
        post(&one, "/api/push/choices", r#"{"task":"7","muted":1}"#).0,
        400
    );
    assert_eq!(post(&one, "/api/push/choices", r#"{"task":7}"#).0, 400);
    assert_eq!(
        post(&ro, "/api/push/choices", r#"{"needs_you_only":true}"#).0,
        403
    );
    assert_eq!(
        post("", "/api/push/choices", r#"{"needs_you_only":false}"#).0,
        401
    );
    assert_eq!(
        std::fs::read(&path).unwrap(),
        before,
        "a refusal writes nothing"
    );
    s.expect(&["web", "devices", "revoke", "1"], 0);
    assert_eq!(
        post(&one, "/api/push/choices", r#"{"needs_you_only":false}"#).0,
        401
    );
    let after: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(
        after,
        json!([theirs]),
        "revoking removed device 1's entry only"
    );
}

#[test]
#[ignore = "needs chromium: .ci/run's web client step"]
fn a_notification_action_in_the_fragment_answers_once_and_a_stale_one_sends_nothing() {
    if !crate::requires::program("chromium", "chromium") {
        return;
    }
    let s = Served::new(&dialog_agent());
    s.expect(&["run", "fake", "--name", "create", "--detach"], 0);
    let _web = start_web(&s);
    let mut b = Browser::phone();
    let link = pair_link(&s, &[]);
    let base = link[..link.find("/pair").unwrap()].to_string();
    b.navigate(&link);
    b.until(
        "the list offers the dialog's answers",
        "document.querySelectorAll('#list .ask .choice').length === 3",
    );
    // What sw.js opens for a tap on "Yes": the page's fragment, read by
    // an open page (hashchange) and gone from the address at once.
    b.navigate(&format!("{base}/#task=1&answer=approve_once"));
    b.until(
        "the task got 1",
        &format!("({TERM_TEXT}).includes('answered 1')"),
    );
    assert_eq!(b.eval("location.hash"), json!(""));
    b.until(
        "the list says done",
        "(() => { const r = document.querySelector('#list li .badge.done'); return !!r; })()",
    );
    // The same action again, on a fresh page: the dialog is gone, nothing
    // is sent and the page says so.
    b.navigate("about:blank");
    b.navigate(&format!("{base}/#task=1&answer=deny"));
    b.until(
        "the page says nothing was sent",
        "document.getElementById('status').textContent.includes('nothing was sent')",
    );
    assert_eq!(b.eval("location.hash"), json!(""));
    assert_eq!(
        b.eval("document.getElementById('status').textContent"),
        json!("It no longer needs you, nothing was sent.")
    );
    b.until(
        "the view shows the task's screen",
        &format!("({TERM_TEXT}).includes('answered 1')"),
    );
}

/// A task that says working, then done with its last message, once it
/// reads a line.
fn turn_agent() -> String {
    [
        "echo READY".to_string(),
        "read l".into(),
        hook("working", ""),
        hook("done", ";message=Fixed it%%3B <b>bold</b>%%1B[2J"),
        "sleep 600".into(),
    ]
    .join("; ")
}

/// Runs `turn_agent`'s turn while no terminal is attached.
fn turn_while_away(s: &Served) {
    s.expect(&["run", "fake", "--name", "build", "--detach"], 0);
    s.expect(&["send", "build", "go", "--enter"], 0);
    let reached = s.expect(&["wait", "build", "--for", "done", "--timeout", "30"], 0);
    assert_eq!(reached.trim(), "done");
}

/// Issue 31 item 3 (2026-12-06): the page's task list stream carries what
/// a task did while no terminal was attached (the row's `away`), for the
/// page's "While you were away" section.
#[test]
fn the_page_data_says_what_a_task_did_while_nobody_was_attached() {
    let s = Served::new(&turn_agent());
    let web = start_web(&s);
    turn_while_away(&s);
    let host = format!("127.0.0.1:{}", web.port);
    let origin = format!("http://{host}");
    let link = pair_link(&s, &[]);
    let cred = post_pair(web.port, link.rsplit('#').next().unwrap(), &origin).unwrap();
    let cookie_only = format!("termic_device={}", cred.0);
    let protocols = ws_protocols(&cred);
    let mut list = ws(
        web.port,
        &host,
        &[
            ("Origin", &origin),
            ("Cookie", &cookie_only),
            ("Sec-WebSocket-Protocol", &protocols),
        ],
    )
    .unwrap();
    list.send(Message::text("\"subscribe\"")).unwrap();
    let subscribed = next_text(&mut list).unwrap();
    let away = &subscribed["subscribed"]["tasks"][0]["away"];
    let states: Vec<&str> = away["changes"]
        .as_array()
        .unwrap_or_else(|| panic!("{subscribed}"))
        .iter()
        .map(|c| c["state"].as_str().unwrap())
        .collect();
    assert_eq!(states, ["working", "done"], "{subscribed}");
    assert!(
        away["changes"][1]["at"].as_u64().unwrap() >= away["changes"][0]["at"].as_u64().unwrap(),
        "{away}"
    );
    assert_eq!(away["message"], "Fixed it; <b>bold</b>[2J", "{away}");
}

/// The page shows that section under the task, as text.
#[test]
#[ignore = "needs chromium: .ci/run's web client step"]
fn the_page_shows_what_a_task_did_while_nobody_was_attached() {
    if !crate::requires::program("chromium", "chromium") {
        return;
    }
    let s = Served::new(&turn_agent());
    let _web = start_web(&s);
    turn_while_away(&s);
    let mut b = Browser::phone();
    b.navigate(&pair_link(&s, &[]));
    b.until(
        "the list shows the task's away section",
        "!!document.querySelector('#list li .away .away-states')",
    );
    let text = b.eval("document.querySelector('#list li .away').textContent");
    let text = text.as_str().unwrap();
    assert!(text.starts_with("While you were away"), "{text}");
    let states = b.eval("document.querySelector('#list li .away .away-states').textContent");
    let states = states.as_str().unwrap();
    let parts = states
        .split(", ")
        .map(|p| p.rsplit_once(' ').map(|(s, t)| (s, t.len())))
        .collect::<Vec<_>>();
    assert_eq!(parts, [Some(("working", 5)), Some(("done", 5))], "{states}");
    // The agent's last message, as text (markup in it is not markup).
    let said = b.eval("document.querySelector('#list li .away .away-message').textContent");
    assert_eq!(said, json!("Said: Fixed it; <b>bold</b>[2J"));
    assert_eq!(
        b.eval("document.querySelectorAll('#list li .away b').length"),
        json!(0)
    );
    b.screenshot(&artefact("web-phone-away.png"));
}

/// The task's history (what scrolled off before the page opened it) is in
/// the page's scrollback: scrolled to the top, the screen shows the first
/// line the task printed, and the bottom is its live screen.
#[test]
#[ignore = "needs chromium: .ci/run's web client step"]
fn a_tasks_scrollback_from_before_the_page_opened_it_is_in_the_page() {
    if !crate::requires::program("chromium", "chromium") {
        return;
    }
    let s = Served::new(
        "i=1; while [ $i -le 300 ]; do printf 'line %03d\\r\\n' $i; i=$((i+1)); done; \
         printf 'the end\\r\\n'; sleep 600",
    );
    s.expect(&["run", "fake", "--name", "long", "--detach"], 0);
    let (_web, mut b) = paired_phone(&s);
    b.until(
        "the list shows the task",
        "Array.from(document.querySelectorAll('#list li')).some(li => li.textContent.includes('long'))",
    );
    b.eval("document.querySelector('#list li button').click()");
    b.until(
        "the screen shows the task's last lines",
        &format!("({TERM_TEXT}).includes('line 300') && ({TERM_TEXT}).includes('the end')"),
    );
    assert_eq!(
        b.eval(&format!("({TERM_TEXT}).includes('line 001')")),
        json!(false),
        "the first line scrolled off the screen"
    );
    b.eval("document.querySelector('#term .xterm-viewport').scrollTop = 0");
    b.until(
        "scrolled to the top, the first line the task printed",
        &format!("({TERM_TEXT}).includes('line 001') && ({TERM_TEXT}).includes('line 002')"),
    );
    b.screenshot(&artefact("web-phone-scrollback.png"));
}

/// Issue 30: the page's Mute with a push subscription of the paired
/// device (the test's keys and a local push endpoint: headless Chromium
/// has no push service, so the entry is written as the page's subscribe
/// would store it). Muted in the page, t1 needs you and nothing is pushed
/// for it; t2, not muted, needs you next and is pushed (pushes go out in
/// order, so t1's would have come first).
#[test]
#[ignore = "needs chromium: .ci/run's web client step"]
fn a_task_muted_in_the_page_is_not_pushed_and_an_unmuted_one_is() {
    use crate::push::{served, subscribe, subscriptions, Browser as Keys, Endpoint};
    if !crate::requires::program("chromium", "chromium") {
        return;
    }
    let endpoint = Endpoint::start(&[]);
    let script = format!(
        "while [ ! -f go ]; do sleep 0.05; done; {}; sleep 600",
        hook("attention", ";kind=question")
    );
    let s = served(&script, "");
    s.expect(&["run", "fake", "--name", "first", "--detach"], 0);
    let web = start_web(&s);
    let mut b = Browser::phone();
    b.navigate(&pair_link(&s, &[]));
    b.until("the list", "!!document.querySelector('#list li button')");
    // The paired device is number 1: its subscription, then the page
    // again (it reads its choices when it loads).
    let keys = Keys::new();
    subscribe(
        &s.f.data_dir,
        &[keys.entry("1", &endpoint.url("/push/phone"), &[], false)],
    );
    b.navigate(&format!("http://127.0.0.1:{}/", web.port));
    b.until(
        "the task's Mute toggle",
        "!!document.querySelector('#list [data-mute=\"1\"]')",
    );
    b.eval("document.querySelector('#list [data-mute=\"1\"]').click()");
    b.until(
        "the toggle says muted",
        "document.querySelector('#list [data-mute=\"1\"]').getAttribute('aria-pressed') === 'true'",
    );
    assert_eq!(subscriptions(&s.f.data_dir)[0]["muted"], json!([1]));
    std::fs::write(s.f.work.join("go"), "").unwrap();
    s.expect(
        &["wait", "first", "--for", "needs-you", "--timeout", "30"],
        0,
    );
    s.expect(&["run", "fake", "--name", "second", "--detach"], 0);
    s.expect(
        &["wait", "second", "--for", "needs-you", "--timeout", "30"],
        0,
    );
    let got = endpoint.wait("/push/phone", 1);
    let payload = keys.open(&got[0]);
    assert_eq!(payload["task"], 2, "{payload}");
    assert_eq!(payload["reason"], "question", "{payload}");
    assert_eq!(
        endpoint.at("/push/phone").len(),
        1,
        "nothing for the muted task"
    );
}

/// Issue 30: the page, an attached TUI and the CLI on one task at once,
/// with the server started by a `termic run` from HOME and from `/`: the
/// CLI's `send` reaches the task, and its answer shows on the TUI's
/// screen and the page's; then `ls`, the TUI's badge and the page's badge
/// all say it needs you.
#[test]
#[ignore = "needs chromium: .ci/run's web client step"]
fn the_page_the_tui_and_the_cli_agree_with_the_server_started_from_home_and_from_root() {
    use crate::harness::{wait_badge, Termic};
    if !crate::requires::program("chromium", "chromium") {
        return;
    }
    let script = [
        "echo ready".to_string(),
        "read line".into(),
        "echo \"got $line\"".into(),
        hook("attention", ";kind=question"),
        "sleep 600".into(),
    ]
    .join("; ");
    for from in ["home", "/"] {
        let s = Served::new(&script);
        let dir = match from {
            "home" => s.f.home.clone(),
            _ => std::path::PathBuf::from("/"),
        };
        let out =
            s.f.cli(&dir, &["run", "fake", "--name", "both", "--detach"]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "termic run from {from}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let _web = start_web(&s);
        let mut b = Browser::phone();
        b.navigate(&pair_link(&s, &[]));
        b.until("the list", "!!document.querySelector('#list li button')");
        let tui = Termic::start(&s.f, &["attach", "both"]);
        tui.wait_text("ready");
        b.eval("document.querySelector('#list li button').click()");
        b.until(
            "the page's screen shows the task",
            &format!("({TERM_TEXT}).includes('ready')"),
        );
        s.expect(&["send", "both", "from-the-cli", "--enter"], 0);
        tui.wait_text("got from-the-cli");
        b.until(
            "the page's screen shows the answer",
            &format!("({TERM_TEXT}).includes('got from-the-cli')"),
        );
        s.expect(
            &["wait", "both", "--for", "needs-you", "--timeout", "30"],
            0,
        );
        let row = s.ls().remove(0);
        assert_eq!(
            (row["name"].as_str(), row["state"].as_str()),
            (Some("both"), Some("needs_you")),
            "from {from}: {row}"
        );
        wait_badge(&tui, "both", "needs you [question]");
        b.eval("document.getElementById('back').click()");
        b.until(
            "the page's badge says needs you",
            "!!document.querySelector('#list li .badge.needs_you')",
        );
    }
}
