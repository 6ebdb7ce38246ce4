//! `termic web`: the web client's server (its own process, a client of the
//! termic server like `termic attach`), `termic web pair` and `termic web
//! devices`. The serving is crates/termic-web; this file gives it the
//! protocol connections and the paths.

use std::io;
use std::net::SocketAddr;
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use serde::{Deserialize, Serialize};

use crate::paths::TermicPaths;
use crate::printed::{errln, outln};
use crate::server::client::{self, Connected};

/// Serve the web client: your tasks in a browser, on your phone too.
///
/// Listens on 127.0.0.1:7501 unless --listen says otherwise. Pair a
/// browser with `termic web pair`; list and revoke them with
/// `termic web devices`. Reach it from a phone with `ssh -L` or behind a
/// TLS proxy: docs/web.md says how.
#[derive(Debug, Args)]
#[command(
    verbatim_doc_comment,
    after_help = "Examples:\n  termic web\n  termic web pair\n  termic web pair --read-only\n  \
termic web devices\n  termic web devices revoke 2\n  \
termic web --listen 0.0.0.0:7501 --tls\n  \
termic web --listen 0.0.0.0:7501 --insecure-behind-proxy --allow-host termic.example.com:443\n\n\
Exit codes: 0 done, 1 error (the address is taken, not loopback without TLS or --insecure-behind-proxy)."
)]
pub struct WebArgs {
    #[command(subcommand)]
    pub command: Option<WebCommand>,
    /// The address and port to listen on.
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:7501")]
    pub listen: SocketAddr,
    /// Serve HTTPS with a self-signed certificate termic makes once (its
    /// SHA-256 fingerprint is printed: compare it with the browser's).
    #[arg(long, conflicts_with_all = ["tls_cert", "tls_key"])]
    pub tls: bool,
    /// Serve HTTPS with this certificate chain (PEM); with --tls-key.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// The certificate's private key (PEM); with --tls-cert.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// Serve plain HTTP on an address that is not loopback: only behind a
    /// proxy that adds TLS, or on a private network you trust.
    #[arg(long)]
    pub insecure_behind_proxy: bool,
    /// Another HOST:PORT the page is reached as (a proxy's name, an ssh -L
    /// port other than the listen port); repeatable.
    #[arg(long, value_name = "HOST:PORT")]
    pub allow_host: Vec<String>,
}

#[derive(Debug, Subcommand)]
pub enum WebCommand {
    /// Print a one-time link (and its QR code) that pairs a browser.
    ///
    /// The link works once, for 10 minutes. Opening it gives that browser
    /// a device credential (a cookie); `termic web devices` lists them.
    #[command(
        after_help = "Examples:\n  termic web pair\n  termic web pair --read-only\n  \
termic web pair --url https://termic.example.com\n\nExit codes: 0 printed, 1 error."
    )]
    Pair {
        /// The device sees everything and types nothing.
        #[arg(long)]
        read_only: bool,
        /// The page's address as the browser reaches it (default: where
        /// `termic web` listens).
        #[arg(long, value_name = "URL")]
        url: Option<String>,
    },
    /// List the paired browsers, or revoke one.
    ///
    /// Each with its number, name (browser and system), access (full or
    /// read-only), when it paired and when it was last seen.
    #[command(
        after_help = "Examples:\n  termic web devices\n  termic web devices revoke 2\n  \
termic web devices revoke \"Chrome on Android\"\n\nExit codes: 0 done, 1 error (no such device)."
    )]
    Devices {
        #[command(subcommand)]
        command: Option<DevicesCommand>,
    },
}

#[derive(Debug, Subcommand)]
pub enum DevicesCommand {
    /// Unpair a device: its credential stops working at once (open pages
    /// within 5 s) and its push subscriptions go.
    ///
    /// Pair it again with a new `termic web pair` link if you change your mind.
    #[command(after_help = "Examples:\n  termic web devices revoke 2\n  \
termic web devices revoke \"Chrome on Android\"\n\n\
Exit codes: 0 revoked, 1 error (no such device, a name several devices share).")]
    Revoke {
        /// Its number or its name, as `termic web devices` lists them.
        device: String,
    },
}

