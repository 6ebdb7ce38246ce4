//! The grammar of every reply termic writes into a task's input
//! (docs/protocol.md, "Replies termic sends"), written independently of the
//! reply builder so a test can hold the builder to it.

#![allow(dead_code)]

/// Split `bytes` (replies back to back, as a program reads them) into
/// replies and check each; the first error names the offending bytes.
pub fn check_all(bytes: &[u8]) -> Result<Vec<&[u8]>, String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let len = sequence_len(&bytes[i..])
            .ok_or_else(|| format!("not a reply at byte {i}: {:?}", &bytes[i..]))?;
        let reply = &bytes[i..i + len];
        check(reply)?;
        out.push(reply);
        i += len;
    }
    Ok(out)
}

/// The length of the escape sequence at the start of `b`.
fn sequence_len(b: &[u8]) -> Option<usize> {
    if b.first() != Some(&0x1b) {
        return None;
    }
    match b.get(1)? {
        b'[' => b[2..]
            .iter()
            .position(|c| (0x40..=0x7e).contains(c))
            .map(|p| p + 3),
        b']' => (2..b.len()).find_map(|j| match b[j] {
            0x07 => Some(j + 1),
            0x1b if b.get(j + 1) == Some(&b'\\') => Some(j + 2),
            _ => None,
        }),
        b'P' => (2..b.len())
            .find(|&j| b[j] == 0x1b && b.get(j + 1) == Some(&b'\\'))
            .map(|j| j + 2),
        _ => None,
    }
}

fn digits(s: &[u8]) -> bool {
    !s.is_empty() && s.len() <= 5 && s.iter().all(u8::is_ascii_digit)
}

fn hex4(s: &[u8]) -> bool {
    s.len() == 4 && s.iter().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f'))
}

/// `rgb:hhhh/hhhh/hhhh`.
fn x11_colour(s: &[u8]) -> bool {
    let Some(rest) = s.strip_prefix(b"rgb:") else {
        return false;
    };
    let parts: Vec<&[u8]> = rest.split(|&c| c == b'/').collect();
    parts.len() == 3 && parts.iter().all(|p| hex4(p))
}

/// `n;m` with both decimal.
fn pair(s: &[u8]) -> bool {
    let parts: Vec<&[u8]> = s.split(|&c| c == b';').collect();
    parts.len() == 2 && parts.iter().all(|p| digits(p))
}

/// One reply: Ok(kind) when it matches one documented form exactly.
pub fn check(r: &[u8]) -> Result<&'static str, String> {
    let bad = || Err(format!("reply outside every documented grammar: {r:?}"));
    if let Some(csi) = r.strip_prefix(b"\x1b[") {
        let (body, fin) = csi.split_at(csi.len() - 1);
        return match (fin[0], body) {
            (b'c', b"?62;22") => Ok("DA1"),
            (b'c', b">0;100;0") => Ok("DA2"),
            (b'n', b"0") => Ok("DSR status"),
            (b'R', _) if pair(body.strip_prefix(b"?").unwrap_or(body)) => Ok("cursor position"),
            (b'y', _) => {
                let body = body.strip_prefix(b"?").unwrap_or(body);
                match body.strip_suffix(b"$") {
                    Some(p) if pair(p) && matches!(p.last(), Some(b'0'..=b'4')) => Ok("DECRPM"),
                    _ => bad(),
                }
            }
            _ => bad(),
        };
    }
    if let Some(osc) = r.strip_prefix(b"\x1b]") {
        let (body, st) = match osc.strip_suffix(b"\x07") {
            Some(body) => (body, false),
            None => (osc.strip_suffix(b"\x1b\\").ok_or("unterminated OSC")?, true),
        };
        let parts: Vec<&[u8]> = body.split(|&c| c == b';').collect();
        return match parts.as_slice() {
            [b"10" | b"11" | b"12", colour] if x11_colour(colour) => Ok("dynamic colour"),
            [b"4", index, colour]
                if digits(index)
                    && std::str::from_utf8(index).unwrap().parse::<u16>().unwrap() < 256
                    && x11_colour(colour) =>
            {
                Ok("palette colour")
            }
            [b"7501", b"?"] if st => Ok("native status probe"),
            _ => bad(),
        };
    }
    if let Some(dcs) = r.strip_prefix(b"\x1bP") {
        let body = dcs.strip_suffix(b"\x1b\\").ok_or("unterminated DCS")?;
        if body == b"0+r" {
            return Ok("XTGETTCAP not valid");
        }
        if let Some(v) = body
            .strip_prefix(b">|termic(")
            .and_then(|v| v.strip_suffix(b")"))
        {
            if v.iter()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'+' | b'-'))
            {
                return Ok("XTVERSION");
            }
        }
        return bad();
    }
    bad()
}
