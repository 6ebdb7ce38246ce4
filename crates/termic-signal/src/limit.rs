//! When an agent's usage limit resets: the time a "rate limited until
//! 15:00" badge names. Pure: it reads only the text an agent's own channel
//! carried (a hook field, a native status message) and never a clock.

use std::fmt;

/// A reset time of day on the user's clock, as the agent said it
/// ("resets 3pm", "resets at 15:00"). No date: a limit resets within a day.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ResetAt {
    hour: u8,
    minute: u8,
}

impl ResetAt {
    /// `None` unless 0 <= hour < 24 and 0 <= minute < 60.
    pub fn new(hour: u8, minute: u8) -> Option<ResetAt> {
        (hour < 24 && minute < 60).then_some(ResetAt { hour, minute })
    }

    pub fn hour(self) -> u8 {
        self.hour
    }

    pub fn minute(self) -> u8 {
        self.minute
    }

    /// Minutes since midnight.
    pub fn minute_of_day(self) -> u32 {
        u32::from(self.hour) * 60 + u32::from(self.minute)
    }

    /// The wire form, `HH:MM` (24 hours): the hook field `until` and the
    /// client protocol's `until`.
    pub fn as_wire(self) -> String {
        self.to_string()
    }

    /// `HH:MM` (24 hours, one or two hour digits) back to a time.
    pub fn from_wire(s: &str) -> Option<ResetAt> {
        let (h, m) = s.split_once(':')?;
        if h.is_empty() || h.len() > 2 || m.len() != 2 {
            return None;
        }
        if !h.bytes().chain(m.bytes()).all(|b| b.is_ascii_digit()) {
            return None;
        }
        ResetAt::new(h.parse().ok()?, m.parse().ok()?)
    }
}

impl fmt::Display for ResetAt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:02}:{:02}", self.hour, self.minute)
    }
}

/// The words after which an agent's limit message names its reset time
/// (Claude Code: "5-hour limit reached · resets 3pm"; others: "try again
/// at 15:00"), lowercase.
const LEADS: [&str; 4] = ["resets at ", "resets ", "reset at ", "try again at "];

/// The reset time a limit message names, if it names one in a form above:
/// `3pm`, `3 pm`, `3:30pm`, `15:00`. A bare number with no `am`/`pm` and no
/// minutes is not a time ("resets in 5 hours" names none).
pub fn reset_in_text(text: &str) -> Option<ResetAt> {
    let lower = text.to_ascii_lowercase();
    LEADS.iter().find_map(|lead| {
        lower
            .match_indices(lead)
            .find_map(|(at, _)| clock_time(&lower[at + lead.len()..]))
    })
}

/// A clock time at the start of `s`.
fn clock_time(s: &str) -> Option<ResetAt> {
    let digits = |s: &str| s.bytes().take_while(u8::is_ascii_digit).count();
    let h_len = digits(s);
    if h_len == 0 || h_len > 2 {
        return None;
    }
    let hour: u8 = s[..h_len].parse().ok()?;
    let mut rest = &s[h_len..];
    let mut minute = None;
    if let Some(after) = rest.strip_prefix(':') {
        if digits(after) != 2 {
            return None;
        }
        minute = Some(after[..2].parse::<u8>().ok()?);
        rest = &after[2..];
    }
    let rest = rest.trim_start_matches(' ');
    let meridiem = if rest.starts_with("am") || rest.starts_with("a.m.") {
        Some(false)
    } else if rest.starts_with("pm") || rest.starts_with("p.m.") {
        Some(true)
    } else {
        None
    };
    match meridiem {
        Some(pm) => {
            if !(1..=12).contains(&hour) {
                return None;
            }
            let hour = match (hour, pm) {
                (12, false) => 0,
                (12, true) => 12,
                (h, true) => h + 12,
                (h, false) => h,
            };
            ResetAt::new(hour, minute.unwrap_or(0))
        }
        None => ResetAt::new(hour, minute?),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(h: u8, m: u8) -> Option<ResetAt> {
        ResetAt::new(h, m)
    }

    #[test]
    fn limit_messages_name_their_reset_time() {
        let cases = [
            ("5-hour limit reached \u{2219} resets 3pm", at(15, 0)),
            (
                "You've hit your limit \u{00b7} resets 3:30pm (Europe/Paris)",
                at(15, 30),
            ),
            ("Usage limit reached. Resets at 15:00.", at(15, 0)),
            ("limit reached, resets 12am", at(0, 0)),
            ("limit reached, resets 12 PM", at(12, 0)),
            ("Rate limited. Try again at 9:05 am", at(9, 5)),
            ("resets in 5 hours", None),
            ("resets 15", None),
            ("resets 13pm", None),
            ("resets 25:00", None),
            ("API Error: Request rejected (429)", None),
            ("", None),
        ];
        for (text, want) in cases {
            assert_eq!(reset_in_text(text), want, "{text}");
        }
    }

    #[test]
    fn the_wire_form_round_trips_and_refuses_what_is_not_a_time() {
        for (h, m) in [(0, 0), (9, 5), (15, 0), (23, 59)] {
            let t = ResetAt::new(h, m).unwrap();
            assert_eq!(ResetAt::from_wire(&t.as_wire()), Some(t));
        }
        assert_eq!(ResetAt::new(15, 0).unwrap().to_string(), "15:00");
        assert_eq!(ResetAt::from_wire("9:05"), ResetAt::new(9, 5));
        for bad in [
            "", "15", "15:0", "24:00", "12:60", "1a:00", "+1:00", "123:00",
        ] {
            assert_eq!(ResetAt::from_wire(bad), None, "{bad}");
        }
    }
}
