//! One HTTP/1.1 request head, read with bounds, and responses that carry
//! the security headers every answer has.

use crate::Conn;
use std::io;

/// The largest request head taken.
pub const MAX_HEAD: usize = 16 * 1024;
/// The largest request body taken (a pairing POST is under 200 bytes).
pub const MAX_BODY: usize = 4 * 1024;

/// Sent with every response. The page's scripts are files of this server
/// only (no inline script, no eval); styles may be inline because
/// xterm.js writes `<style>` elements for its theme and cell sizes.
pub const SECURITY_HEADERS: &str =
    "Content-Security-Policy: default-src 'self'; script-src 'self'; \
style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; \
base-uri 'none'; form-action 'none'; frame-ancestors 'none'\r\n\
Referrer-Policy: no-referrer\r\n\
X-Content-Type-Options: nosniff\r\n\
X-Frame-Options: DENY\r\n\
Cross-Origin-Opener-Policy: same-origin\r\n\
Cross-Origin-Resource-Policy: same-origin\r\n";

/// A parsed request head.
#[derive(Debug)]
pub struct Request {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    /// Bytes read past the head (the start of a body).
    pub rest: Vec<u8>,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Reads the body announced by Content-Length, at most [`MAX_BODY`].
    pub fn body(&mut self, stream: &mut dyn Conn) -> io::Result<Vec<u8>> {
        let len: usize = self
            .header("content-length")
            .and_then(|v| v.trim().parse().ok())
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "no Content-Length"))?;
        if len > MAX_BODY {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "body too large"));
        }
        let mut body = std::mem::take(&mut self.rest);
        body.truncate(len);
        let mut chunk = [0u8; 1024];
        while body.len() < len {
            let n = stream.read(&mut chunk)?;
            if n == 0 {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
            body.extend_from_slice(&chunk[..n.min(len - body.len())]);
        }
        Ok(body)
    }
}

/// Reads a request head (the stream's read timeout bounds the wait).
/// `None`: the peer closed, sent too much or no HTTP.
pub fn read_request(stream: &mut dyn Conn) -> Option<Request> {
    let mut buf = Vec::with_capacity(2048);
    let mut chunk = [0u8; 2048];
    loop {
        let n = stream.read(&mut chunk).ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
        let mut headers = [httparse::EMPTY_HEADER; 64];
        let mut req = httparse::Request::new(&mut headers);
        match req.parse(&buf) {
            Ok(httparse::Status::Complete(len)) => {
                return Some(Request {
                    method: req.method?.to_string(),
                    path: req.path?.to_string(),
                    headers: req
                        .headers
                        .iter()
                        .map(|h| {
                            (
                                h.name.to_string(),
                                String::from_utf8_lossy(h.value).into_owned(),
                            )
                        })
                        .collect(),
                    rest: buf[len..].to_vec(),
                })
            }
            Ok(httparse::Status::Partial) if buf.len() < MAX_HEAD => continue,
            _ => return None,
        }
    }
}

/// Writes a whole response and ends the exchange (`Connection: close`).
pub fn respond(
    stream: &mut dyn Conn,
    status: &str,
    content_type: &str,
    extra_headers: &str,
    body: &[u8],
) -> io::Result<()> {
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\
Cache-Control: no-cache\r\nConnection: close\r\n{SECURITY_HEADERS}{extra_headers}\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes())?;
    stream.write_all(body)?;
    stream.flush()
}

/// A JSON error answer: `{"error": message}`.
pub fn error(stream: &mut dyn Conn, status: &str, message: &str) -> io::Result<()> {
    let body = serde_json::json!({ "error": message }).to_string();
    respond(stream, status, "application/json", "", body.as_bytes())
}