/// Where `termic web` listens, for `termic web pair` (web/server.json).
#[derive(Debug, Serialize, Deserialize)]
struct Running {
    url: String,
    pid: u32,
}

fn web_dir(paths: &TermicPaths) -> PathBuf {
    paths.data_dir.join("web")
}

pub fn run(args: WebArgs) -> Result<ExitCode> {
    let paths = TermicPaths::from_env()?;
    match args.command {
        None => serve(&paths, &args),
        Some(WebCommand::Pair { read_only, url }) => pair(&paths, read_only, url),
        Some(WebCommand::Devices { command: None }) => devices(&paths),
        Some(WebCommand::Devices {
            command: Some(DevicesCommand::Revoke { device }),
        }) => revoke(&paths, &device),
    }
}

/// Protocol connections for the web server: a quiet hello, then the raw
/// socket.
struct Socket {
    paths: TermicPaths,
}

impl termic_web::Backend for Socket {
    fn open(&self) -> io::Result<UnixStream> {
        open_local(&self.paths)
    }

    fn open_on_host(&self, host: &str, task: &str) -> io::Result<UnixStream> {
        view_on_host(&self.paths, host, task)
            .map_err(|e| io::Error::other(crate::printed::error_text(&e)))
    }

    fn answer_on_host(&self, host: &str, task: &str, choice: &str) -> io::Result<String> {
        let answer = super::answer::answer_on_host(&self.paths, host, task, choice)
            .map_err(|e| io::Error::other(crate::printed::error_text(&e)))?;
        serde_json::to_string(&answer).map_err(io::Error::other)
    }
}

/// A protocol connection to this machine's server, hello said quietly.
fn open_local(paths: &TermicPaths) -> io::Result<UnixStream> {
    match client::connect_quiet(paths) {
        Ok(Connected::Ready(c)) => Ok(c.into_streams().0.into_inner()),
        Ok(Connected::Mismatch { message, .. }) => Err(io::Error::other(message)),
        Err(e) => Err(io::Error::other(crate::printed::error_text(&e))),
    }
}

/// A protocol connection to host `host` (a name in config.toml's
/// [hosts]) for one view, as `termic attach HOST:TASK` opens it: its own
/// ssh, hello said. Given as one end of a socket pair; two threads move
/// the bytes between the other end and ssh, and the first to end kills
/// and reaps ssh (so the other ends too). One ssh per open view of a
/// remote task, at most termic web's connection bound. While the view is
/// open, a `look` connection to this machine's server says the page looks
/// at that task, so the server pushes nothing about it (protocol 9).
fn view_on_host(paths: &TermicPaths, host: &str, task: &str) -> Result<UnixStream> {
    use std::io::{Read, Write};
    use std::sync::{Arc, Mutex};
    type Held = Arc<
        Mutex<(
            Option<UnixStream>,
            Option<crate::server::remote::SshProcess>,
        )>,
    >;
    let hosts = crate::config::Config::load_lenient(&paths.config_dir).hosts;
    let host = crate::server::remote::find_host(&hosts, host)?.clone();
    let (ssh, remote) = crate::server::remote::connect(&host)?;
    let (mut from_host, mut to_host) = remote.into_streams();
    let (ours, theirs) = UnixStream::pair()?;
    let mut theirs_in = theirs.try_clone()?;
    let mut theirs_out = theirs;
    // The look (none when the task is named, not numbered: the page
    // sends numbers) ends first, then ssh: once the view's ssh is gone
    // the server no longer takes the page as looking.
    let look = task
        .parse::<u64>()
        .ok()
        .and_then(|n| look_at(paths, &host.name, n));
    let ssh: Held = Arc::new(Mutex::new((look, Some(ssh))));
    fn end(held: &Held) {
        let mut held = held.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(look) = held.0.take() {
            let _ = look.shutdown(std::net::Shutdown::Both);
        }
        drop(held.1.take());
    }
    let ssh_down = Arc::clone(&ssh);
    std::thread::Builder::new()
        .name("termic-web-host-out".into())
        .spawn(move || {
            let _ = io::copy(&mut from_host, &mut theirs_out);
            let _ = theirs_out.shutdown(std::net::Shutdown::Both);
            end(&ssh_down);
        })?;
    std::thread::Builder::new()
        .name("termic-web-host-in".into())
        .spawn(move || {
            let mut buf = [0u8; 16 * 1024];
            loop {
                match theirs_in.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        if to_host
                            .write_all(&buf[..n])
                            .and_then(|()| to_host.flush())
                            .is_err()
                        {
                            break;
                        }
                    }
                }
            }
            end(&ssh);
        })?;
    Ok(ours)
}

