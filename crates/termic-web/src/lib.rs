//! termic's web client: HTTP and WebSocket serving, pairing, device
//! credentials, Origin and Host checks, and the page (vendored xterm.js).
//! It knows nothing of termic's server: a [`Backend`] (implemented by the
//! `termic` crate) opens protocol connections, and this crate moves the
//! protocol's frames (4-byte length, body) between them and WebSockets.
//! Sync, a thread per connection, at most [`Options::max_connections`].

mod assets;
pub mod checks;
mod http;
pub mod limits;
mod relay;
pub mod store;
pub mod tls;

use std::io::{self, Read, Write};
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream};
use std::os::unix::io::AsRawFd;
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{bail, Context, Result};
use tungstenite::protocol::{Role, WebSocketConfig};
use tungstenite::{Message, WebSocket};

use checks::RateLimit;
use store::{Device, Store};

/// The default port (`termic web --listen`).
pub const DEFAULT_PORT: u16 = 7501;
/// A frame of the client protocol is at most this long (docs/protocol.md).
const MAX_FRAME: usize = 1 << 20;
/// How long a request head or a WebSocket's first message may take.
const READ_TIMEOUT: Duration = Duration::from_secs(10);
/// How often an open WebSocket checks its device is still paired.
const RECHECK: Duration = Duration::from_secs(5);
/// Pairing attempts per minute, for the whole server.
const PAIR_ATTEMPTS: usize = 5;

/// A browser's connection: plain TCP, or TLS over it.
pub trait Conn: Read + Write + Send {
    fn tcp(&self) -> &TcpStream;
}

impl Conn for TcpStream {
    fn tcp(&self) -> &TcpStream {
        self
    }
}

impl Conn for rustls::StreamOwned<rustls::ServerConnection, TcpStream> {
    fn tcp(&self) -> &TcpStream {
        &self.sock
    }
}

/// Opens a connection to the termic server, hello said and welcomed.
pub trait Backend: Send + Sync + 'static {
    fn open(&self) -> io::Result<UnixStream>;

    /// Answer task `task` of remote host `host` with `choice`, as `termic
    /// answer HOST:TASK CHOICE` does; the host's answer as protocol JSON
    /// (`{"answered": ...}` or `{"error": ...}`). Err: it could not be
    /// asked (no such host, ssh failed).
    fn answer_on_host(&self, host: &str, task: &str, choice: &str) -> io::Result<String> {
        let _ = (host, task, choice);
        Err(io::Error::other("remote hosts are not reachable from here"))
    }

    /// Opens a connection to remote host `host`'s server, hello said and
    /// welcomed (as `termic attach HOST:TASK` does), for one view of its
    /// task `task`.
    fn open_on_host(&self, host: &str, task: &str) -> io::Result<UnixStream> {
        let _ = (host, task);
        Err(io::Error::other("remote hosts are not reachable from here"))
    }
}

/// What a line of the web server's log says; never a secret.
pub type Log = Arc<dyn Fn(&str) + Send + Sync>;

/// Gives the VAPID public key (base64url, an uncompressed P-256 point),
/// creating the key pair on first use.
pub type PushKey = Arc<dyn Fn() -> Result<String> + Send + Sync>;

#[derive(Clone)]
pub struct Options {
    pub listen: SocketAddr,
    /// Serve plain HTTP on an address that is not loopback (behind a TLS
    /// proxy, on a private network or an `ssh -L` tunnel).
    pub insecure_behind_proxy: bool,
    /// More `host:port` names the page may be reached as (the Host header
    /// checked against DNS rebinding): an `ssh -L` local port, a proxy's name.
    pub extra_hosts: Vec<String>,
    /// `<state dir>/web`.
    pub store_dir: PathBuf,
    /// Serve HTTPS with this configuration ([`tls::load`], [`tls::self_signed`]).
    pub tls: Option<Arc<rustls::ServerConfig>>,
    /// Web Push: the key the page subscribes with (`None`: no push).
    pub push_key: Option<PushKey>,
    pub max_connections: usize,
}

