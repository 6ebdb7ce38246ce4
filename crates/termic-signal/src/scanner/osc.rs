//! One complete OSC (as vte split it on `;`) to at most one [`Signal`].
//!
//! vte hands over at most 16 parameters and drops what follows the 16th `;`,
//! so a title or body with more than 15 `;` in it arrives cut at that point.

use super::kitty::KittyAssembler;
use super::native;
use super::shell;
use crate::signal::{NotifySource, Signal};
use crate::wire;

/// Route one OSC by its number.
pub(super) fn dispatch(params: &[&[u8]], kitty: &mut KittyAssembler) -> Option<Signal> {
    let (&number, rest) = params.split_first()?;
    match number {
        b"0" | b"2" => title(rest),
        b"9" => osc9(rest),
        b"777" => osc777(params),
        b"99" => osc99(rest, kitty),
        b"7501" => native::parse(rest),
        b"133" => shell::parse(rest),
        // OSC 1 (icon name), colours, palette, hyperlinks, clipboard...: not signals.
        _ => None,
    }
}

/// Rejoin parameters vte split on `;`.
pub(super) fn join_bytes(parts: &[&[u8]]) -> Vec<u8> {
    let len = parts.iter().map(|p| p.len() + 1).sum::<usize>();
    let mut bytes = Vec::with_capacity(len);
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            bytes.push(b';');
        }
        bytes.extend_from_slice(part);
    }
    bytes
}

/// Rejoin parameters vte split on `;`, as lossy UTF-8.
pub(super) fn join(parts: &[&[u8]]) -> String {
    lossy(join_bytes(parts))
}

/// Bytes to a `String`, invalid UTF-8 replaced (no copy when it is valid).
pub(super) fn lossy(bytes: Vec<u8>) -> String {
    match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

/// OSC 0 / OSC 2: the window title, `;` inside it kept.
fn title(rest: &[&[u8]]) -> Option<Signal> {
    if rest.is_empty() {
        return None;
    }
    Some(Signal::Title(join(rest)))
}

/// OSC 9: `9;4;state;value` is progress; a body starting with a number is a
/// ConEmu command (`9;9;cwd`, `9;1;ms`...); anything else is a notification.
/// Claude Code's allowlist draws the same line.
fn osc9(rest: &[&[u8]]) -> Option<Signal> {
    let first = rest.first()?;
    if *first == b"4" {
        return progress(&rest[1..]);
    }
    if !first.is_empty() && first.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let body = join(rest);
    if body.is_empty() {
        return None;
    }
    Some(Signal::Notify {
        source: NotifySource::Osc9,
        body,
    })
}

/// `9;4;state;value`. A missing state is 0 (remove), as ConEmu defines it; a
/// value outside 0..=100 or not a number is reported as absent.
fn progress(rest: &[&[u8]]) -> Option<Signal> {
    let state = match rest.first() {
        None | Some(&b"") => 0,
        Some(s) => parse_u8(s)?,
    };
    let value = rest.get(1).and_then(|v| parse_u8(v)).filter(|v| *v <= 100);
    Some(Signal::Progress { state, value })
}

pub(super) fn parse_u8(bytes: &[u8]) -> Option<u8> {
    std::str::from_utf8(bytes).ok()?.parse().ok()
}

/// OSC 777: `777;notify;title;body` or a termic hook message. `params` still
/// starts with `777` so a rejected message can be shown as it arrived.
fn osc777(params: &[&[u8]]) -> Option<Signal> {
    let rest = &params[1..];
    match rest.first().copied() {
        Some(b"notify") => {
            // The body is everything after the title, `;` kept. A notify with
            // a title only still asks for attention: report the title then.
            let title = rest.get(1).copied().unwrap_or_default();
            let body = rest.get(2..).map(join).unwrap_or_default();
            let body = if body.is_empty() {
                join(&[title])
            } else {
                body
            };
            (!body.is_empty()).then_some(Signal::Notify {
                source: NotifySource::Osc777,
                body,
            })
        }
        Some(_) => match wire::parse_params(rest)? {
            Ok(message) => Some(Signal::Hook(message)),
            Err(error) => Some(Signal::HookRejected {
                raw: join(params),
                error,
            }),
        },
        None => None,
    }
}

/// OSC 99 (kitty): `99;metadata;payload`, possibly chunked and base64.
fn osc99(rest: &[&[u8]], kitty: &mut KittyAssembler) -> Option<Signal> {
    let (metadata, payload) = rest.split_first()?;
    let body = kitty.chunk(metadata, payload)?;
    Some(Signal::Notify {
        source: NotifySource::Osc99,
        body,
    })
}
