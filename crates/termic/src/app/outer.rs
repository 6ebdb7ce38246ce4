//! The workspace's state reported to the attached client's outer terminal
//! (`crate::outer`): the client says whether its terminal answered the
//! OSC 7501 probe, and from then on each change of the summary goes out
//! between frames, rate-limited, with a reset when the app ends.

use anyhow::Result;

use super::terminal::TerminalGuard;
use super::App;
use crate::outer::{mode, summarize, Fallback, Reporter, Summary};
use crate::server::protocol::input::Outer;

/// What the server knows of a client's outer terminal before it hears
/// from the client.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OuterSetup {
    /// `[notifications] outer_fallback`.
    pub fallback: Fallback,
    /// The client runs inside tmux (its env has `TMUX`): reports go
    /// through tmux's passthrough.
    pub tmux: bool,
}

impl App {
    /// The client's word on its outer terminal: report to it from now on
    /// (again, when a late answer to the probe changes the mode: the old
    /// mode's report is reset first).
    pub fn on_outer(&mut self, outer: Outer) {
        let mode = mode(self.outer_setup.fallback, outer.osc7501);
        if self.outer.as_ref().is_some_and(|r| r.mode() == mode) {
            return;
        }
        if let Some(old) = self.outer.take() {
            self.outer_out.extend(old.reset());
        }
        self.outer = Some(Reporter::new(mode, self.outer_setup.tmux));
    }

    /// The workspace's summary now (sidebar order).
    pub fn summary(&self) -> Summary {
        let entries = &self.tasks.entries;
        summarize(
            self.tasks
                .order()
                .into_iter()
                .map(|i| (entries[i].name.as_str(), &entries[i].badge)),
        )
    }

    /// Writes what the outer terminal is to hear at `now`; returns when to
    /// ask again for a change held back by the rate limit.
    pub fn report_outer(&mut self, guard: &mut TerminalGuard, now: u64) -> Result<Option<u64>> {
        if self.outer.is_none() {
            return Ok(None);
        }
        let summary = self.summary();
        let Some(reporter) = self.outer.as_mut() else {
            return Ok(None);
        };
        let mut bytes = std::mem::take(&mut self.outer_out);
        bytes.extend(reporter.update(&summary, now));
        if !bytes.is_empty() {
            guard.write_raw(&bytes)?;
        }
        Ok(reporter.next_at(&summary, now))
    }

    /// The bytes that leave the outer tab clean, for when this app ends.
    pub fn outer_reset(&mut self) -> Vec<u8> {
        let mut bytes = std::mem::take(&mut self.outer_out);
        if let Some(reporter) = self.outer.take() {
            bytes.extend(reporter.reset());
        }
        bytes
    }
}