/// Refuses a listen address that is not loopback without the flag.
pub fn check_listen(addr: &SocketAddr, tls: bool, insecure_behind_proxy: bool) -> Result<()> {
    if addr.ip().is_loopback() || tls || insecure_behind_proxy {
        return Ok(());
    }
    bail!(
        "{} is not a loopback address, and plain HTTP there lets anyone on that network \
watch the page: give --tls (a certificate termic makes) or --tls-cert and --tls-key, or \
--insecure-behind-proxy behind a TLS proxy or an ssh -L tunnel (docs/web.md says how)",
        addr.ip()
    )
}

/// The Host header values the server answers to.
fn allowed_hosts(addr: &SocketAddr, extra: &[String]) -> Vec<String> {
    let port = addr.port();
    let mut hosts = vec![match addr.ip() {
        IpAddr::V4(ip) => format!("{ip}:{port}"),
        IpAddr::V6(ip) => format!("[{ip}]:{port}"),
    }];
    if addr.ip().is_loopback() {
        hosts.extend([
            format!("localhost:{port}"),
            format!("127.0.0.1:{port}"),
            format!("[::1]:{port}"),
        ]);
    }
    hosts.extend(extra.iter().cloned());
    hosts
}

pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

struct Shared {
    opts: Options,
    hosts: Vec<String>,
    store: Store,
    backend: Box<dyn Backend>,
    log: Log,
    pair_limit: Mutex<RateLimit>,
    open: AtomicUsize,
}

/// A bound server, not yet serving.
pub struct Server {
    listener: TcpListener,
    shared: Arc<Shared>,
}

