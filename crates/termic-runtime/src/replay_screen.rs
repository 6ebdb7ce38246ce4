//! The live task's screen model, for `termic replay`: a recording with no
//! screen facts of its own (asciinema's, with no termic markers) is replayed
//! through the same vt100 screen, scrollback and facts as a live task's
//! screen thread computes (signals.rs), so the profile's screen rules act in
//! a replay as they do live (issue 35 item 5).

use std::num::NonZeroU16;

use termic_signal::engine::ScreenFacts;
use termic_signal::profile::ScreenRows;
use termic_signal::replay::ScreenModel;

use crate::history::{self, History};
use crate::signals::{screen_facts, screen_rows};
use crate::types::DEFAULT_SCROLLBACK;

/// A screen of the recording's size, fed its output.
pub struct ReplayScreen {
    parser: vt100::Parser<History>,
}

fn nonzero(v: u16) -> NonZeroU16 {
    NonZeroU16::new(v).unwrap_or(NonZeroU16::MIN)
}

impl ReplayScreen {
    /// A blank screen of `cols` x `rows` (a header without a size: 80x24).
    pub fn new(cols: u16, rows: u16) -> Self {
        let (cols, rows) = if cols == 0 || rows == 0 {
            (80, 24)
        } else {
            (cols, rows)
        };
        ReplayScreen {
            parser: History::new(DEFAULT_SCROLLBACK)
                .into_screen_model(nonzero(rows), nonzero(cols)),
        }
    }
}

impl ScreenModel for ReplayScreen {
    fn output(&mut self, bytes: &[u8]) {
        // As live (screen.rs `apply_guarded`): output the model panics on
        // starts the screen over, the replay goes on.
        let _ = crate::screen::apply_guarded(&mut self.parser, |p| p.process(bytes));
    }

    fn resize(&mut self, cols: u16, rows: u16) {
        history::resize(&mut self.parser, nonzero(rows), nonzero(cols));
    }

    fn facts(&mut self, rows_wanted: usize) -> (ScreenFacts, Option<ScreenRows>) {
        (
            screen_facts(&self.parser),
            screen_rows(&self.parser, rows_wanted),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_screen_rows_are_what_the_output_painted() {
        let mut s = ReplayScreen::new(40, 5);
        s.output(b"one\r\ntwo\r\n\x1b[2J\x1b[Hthree");
        let (facts, rows) = s.facts(2);
        assert_eq!(rows.unwrap().joined(), "three");
        s.output(b"\r\nfour");
        let (after, _) = s.facts(0);
        assert_ne!(facts.hash, after.hash, "the screen changed");
        assert_eq!(s.facts(0).1, None, "no rows wanted, none read");
    }
}
