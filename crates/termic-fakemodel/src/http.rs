//! Just enough HTTP/1.1 for agent CLIs talking to a local model server:
//! read one request (Content-Length or chunked body), write one streamed
//! response, then close the connection.

use std::io::{self, BufRead, Write};

/// One parsed HTTP request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub method: String,
    /// The request target, query included (`/v1/messages?beta=true`).
    pub target: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    /// The target without its query string.
    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or("")
    }

    /// The first header with this name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Bodies larger than this are refused: agents send at most a few hundred KB.
const MAX_BODY: usize = 64 * 1024 * 1024;

fn invalid(msg: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg.into())
}

fn read_line(reader: &mut impl BufRead) -> io::Result<Option<String>> {
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    Ok(Some(line.trim_end_matches(['\r', '\n']).to_string()))
}

/// Reads one request. `Ok(None)` when the peer closed before sending one.
pub fn read_request(reader: &mut impl BufRead) -> io::Result<Option<Request>> {
    let Some(request_line) = read_line(reader)? else {
        return Ok(None);
    };
    let mut parts = request_line.split_whitespace();
    let (Some(method), Some(target)) = (parts.next(), parts.next()) else {
        return Err(invalid(format!("bad request line {request_line:?}")));
    };
    let mut headers = Vec::new();
    loop {
        let line = read_line(reader)?.ok_or_else(|| invalid("connection closed in headers"))?;
        if line.is_empty() {
            break;
        }
        let (name, value) = line
            .split_once(':')
            .ok_or_else(|| invalid(format!("bad header line {line:?}")))?;
        headers.push((name.trim().to_string(), value.trim().to_string()));
    }
    let mut request = Request {
        method: method.to_string(),
        target: target.to_string(),
        headers,
        body: Vec::new(),
    };
    let chunked = request
        .header("transfer-encoding")
        .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
    if chunked {
        request.body = read_chunked(reader)?;
    } else if let Some(len) = request.header("content-length") {
        let len: usize = len
            .parse()
            .map_err(|_| invalid(format!("bad content-length {len:?}")))?;
        if len > MAX_BODY {
            return Err(invalid(format!("body of {len} bytes is too large")));
        }
        request.body = vec![0; len];
        reader.read_exact(&mut request.body)?;
    }
    Ok(Some(request))
}

fn read_chunked(reader: &mut impl BufRead) -> io::Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let line = read_line(reader)?.ok_or_else(|| invalid("connection closed in chunk"))?;
        let size_text = line.split(';').next().unwrap_or("").trim();
        let size = usize::from_str_radix(size_text, 16)
            .map_err(|_| invalid(format!("bad chunk size {line:?}")))?;
        if size == 0 {
            // Trailers end with an empty line.
            while read_line(reader)?.is_some_and(|l| !l.is_empty()) {}
            return Ok(body);
        }
        if body.len() + size > MAX_BODY {
            return Err(invalid("chunked body is too large"));
        }
        let start = body.len();
        body.resize(start + size, 0);
        reader.read_exact(&mut body[start..])?;
        read_line(reader)?;
    }
}

/// Writes a status line and headers for a body delimited by closing the
/// connection (what a streamed SSE answer needs).
pub fn write_head(out: &mut impl Write, status: u16, content_type: &str) -> io::Result<()> {
    write_head_with(out, status, content_type, &[])
}

/// [`write_head`] with extra headers (`retry-after`, ...).
pub fn write_head_with(
    out: &mut impl Write,
    status: u16,
    content_type: &str,
    extra: &[(&str, String)],
) -> io::Result<()> {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        529 => "Overloaded",
        _ => "Error",
    };
    write!(
        out,
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\n\
         Cache-Control: no-cache\r\nConnection: close\r\n"
    )?;
    for (name, value) in extra {
        write!(out, "{name}: {value}\r\n")?;
    }
    write!(out, "\r\n")?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(raw: &str) -> Request {
        read_request(&mut raw.as_bytes()).unwrap().unwrap()
    }

    #[test]
    fn reads_a_content_length_body_and_splits_the_query() {
        let req = parse(
            "POST /v1/messages?beta=true HTTP/1.1\r\nHost: x\r\nContent-Length: 7\r\n\r\n{\"a\":1}",
        );
        assert_eq!(req.method, "POST");
        assert_eq!(req.path(), "/v1/messages");
        assert_eq!(req.header("HOST"), Some("x"));
        assert_eq!(req.body, b"{\"a\":1}");
    }

    #[test]
    fn reads_a_chunked_body() {
        let req = parse(
            "POST /v1/responses HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{\"a\r\n4;x=y\r\n\":1}\r\n0\r\n\r\n",
        );
        assert_eq!(req.body, b"{\"a\":1}");
    }

    #[test]
    fn a_closed_connection_is_no_request() {
        assert!(read_request(&mut "".as_bytes()).unwrap().is_none());
    }

    #[test]
    fn a_truncated_header_block_is_an_error() {
        assert!(read_request(&mut "GET / HTTP/1.1\r\nHost: x\r\n".as_bytes()).is_err());
    }

    #[test]
    fn the_head_closes_the_connection() {
        let mut out = Vec::new();
        write_head(&mut out, 200, "text/event-stream").unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("HTTP/1.1 200 OK\r\n"));
        assert!(text.contains("Connection: close\r\n"));
        assert!(text.ends_with("\r\n\r\n"));
    }
}