/// A `look` at task `number` of `host` on this machine's server, open
/// until the returned connection is closed; `None` (logged) when the
/// server cannot be reached: the view goes on, the task may be pushed.
fn look_at(paths: &TermicPaths, host: &str, number: u64) -> Option<UnixStream> {
    let look = crate::server::protocol::Request::Look {
        host: host.to_owned(),
        task: number,
    };
    let sent = open_local(paths).and_then(|mut c| {
        crate::server::protocol::write_frame(&mut c, &look)?;
        Ok(c)
    });
    match sent {
        Ok(c) => Some(c),
        Err(e) => {
            errln!("termic web: the server was not told the page looks at a task of {host}: {e}");
            None
        }
    }
}

/// The names a self-signed certificate is for: the listen address, this
/// machine's name, localhost, and each --allow-host's host.
fn cert_names(args: &WebArgs) -> Vec<String> {
    let mut names = vec!["localhost".to_string(), "127.0.0.1".to_string()];
    if !args.listen.ip().is_unspecified() {
        names.push(args.listen.ip().to_string());
    }
    if let Ok(host) = std::fs::read_to_string("/etc/hostname") {
        let host = host.trim();
        if !host.is_empty() {
            names.push(host.to_string());
        }
    }
    for h in &args.allow_host {
        let name = h.rsplit_once(':').map_or(h.as_str(), |(n, _)| n);
        names.push(name.trim_matches(['[', ']']).to_string());
    }
    names.sort();
    names.dedup();
    names
}

fn serve(paths: &TermicPaths, args: &WebArgs) -> Result<ExitCode> {
    termic_web::store::Store::new(web_dir(paths)).prepare()?;
    // Once at start, not at each lock of the directory (every request
    // takes one): a killed writer's temp files, a minute old or more.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    termic_web::store::sweep_stale_temps(&web_dir(paths), now);
    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => Some(termic_web::tls::load(cert, key)?),
        _ if args.tls => Some(termic_web::tls::self_signed(
            &web_dir(paths),
            &cert_names(args),
        )?),
        _ => None,
    };
    let scheme = if tls.is_some() { "https" } else { "http" };
    let opts = termic_web::Options {
        listen: args.listen,
        insecure_behind_proxy: args.insecure_behind_proxy,
        extra_hosts: args.allow_host.clone(),
        store_dir: web_dir(paths),
        max_connections: 64,
        tls: tls.as_ref().map(|t| t.config.clone()),
        push_key: Some(std::sync::Arc::new({
            let dir = web_dir(paths);
            move || vapid_public(&dir)
        })),
    };
    let log: termic_web::Log = std::sync::Arc::new(|line: &str| errln!("termic web: {line}"));
    let server = termic_web::Server::bind(
        opts,
        Box::new(Socket {
            paths: paths.clone(),
        }),
        log,
    )?;
    let addr = server.local_addr()?;
    let url = match args.allow_host.first() {
        Some(h) if args.insecure_behind_proxy || tls.is_some() => format!("https://{h}"),
        _ => format!("{scheme}://{addr}"),
    };
    termic_web::store::write_atomic(
        &web_dir(paths).join("server.json"),
        &Running {
            url: url.clone(),
            pid: std::process::id(),
        },
    )?;
    outln!("termic web: serving {scheme}://{addr}")?;
    if let Some(t) = &tls {
        outln!("Certificate SHA-256 fingerprint: {}", t.fingerprint)?;
        outln!("Check the browser shows the same before you pair.")?;
    }
    outln!("Pair a browser with `termic web pair` (in another terminal). Ctrl-C stops.")?;
    server.run()?;
    Ok(ExitCode::SUCCESS)
}

