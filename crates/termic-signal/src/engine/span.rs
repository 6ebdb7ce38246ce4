//! How the engine writes a length of time in reasons and the Inspector log:
//! seconds like the log's own time column ("0.3s", "5s", "1.515s"), and
//! minutes past one ("1m30s", "10m"), so no line mixes raw milliseconds with
//! seconds.

use std::fmt;

/// A length of time in milliseconds, displayed for people.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Span(pub u64);

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let minutes = self.0 / 60_000;
        let ms = self.0 % 60_000;
        if minutes > 0 {
            write!(f, "{minutes}m")?;
            if ms == 0 {
                return Ok(());
            }
        }
        write!(f, "{}", ms / 1000)?;
        let frac = ms % 1000;
        if frac > 0 {
            // Milliseconds as a decimal fraction with trailing zeros trimmed.
            let digits = format!("{frac:03}");
            write!(f, ".{}", digits.trim_end_matches('0'))?;
        }
        f.write_str("s")
    }
}

#[cfg(test)]
mod tests {
    use super::Span;

    #[test]
    fn spans_read_as_seconds_then_minutes() {
        for (ms, text) in [
            (0, "0s"),
            (20, "0.02s"),
            (300, "0.3s"),
            (1515, "1.515s"),
            (5000, "5s"),
            (12_000, "12s"),
            (59_999, "59.999s"),
            (60_000, "1m"),
            (90_000, "1m30s"),
            (600_000, "10m"),
            (601_300, "10m1.3s"),
        ] {
            assert_eq!(Span(ms).to_string(), text, "{ms} ms");
        }
    }
}