impl Server {
    pub fn bind(opts: Options, backend: Box<dyn Backend>, log: Log) -> Result<Server> {
        check_listen(&opts.listen, opts.tls.is_some(), opts.insecure_behind_proxy)?;
        let listener = TcpListener::bind(opts.listen)
            .with_context(|| format!("cannot listen on {}", opts.listen))?;
        let bound = listener.local_addr()?;
        let shared = Arc::new(Shared {
            hosts: allowed_hosts(&bound, &opts.extra_hosts),
            store: Store::new(opts.store_dir.clone()),
            opts,
            backend,
            log,
            pair_limit: Mutex::new(RateLimit::new(PAIR_ATTEMPTS, 60_000)),
            open: AtomicUsize::new(0),
        });
        Ok(Server { listener, shared })
    }

    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Serves until the process ends. Out of descriptors or threads (the
    /// user's limits), a connection it cannot serve is answered 503 with
    /// the reason, a failed `accept` waits a little longer each time (no
    /// spinning), and serving goes on as soon as the limit lifts.
    pub fn run(self) -> Result<()> {
        let mut backoff = limits::AcceptBackoff::default();
        let mut reserve = limits::ReservedFd::open();
        let mut reports = limits::RateLimit::new(limits::REPORT_EVERY);
        loop {
            match self.listener.accept() {
                Ok((stream, _)) => {
                    backoff.succeeded();
                    self.serve(stream, &mut reports);
                }
                Err(err) => self.accept_failed(&err, &mut reserve, &mut backoff, &mut reports),
            }
        }
    }

    /// One accepted connection: its own thread, or a 503 saying why not.
    fn serve(&self, stream: TcpStream, reports: &mut limits::RateLimit) {
        let Some(mut stream) = self.wrap(stream) else {
            return;
        };
        let shared = Arc::clone(&self.shared);
        if shared.open.fetch_add(1, Ordering::SeqCst) >= shared.opts.max_connections {
            shared.open.fetch_sub(1, Ordering::SeqCst);
            unavailable(&mut *stream, "Too many connections.");
            return;
        }
        // The stream stays reachable here when no thread can take it.
        let slot = Arc::new(Mutex::new(Some(stream)));
        let theirs = Arc::clone(&slot);
        let spawned = std::thread::Builder::new()
            .name("web-conn".into())
            .spawn(move || {
                let stream = theirs.lock().unwrap_or_else(|e| e.into_inner()).take();
                if let Some(stream) = stream {
                    handle(&shared, stream);
                }
                shared.open.fetch_sub(1, Ordering::SeqCst);
            });
        if let Err(err) = spawned {
            self.shared.open.fetch_sub(1, Ordering::SeqCst);
            let shortage = err
                .raw_os_error()
                .and_then(limits::shortage_of_errno)
                .unwrap_or(limits::Shortage::Threads);
            let taken = slot.lock().unwrap_or_else(|e| e.into_inner()).take();
            if let Some(mut stream) = taken {
                unavailable(&mut *stream, &said(shortage));
            }
            self.report(
                reports,
                &format!("refused a connection: cannot start a thread for it: {err}"),
            );
        }
    }

    /// The connection as served: TLS when configured.
    fn wrap(&self, stream: TcpStream) -> Option<Box<dyn Conn>> {
        Some(match &self.shared.opts.tls {
            Some(config) => {
                let conn = rustls::ServerConnection::new(Arc::clone(config)).ok()?;
                Box::new(rustls::StreamOwned::new(conn, stream))
            }
            None => Box::new(stream),
        })
    }

    /// `accept` failed: out of descriptors, the reserved one is given up
    /// for a moment so the waiting client hears why (503); then, or for
    /// any other shortage, the loop waits a little longer each time.
    fn accept_failed(
        &self,
        err: &io::Error,
        reserve: &mut limits::ReservedFd,
        backoff: &mut limits::AcceptBackoff,
        reports: &mut limits::RateLimit,
    ) {
        let refuse = |shortage| {
            let accepted = self.listener.accept();
            if let Ok((stream, _)) = accepted {
                if let Some(mut stream) = self.wrap(stream) {
                    unavailable(&mut *stream, &said(shortage));
                }
            }
            false
        };
        if limits::on_accept_failure(err, reserve, refuse).is_none() {
            return;
        }
        self.report(reports, &format!("cannot accept a connection: {err}"));
        std::thread::sleep(backoff.failed());
    }

    /// A line in the log, at most once per [`limits::REPORT_EVERY`].
    fn report(&self, reports: &mut limits::RateLimit, what: &str) {
        if let Some(held) = reports.hit(Instant::now()) {
            match held {
                0 => self.shared.log(what),
                n => self
                    .shared
                    .log(&format!("{what} ({n} more since the last report)")),
            }
        }
    }
}

/// What termic web tells a connection it cannot serve for `shortage`.
fn said(shortage: limits::Shortage) -> String {
    limits::sentence(&shortage.explain_for("termic web", "pages or tabs"))
}

/// Answer 503 with `message`, waiting at most a second either way: the
/// accepting thread must not be held by a slow client.
fn unavailable(stream: &mut dyn Conn, message: &str) {
    let _ = stream.tcp().set_write_timeout(Some(Duration::from_secs(1)));
    let _ = stream.tcp().set_read_timeout(Some(Duration::from_secs(1)));
    let _ = http::error(stream, "503 Service Unavailable", message);
}

fn handle(shared: &Shared, mut stream: Box<dyn Conn>) {
    let _ = stream.tcp().set_read_timeout(Some(READ_TIMEOUT));
    let _ = stream
        .tcp()
        .set_write_timeout(Some(Duration::from_secs(30)));
    let peer = stream
        .tcp()
        .peer_addr()
        .map(|a| a.ip().to_string())
        .unwrap_or_default();
    let Some(mut req) = http::read_request(&mut *stream) else {
        return;
    };
    let host = req.header("host").map(str::to_string);
    if !checks::host_allowed(host.as_deref(), &shared.hosts) {
        shared.log(&format!("refused a request from {peer}: unknown Host"));
        let _ = http::error(&mut *stream, "421 Misdirected Request", "Unknown host.");
        return;
    }
    let host = host.unwrap_or_default();
    let path = req.path.split(['?', '#']).next().unwrap_or("").to_string();
    let _ = match (req.method.as_str(), path.as_str()) {
        ("POST", "/api/pair") => pair(shared, &mut *stream, &mut req, &host, &peer),
        ("GET", "/api/me") => match authorized(shared, &req, &host) {
            Ok(device) => {
                let body = serde_json::json!({
                    "number": device.number,
                    "name": device.name,
                    "read_only": device.read_only,
                })
                .to_string();
                http::respond(
                    &mut *stream,
                    "200 OK",
                    "application/json",
                    "",
                    body.as_bytes(),
                )
            }
            Err(why) => refuse(shared, &mut *stream, &peer, why),
        },
        ("GET", "/api/push/key") => match authorized(shared, &req, &host) {
            Ok(_) => push_key(shared, &mut *stream),
            Err(why) => refuse(shared, &mut *stream, &peer, why),
        },
        ("POST", "/api/push/subscribe") | ("POST", "/api/push/unsubscribe") => {
            match authorized(shared, &req, &host) {
                Ok(device) => push_subscription(shared, &mut *stream, &mut req, &device, &path),
                Err(why) => refuse(shared, &mut *stream, &peer, why),
            }
        }
        ("POST", "/api/push/choices") => match authorized(shared, &req, &host) {
            Ok(device) => push_choices(shared, &mut *stream, &mut req, &device),
            Err(why) => refuse(shared, &mut *stream, &peer, why),
        },
        ("GET", "/ws") => match authorized(shared, &req, &host) {
            Ok(device) => websocket(shared, stream, req, device),
            Err(why) => refuse(shared, &mut *stream, &peer, why),
        },
        ("GET", p) => match assets::get(p) {
            Some((body, ty)) => http::respond(&mut *stream, "200 OK", ty, "", body),
            None => http::error(&mut *stream, "404 Not Found", "Not found."),
        },
        _ => http::error(&mut *stream, "405 Method Not Allowed", "Not allowed."),
    };
}

impl Shared {
    fn log(&self, line: &str) {
        (self.log)(line)
    }

