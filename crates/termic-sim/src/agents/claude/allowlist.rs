//! What Claude Code lets through of a hook's `terminalSequence`.

use crate::osc::{BEL, ST};

/// Claude Code's check of a hook's `terminalSequence`, quoted from its
/// binary: "only OSC 0/1/2/9/99/777 and BEL are permitted, and OSC 9 bodies
/// may not begin with a digit unless in the 9;4 progress form". Returns the
/// bytes Claude writes (an ST terminator re-emitted as BEL, measured), or
/// `None` when the sequence is refused as a whole.
pub fn claude_allowlist(seq: &str) -> Option<String> {
    let mut out = String::new();
    let mut rest = seq;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix(BEL) {
            out.push_str(BEL);
            rest = r;
            continue;
        }
        let body_start = rest.strip_prefix("\x1b]")?;
        let (body, after) = match (body_start.find(BEL), body_start.find(ST)) {
            (Some(b), Some(s)) if s < b => (&body_start[..s], &body_start[s + ST.len()..]),
            (Some(b), _) => (&body_start[..b], &body_start[b + BEL.len()..]),
            (None, Some(s)) => (&body_start[..s], &body_start[s + ST.len()..]),
            (None, None) => return None,
        };
        if body.contains('\x1b') || !osc_allowed(body) {
            return None;
        }
        out.push_str("\x1b]");
        out.push_str(body);
        out.push_str(BEL);
        rest = after;
    }
    (!out.is_empty()).then_some(out)
}

fn osc_allowed(body: &str) -> bool {
    let (num, data) = body.split_once(';').unwrap_or((body, ""));
    match num {
        "0" | "1" | "2" | "99" | "777" => true,
        "9" => !data.starts_with(|c: char| c.is_ascii_digit()) || data.starts_with("4;"),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allowlist_passes_termic_wire_verbatim() {
        let seq = "\x1b]777;termic;v1;attention;abc-123;kind=permission\x07";
        assert_eq!(claude_allowlist(seq).as_deref(), Some(seq));
    }

    #[test]
    fn allowlist_reemits_st_as_bel() {
        assert_eq!(
            claude_allowlist("\x1b]777;notify;x;y\x1b\\").as_deref(),
            Some("\x1b]777;notify;x;y\x07")
        );
    }

    #[test]
    fn allowlist_numbers() {
        for ok in [
            "0;t",
            "1;t",
            "2;t",
            "9;hello",
            "9;4;1;50",
            "99;i=1;hi",
            "777;a",
        ] {
            assert!(
                claude_allowlist(&format!("\x1b]{ok}\x07")).is_some(),
                "{ok}"
            );
        }
        for bad in [
            "7;file:///",
            "8;;http://x",
            "52;c;aGk=",
            "9;1 done",
            "1337;x",
        ] {
            assert!(
                claude_allowlist(&format!("\x1b]{bad}\x07")).is_none(),
                "{bad}"
            );
        }
    }

    #[test]
    fn allowlist_refuses_anything_but_osc_and_bel() {
        assert_eq!(claude_allowlist("\x07").as_deref(), Some("\x07"));
        assert!(claude_allowlist("hello").is_none());
        assert!(claude_allowlist("\x1b[2J").is_none());
        assert!(claude_allowlist("\x1b]0;ok\x07\x1b[2J").is_none());
        assert!(claude_allowlist("\x1b]0;unterminated").is_none());
        assert!(claude_allowlist("").is_none());
    }
}