/// The VAPID public key of `<web dir>/vapid.json` (base64url, an
/// uncompressed P-256 point), the pair made first (O_EXCL, 0600) when the
/// file does not exist: the push sender's own code, so one function makes
/// and reads the file.
fn vapid_public(dir: &std::path::Path) -> Result<String> {
    let keys = termic_push::vapid::vapid_keys(dir)?;
    Ok(keys.public_b64())
}

fn pair(paths: &TermicPaths, read_only: bool, url: Option<String>) -> Result<ExitCode> {
    let running = std::fs::read_to_string(web_dir(paths).join("server.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<Running>(&t).ok())
        // SAFETY: kill with signal 0 only checks the process exists.
        .filter(|r| unsafe { libc::kill(r.pid as i32, 0) } == 0);
    let base = match (url, &running) {
        (Some(u), _) => u,
        (None, Some(r)) => r.url.clone(),
        (None, None) => {
            errln!("termic web is not running: start it with `termic web`, then open the link.");
            format!("http://127.0.0.1:{}", termic_web::DEFAULT_PORT)
        }
    };
    if !(base.starts_with("http://") || base.starts_with("https://")) {
        bail!("--url takes an http:// or https:// address");
    }
    let token = termic_web::store::new_secret()?;
    let store = termic_web::store::Store::new(web_dir(paths));
    store.add_pairing(&token, read_only, termic_web::now_ms())?;
    let link = format!("{}/pair#{token}", base.trim_end_matches('/'));
    let code = qrcode::QrCode::new(link.as_bytes()).context("cannot make the QR code")?;
    let qr = code
        .render::<qrcode::render::unicode::Dense1x2>()
        .dark_color(qrcode::render::unicode::Dense1x2::Light)
        .light_color(qrcode::render::unicode::Dense1x2::Dark)
        .quiet_zone(true)
        .build();
    outln!("{qr}")?;
    outln!(
        "Open this link in the browser to pair{} (it works once, for 10 minutes):",
        if read_only { " a read-only device" } else { "" }
    )?;
    outln!("{link}")?;
    Ok(ExitCode::SUCCESS)
}

fn age(ms: u64) -> String {
    let s = termic_web::now_ms().saturating_sub(ms) / 1000;
    match s {
        0..=59 => "just now".to_string(),
        60..=3599 => format!("{} min ago", s / 60),
        3600..=86399 => format!("{} h ago", s / 3600),
        _ => format!("{} days ago", s / 86400),
    }
}

fn devices(paths: &TermicPaths) -> Result<ExitCode> {
    let store = termic_web::store::Store::new(web_dir(paths));
    let list = store.devices()?;
    if list.is_empty() {
        outln!("No paired devices. Pair one with `termic web pair`.")?;
        return Ok(ExitCode::SUCCESS);
    }
    outln!("#  NAME  ACCESS  PAIRED  LAST SEEN")?;
    for d in list {
        outln!(
            "{}  {}  {}  {}  {}",
            d.number,
            d.name,
            if d.read_only { "read-only" } else { "full" },
            age(d.created),
            age(d.last_seen)
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

fn revoke(paths: &TermicPaths, which: &str) -> Result<ExitCode> {
    let store = termic_web::store::Store::new(web_dir(paths));
    match store.revoke(which)? {
        Some(d) => {
            outln!("Revoked device {} ({}).", d.number, d.name)?;
            Ok(ExitCode::SUCCESS)
        }
        None => bail!("no paired device is {which}: `termic web devices` lists them"),
    }
}