    fn tls(&self) -> bool {
        self.opts.tls.is_some()
    }
}

/// Why a request is refused (for the log; the client gets 401 or 403).
enum Refusal {
    NoCredential,
    Unknown,
    Origin,
    Store(String),
}

fn refuse(shared: &Shared, stream: &mut dyn Conn, peer: &str, why: Refusal) -> io::Result<()> {
    let (status, log) = match why {
        Refusal::NoCredential => ("401 Unauthorized", "no device credential".to_string()),
        Refusal::Unknown => (
            "401 Unauthorized",
            "an unknown or revoked device".to_string(),
        ),
        Refusal::Origin => ("403 Forbidden", "another origin".to_string()),
        Refusal::Store(e) => ("500 Internal Server Error", e),
    };
    shared.log(&format!("refused a request from {peer}: {log}"));
    let msg = if status.starts_with("401") {
        "This device is not paired: run `termic web pair` and open the link it prints."
    } else {
        "Refused."
    };
    http::error(stream, status, msg)
}

/// The Origin check for a request that reads or changes data: the Origin
/// header must be the page's own; a GET without one passes only when the
/// browser says it is same-origin (`Sec-Fetch-Site`, which a page cannot
/// set). A WebSocket always has an Origin.
fn origin_ok(shared: &Shared, req: &http::Request, host: &str) -> bool {
    let proxy = shared.opts.insecure_behind_proxy;
    match req.header("origin") {
        Some(o) => checks::origin_allowed(Some(o), host, shared.tls(), proxy),
        None => {
            req.method == "GET"
                && req.path != "/ws"
                && req.header("sec-fetch-site") == Some("same-origin")
        }
    }
}

/// The request's credential: the cookie's half and the page's half, this
/// one from the `X-Termic-Key` header or, on a WebSocket (a browser sets
/// no header there), a `key.KEY` entry of `Sec-WebSocket-Protocol`.
fn credential(req: &http::Request) -> Option<String> {
    let cookie = req
        .headers
        .iter()
        .filter(|(k, _)| k.eq_ignore_ascii_case("cookie"))
        .find_map(|(_, v)| checks::cookie(v, checks::COOKIE))?;
    let key = req.header("x-termic-key").map(str::trim).or_else(|| {
        req.header("sec-websocket-protocol")?
            .split(',')
            .find_map(|p| p.trim().strip_prefix("key."))
    })?;
    Some(store::credential(cookie, key))
}

fn authorized(shared: &Shared, req: &http::Request, host: &str) -> Result<Device, Refusal> {
    if !origin_ok(shared, req, host) {
        return Err(Refusal::Origin);
    }
    let cred = credential(req).ok_or(Refusal::NoCredential)?;
    let device = shared
        .store
        .authenticate(&cred)
        .map_err(|e| Refusal::Store(format!("{e:#}")))?
        .ok_or(Refusal::Unknown)?;
    let now = now_ms();
    if now.saturating_sub(device.last_seen) > 60_000 {
        if let Err(e) = shared.store.touch(device.number, now) {
            shared.log(&format!("cannot record when a device was seen: {e:#}"));
        }
    }
    Ok(device)
}

fn push_key(shared: &Shared, stream: &mut dyn Conn) -> io::Result<()> {
    let key = shared.opts.push_key.as_ref().map(|f| f());
    match key {
        Some(Ok(public)) => {
            let body = serde_json::json!({ "public": public }).to_string();
            http::respond(stream, "200 OK", "application/json", "", body.as_bytes())
        }
        Some(Err(e)) => {
            shared.log(&format!("no push key: {e:#}"));
            http::error(
                stream,
                "503 Service Unavailable",
                "Notifications are not available: see termic web's output.",
            )
        }
        None => http::error(stream, "404 Not Found", "Notifications are off."),
    }
}

/// `POST /api/push/choices`: this device's notification choices,
/// `{"task": N, "muted": bool}` (with `"host": NAME` for a remote host's
/// task, since 2026-12-06) and/or `{"needs_you_only": bool}`; `{}`
/// changes nothing. Answers the device's choices now (`null`: it has no
/// subscription). A read-only device cannot change them.
fn push_choices(
    shared: &Shared,
    stream: &mut dyn Conn,
    req: &mut http::Request,
    device: &Device,
) -> io::Result<()> {
    let body = req.body(stream)?;
    let Ok(v) = serde_json::from_slice::<serde_json::Value>(&body) else {
        return http::error(stream, "400 Bad Request", "Not a notification choice.");
    };
    let mute = match (v.get("task"), v.get("muted"), v.get("host")) {
        (None, None, None) => None,
        (Some(t), Some(m), host) => match (t.as_u64(), m.as_bool(), host.map(relay::host_name)) {
            (Some(t), Some(m), None) => Some((store::Muted::Task(t), m)),
            (Some(t), Some(m), Some(Ok(host))) => Some((
                store::Muted::Remote {
                    host: host.to_owned(),
                    task: t,
                },
                m,
            )),
            _ => return http::error(stream, "400 Bad Request", "Not a notification choice."),
        },
        _ => return http::error(stream, "400 Bad Request", "Not a notification choice."),
    };
    let only = match v.get("needs_you_only") {
        None => None,
        Some(o) => match o.as_bool() {
            Some(o) => Some(o),
            None => return http::error(stream, "400 Bad Request", "Not a notification choice."),
        },
    };
    if device.read_only && (mute.is_some() || only.is_some()) {
        return http::error(
            stream,
            "403 Forbidden",
            "This device is read-only: it cannot change notifications.",
        );
    }
    match shared.store.set_push_choices(device.number, mute, only) {
        Ok((_, now)) => {
            let body = serde_json::json!({ "choices": now }).to_string();
            http::respond(stream, "200 OK", "application/json", "", body.as_bytes())
        }
        Err(e) => {
            shared.log(&format!("cannot save notification choices: {e:#}"));
            http::error(
                stream,
                "500 Internal Server Error",
                "The choice could not be saved.",
            )
        }
    }
}

fn push_subscription(
    shared: &Shared,
    stream: &mut dyn Conn,
    req: &mut http::Request,
    device: &Device,
    path: &str,
) -> io::Result<()> {
    let body = req.body(stream)?;
    let done = if path.ends_with("/subscribe") {
        match serde_json::from_slice::<store::PushSubscription>(&body) {
            Ok(sub) => match sub.check() {
                Ok(()) => shared.store.subscribe(device.number, &sub),
                Err(why) => return http::error(stream, "400 Bad Request", why),
            },
            Err(_) => return http::error(stream, "400 Bad Request", "Not a push subscription."),
        }
    } else {
        let endpoint = serde_json::from_slice::<serde_json::Value>(&body)
            .ok()
            .and_then(|v| {
                v.get("endpoint")
                    .and_then(|e| e.as_str())
                    .map(str::to_string)
            })
            .unwrap_or_default();
        shared.store.unsubscribe(device.number, &endpoint)
    };
    match done {
        Ok(()) => {
            shared.log(&format!(
                "device {} {} push notifications",
                device.number,
                if path.ends_with("/subscribe") {
                    "subscribed to"
                } else {
                    "unsubscribed from"
                }
            ));
            http::respond(stream, "200 OK", "application/json", "", b"{}")
        }
        Err(e) => {
            shared.log(&format!("cannot save a push subscription: {e:#}"));
            http::error(
                stream,
                "500 Internal Server Error",
                "The subscription could not be saved.",
            )
        }
    }
}

fn pair(
    shared: &Shared,
    stream: &mut dyn Conn,
    req: &mut http::Request,
    host: &str,
    peer: &str,
) -> io::Result<()> {
    if !checks::origin_allowed(
        req.header("origin"),
        host,
        shared.tls(),
        shared.opts.insecure_behind_proxy,
    ) {
        shared.log(&format!("refused pairing from {peer}: another origin"));
        return http::error(stream, "403 Forbidden", "Refused.");
    }
    let allowed = shared
        .pair_limit
        .lock()
        .map(|mut l| l.attempt(now_ms()))
        .unwrap_or(false);
    if !allowed {
        shared.log(&format!(
            "refused pairing from {peer}: over 5 attempts a minute"
        ));
        return http::error(
            stream,
            "429 Too Many Requests",
            "Too many pairing attempts: wait a minute and try again.",
        );
    }
    let body = req.body(stream)?;
    let token = serde_json::from_slice::<serde_json::Value>(&body)
        .ok()
        .and_then(|v| v.get("token").and_then(|t| t.as_str()).map(str::to_string))
        .unwrap_or_default();
    let name = checks::device_name(req.header("user-agent").unwrap_or(""));
    match shared.store.pair(&token, &name, now_ms()) {
        Ok(Some((device, cookie_half, key))) => {
            shared.log(&format!(
                "paired device {} ({}{}) from {peer}",
                device.number,
                device.name,
                if device.read_only { ", read-only" } else { "" }
            ));
            let secure = if shared.tls() || checks::is_loopback_host(host) {
                "; Secure"
            } else {
                ""
            };
            let cookie = format!(
                "Set-Cookie: {}={cookie_half}; Path=/; Max-Age=34560000; HttpOnly; SameSite=Strict{secure}\r\n",
                checks::COOKIE
            );
            // The page's half of the credential: pair.js keeps it in
            // localStorage (isolated by port, unlike the cookie).
            let body = serde_json::json!({
                "name": device.name,
                "read_only": device.read_only,
                "key": key,
            })
            .to_string();
            http::respond(
                stream,
                "200 OK",
                "application/json",
                &cookie,
                body.as_bytes(),
            )
        }
        Ok(None) => {
            shared.log(&format!(
                "refused pairing from {peer}: a wrong, used or expired link"
            ));
            http::error(
                stream,
                "403 Forbidden",
                "This link is wrong, used or expired: run `termic web pair` for a new one.",
            )
        }
        Err(e) => {
            shared.log(&format!("pairing failed: {e:#}"));
            http::error(
                stream,
                "500 Internal Server Error",
                "Pairing failed: see termic web's output.",
            )
        }
    }
}

fn websocket(
    shared: &Shared,
    mut stream: Box<dyn Conn>,
    req: http::Request,
    device: Device,
) -> io::Result<()> {
    let upgrade = req
        .header("upgrade")
        .is_some_and(|u| u.eq_ignore_ascii_case("websocket"));
    let (Some(key), true) = (req.header("sec-websocket-key"), upgrade) else {
        return http::error(
            &mut *stream,
            "400 Bad Request",
            "A WebSocket upgrade is expected.",
        );
    };
    let accept = tungstenite::handshake::derive_accept_key(key.as_bytes());
    // The page offers `termic` and `key.KEY`; the answer names `termic`
    // (never the key).
    let protocol = if req
        .header("sec-websocket-protocol")
        .is_some_and(|p| p.split(',').any(|x| x.trim() == "termic"))
    {
        "Sec-WebSocket-Protocol: termic\r\n"
    } else {
        ""
    };
    let head = format!(
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
Sec-WebSocket-Accept: {accept}\r\n{protocol}\r\n"
    );
    stream.write_all(head.as_bytes())?;
    stream.flush()?;
    let config = WebSocketConfig::default()
        .max_message_size(Some(MAX_FRAME))
        .max_frame_size(Some(MAX_FRAME));
    let cred = credential(&req).unwrap_or_default();
    let ws = WebSocket::from_partially_read(stream, req.rest, Role::Server, Some(config));
    pump(shared, ws, &device, &cred);
    Ok(())
}

fn read_frame(conn: &mut UnixStream) -> io::Result<Vec<u8>> {
    let mut len = [0u8; 4];
    conn.read_exact(&mut len)?;
    let len = u32::from_be_bytes(len) as usize;
    if len > MAX_FRAME {
        return Err(io::Error::new(io::ErrorKind::InvalidData, "frame too long"));
    }
    let mut body = vec![0u8; len];
    conn.read_exact(&mut body)?;
    Ok(body)
}

fn write_frame(conn: &mut UnixStream, body: &[u8]) -> io::Result<()> {
    let mut frame = Vec::with_capacity(body.len() + 4);
    frame.extend_from_slice(&(body.len() as u32).to_be_bytes());
    frame.extend_from_slice(body);
    conn.write_all(&frame)
}

fn would_block(e: &tungstenite::Error) -> bool {
    matches!(e, tungstenite::Error::Io(io) if io.kind() == io::ErrorKind::WouldBlock
        || io.kind() == io::ErrorKind::TimedOut)
}

/// Moves one stream between a WebSocket and a protocol connection: the
/// browser's first message opens it, then server frames go out as they
/// come (JSON as text, output as binary) and the browser's input goes in.
/// No queue: while the browser has not taken the last frame, the server's
/// frames are not read (the server paces and drops frames, not bytes).
fn pump(shared: &Shared, mut ws: WebSocket<Box<dyn Conn>>, device: &Device, cred: &str) {
    let first = loop {
        match ws.read() {
            Ok(Message::Text(t)) => break t.to_string(),
            Ok(Message::Ping(_)) | Ok(Message::Pong(_)) => continue,
            _ => return,
        }
    };
    let (request, once, host) = match relay::first(&first, device.read_only) {
        Ok(relay::First::Stream(r)) => (r, false, None),
        Ok(relay::First::Once(r)) => (r, true, None),
        Ok(relay::First::HostStream {
            host,
            task,
            request,
        }) => (request, false, Some((host, task))),
        Ok(relay::First::Remote { host, task, choice }) => {
            let answer = match shared.backend.answer_on_host(&host, &task, &choice) {
                Ok(answer) => answer,
                Err(e) => {
                    shared.log(&format!("cannot answer on host {host}: {e}"));
                    serde_json::json!({"error": {"message": e.to_string()}}).to_string()
                }
            };
            let _ = ws.send(Message::text(answer));
            let _ = ws.close(None);
            let _ = ws.flush();
            return;
        }
        Err(why) => {
            shared.log(&format!(
                "closed a WebSocket of device {}: {why}",
                device.number
            ));
            let _ = ws.close(None);
            let _ = ws.flush();
            return;
        }
    };
    let opened = match &host {
        None => shared.backend.open(),
        Some((h, task)) => shared.backend.open_on_host(h, task),
    };
    let mut conn = match opened {
        Ok(c) => c,
        Err(e) => {
            let message = match &host {
                None => {
                    shared.log(&format!("cannot reach the termic server: {e}"));
                    "The termic server cannot be reached.".to_string()
                }
                Some((h, _)) => {
                    shared.log(&format!("cannot reach host {h}: {e}"));
                    format!("Host {h} cannot be reached.")
                }
            };
            let msg = serde_json::json!({"error": {"message": message}});
            let _ = ws.send(Message::text(msg.to_string()));
            return;
        }
    };
    let _ = conn.set_read_timeout(Some(Duration::from_secs(30)));
    let _ = conn.set_write_timeout(Some(Duration::from_secs(30)));
    if write_frame(&mut conn, request.as_bytes()).is_err() {
        return;
    }
    if once {
        if let Ok(answer) = read_frame(&mut conn) {
            if let Ok(text) = String::from_utf8(answer) {
                let _ = ws.send(Message::text(text));
            }
        }
        let _ = ws.close(None);
        let _ = ws.flush();
        return;
    }
    if ws.get_ref().tcp().set_nonblocking(true).is_err() {
        return;
    }
    let tcp_fd = ws.get_ref().tcp().as_raw_fd();
    let unix_fd = conn.as_raw_fd();
    let mut pending = false;
    let mut checked = Instant::now();
    loop {
        let mut fds = [
            libc::pollfd {
                fd: tcp_fd,
                events: libc::POLLIN | if pending { libc::POLLOUT } else { 0 },
                revents: 0,
            },
            libc::pollfd {
                fd: if pending { -1 } else { unix_fd },
                events: libc::POLLIN,
                revents: 0,
            },
        ];
        // SAFETY: two valid pollfd entries; fds we own for the call.
        let n = unsafe { libc::poll(fds.as_mut_ptr(), 2, RECHECK.as_millis() as i32) };
        if n < 0 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            return;
        }
        if checked.elapsed() >= RECHECK {
            checked = Instant::now();
            if !matches!(shared.store.authenticate(cred), Ok(Some(_))) {
                shared.log(&format!(
                    "closed the streams of revoked device {}",
                    device.number
                ));
                let _ = ws.close(None);
                let _ = ws.flush();
                return;
            }
        }
        if fds[0].revents != 0 {
            loop {
                match ws.read() {
                    Ok(Message::Text(t)) => match relay::later(&t, device.read_only) {
                        relay::Later::Forward(req) => {
                            if write_frame(&mut conn, req.as_bytes()).is_err() {
                                return;
                            }
                        }
                        relay::Later::Refuse(msg) => {
                            let m = serde_json::json!({"error": {"message": msg}}).to_string();
                            match ws.send(Message::text(m)) {
                                Ok(()) => {}
                                Err(e) if would_block(&e) => pending = true,
                                Err(_) => return,
                            }
                        }
                        relay::Later::Close => return,
                    },
                    Ok(Message::Close(_)) | Ok(Message::Binary(_)) => return,
                    Ok(_) => {}
                    Err(e) if would_block(&e) => break,
                    Err(_) => return,
                }
            }
            if pending {
                match ws.flush() {
                    Ok(()) => pending = false,
                    Err(e) if would_block(&e) => {}
                    Err(_) => return,
                }
            }
        }
        if !pending && fds[1].revents != 0 {
            let Ok(body) = read_frame(&mut conn) else {
                let _ = ws.close(None);
                let _ = ws.flush();
                return;
            };
            let msg = match body.split_first() {
                Some((0, out)) => Message::binary(out.to_vec()),
                _ => match String::from_utf8(body) {
                    Ok(t) => Message::text(t),
                    Err(_) => return,
                },
            };
            match ws.send(msg) {
                Ok(()) => {}
                Err(e) if would_block(&e) => pending = true,
                Err(_) => return,
            }
        }
    }
}
