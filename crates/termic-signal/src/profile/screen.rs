//! Screen rules: what the bottom of an agent's screen says about its turn,
//! as data (the region, a pattern, the state it implies, the version it was
//! measured on and why). An agent's rules live in its own profile file.
//!
//! A screen rule can only say "needs you" or "not done yet". There is no
//! variant for done: text on a screen is printable by any program in the
//! task (`cat` of a file holding "Do you want to proceed?"), so the most a
//! rule can do is ask the user to look, or keep a guessed done from being
//! shown while the agent's dialog is up. See docs/state-machine.md, "What
//! stops a false done".
//!
//! ```
//! use termic_signal::profile::{profile_for, ScreenRows};
//!
//! let rows = ScreenRows::new(["Do you want to create out.txt?", "❯ 1. Yes", "  2. No"]);
//! let found = profile_for("claude").screen_match(&rows).unwrap();
//! assert_eq!(found.id, "claude.permission-dialog");
//! assert!(profile_for("shell").screen_match(&rows).is_none());
//! ```

use std::fmt;

use regex::Regex;

/// Which rows of the visible screen a rule reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Region {
    /// The last `n` rows that are not blank (agents draw their dialogs at
    /// the bottom of what they painted; blank rows under it do not count).
    LastRows(usize),
}

impl Region {
    /// The rows of `screen` this region covers, joined with `\n`.
    pub fn text(self, screen: &ScreenRows) -> String {
        match self {
            Region::LastRows(_) => {
                let rows: Vec<&str> = self
                    .indices(screen)
                    .into_iter()
                    .map(|i| screen.rows[i].as_str())
                    .collect();
                rows.join("\n")
            }
        }
    }

    /// The indices in `screen.rows` of the rows this region covers, top
    /// to bottom.
    pub fn indices(self, screen: &ScreenRows) -> Vec<usize> {
        match self {
            Region::LastRows(n) => {
                let kept = (0..screen.rows.len()).rev();
                let mut rows: Vec<usize> = kept
                    .filter(|&i| !screen.rows[i].trim().is_empty())
                    .take(n)
                    .collect();
                rows.reverse();
                rows
            }
        }
    }

    fn rows(self) -> usize {
        match self {
            Region::LastRows(n) => n,
        }
    }
}

impl fmt::Display for Region {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Region::LastRows(n) => write!(f, "last {n} non-blank rows"),
        }
    }
}

/// What a matching screen rule means. Never "done": see the module docs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScreenImplies {
    /// The agent shows a dialog that waits for the user (`kind` as a hook
    /// would say it: `permission`, `question`, `plan`).
    NeedsYou { kind: &'static str },
    /// The agent shows that it is still working: a guessed done waits.
    NotDone,
    /// The agent shows that work it started still runs after its answer (a
    /// background shell): a guessed done waits, and so do the fallbacks that
    /// read silence as a question (byte-quiet, settled screen, scrollback);
    /// the absolute ceiling still asks after 10 minutes without a busy sign.
    StillWorking,
    /// The agent shows that it gave up on an API error (its own error line
    /// right above its own empty prompt). It moves nothing by itself: only
    /// when a guessing rule ends the turn is that end an error (the reason
    /// read from the matched text by the profile's error texts) instead of
    /// a done. See rules/screen_rules.rs.
    Stopped,
}

impl ScreenImplies {
    pub fn as_str(self) -> &'static str {
        match self {
            ScreenImplies::NeedsYou { .. } => "needs you",
            ScreenImplies::NotDone => "not done",
            ScreenImplies::StillWorking => "still working in the background",
            ScreenImplies::Stopped => "stopped on an API error",
        }
    }
}

/// One screen rule. When `pattern` matches the text of `region`, the screen
/// means `implies`.
#[derive(Debug)]
pub struct ScreenRule {
    /// Stable id shown in the Inspector, `<agent>.<name>`.
    pub id: &'static str,
    pub region: Region,
    /// A `regex` crate pattern over the region's rows joined with `\n`
    /// (linear time whatever the screen holds).
    pub pattern: &'static str,
    pub implies: ScreenImplies,
    /// The agent version the screen text was measured on.
    pub measured_on: &'static str,
    pub why: &'static str,
}

/// The visible screen as text rows, top to bottom, each trimmed at the end.
/// The runtime sends the bottom rows only (see
/// [`crate::profile::AgentProfile::screen_rows_wanted`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct ScreenRows {
    pub rows: Vec<String>,
    /// Each row's background colours when the screen was read with them
    /// (the answer path only: a dialog that marks its selected option by
    /// colour alone, opencode's): runs of (first char of the run, colour
    /// key), in order, one list per row; empty when read as text only.
    /// Colour keys are opaque: equal keys are equal colours.
    pub backgrounds: Vec<Vec<(u16, u32)>>,
}

/// The most rows a [`ScreenRows`] carries: bounds what is matched and
/// recorded whatever a profile asks for.
pub const SCREEN_ROWS_MAX: usize = 40;

/// The most chars kept of one row.
pub const SCREEN_ROW_MAX_CHARS: usize = 500;

impl ScreenRows {
    /// Rows as given, trailing blanks trimmed and each row capped.
    pub fn new<S: AsRef<str>>(rows: impl IntoIterator<Item = S>) -> ScreenRows {
        let mut rows: Vec<String> = rows
            .into_iter()
            .map(|r| {
                let r = r.as_ref().trim_end();
                r.chars().take(SCREEN_ROW_MAX_CHARS).collect()
            })
            .collect();
        let from = rows.len().saturating_sub(SCREEN_ROWS_MAX);
        rows.drain(..from);
        ScreenRows {
            rows,
            backgrounds: Vec::new(),
        }
    }

    /// As [`ScreenRows::bottom`], each row given with its background runs
    /// (see [`ScreenRows::backgrounds`]).
    pub fn bottom_shaded(rows: Vec<(String, Vec<(u16, u32)>)>, n: usize) -> ScreenRows {
        let n = n.min(SCREEN_ROWS_MAX);
        let mut kept: Vec<(String, Vec<(u16, u32)>)> = rows
            .into_iter()
            .rev()
            .filter(|(r, _)| !r.trim().is_empty())
            .take(n)
            .collect();
        kept.reverse();
        let (texts, backgrounds): (Vec<String>, Vec<_>) = kept.into_iter().unzip();
        ScreenRows {
            backgrounds,
            ..ScreenRows::new(texts)
        }
    }

    /// The background colour key of char `ch` of row `row`, when the
    /// screen was read with colours.
    pub fn background(&self, row: usize, ch: usize) -> Option<u32> {
        self.backgrounds
            .get(row)?
            .iter()
            .take_while(|(start, _)| usize::from(*start) <= ch)
            .last()
            .map(|(_, key)| *key)
    }

    /// The last `n` non-blank rows of a screen given top to bottom: what a
    /// profile whose regions are at most `n` rows needs to see.
    pub fn bottom<S: AsRef<str>>(rows: &[S], n: usize) -> ScreenRows {
        let n = n.min(SCREEN_ROWS_MAX);
        let kept: Vec<&str> = rows
            .iter()
            .map(AsRef::as_ref)
            .rev()
            .filter(|r| !r.trim().is_empty())
            .take(n)
            .collect();
        ScreenRows::new(kept.into_iter().rev())
    }

    /// One string, rows split by `\n` (the recording's form).
    pub fn joined(&self) -> String {
        self.rows.join("\n")
    }

    /// The inverse of [`ScreenRows::joined`].
    pub fn from_joined(text: &str) -> ScreenRows {
        ScreenRows::new(text.split('\n'))
    }
}

/// Every screen rule evaluated against one screen, and the verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScreenExplanation {
    pub agent: &'static str,
    /// The first rule that matched.
    pub decided_by: Option<&'static ScreenRule>,
    /// Every rule in evaluation order, with whether it matched.
    pub checks: Vec<(&'static ScreenRule, bool)>,
}

impl PartialEq for ScreenRule {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

impl Eq for ScreenRule {}

impl fmt::Display for ScreenExplanation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.decided_by {
            Some(rule) => writeln!(
                f,
                "{} screen: {} ({}, measured on {})",
                self.agent,
                rule.implies.as_str(),
                rule.id,
                rule.measured_on
            )?,
            None => writeln!(f, "{} screen: no rule matched", self.agent)?,
        }
        if self.checks.is_empty() {
            writeln!(f, "  {} has no screen rules", self.agent)?;
        }
        for (rule, matched) in &self.checks {
            let verdict = if *matched { "match" } else { "no match" };
            writeln!(
                f,
                "  {:<8} {} ({}, {}): {:?}; {}",
                verdict,
                rule.id,
                rule.implies.as_str(),
                rule.region,
                rule.pattern,
                rule.why
            )?;
        }
        Ok(())
    }
}

/// The compiled patterns of one profile's rules, in rule order.
pub(super) fn compile(rules: &[ScreenRule]) -> Vec<Regex> {
    rules
        .iter()
        .map(|r| Regex::new(r.pattern).expect("screen rule patterns are tested to compile"))
        .collect()
}

/// The text `rule` (compiled as `re`) matched on `screen`, if it does.
pub(super) fn matched_text(rule: &ScreenRule, re: &Regex, screen: &ScreenRows) -> Option<String> {
    re.find(&rule.region.text(screen))
        .map(|m| m.as_str().to_string())
}

/// The most rows any of `rules` reads.
pub(super) fn rows_wanted(rules: &[ScreenRule]) -> usize {
    rules
        .iter()
        .map(|r| r.region.rows())
        .max()
        .unwrap_or(0)
        .min(SCREEN_ROWS_MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_rows_skip_blank_rows_and_keep_order() {
        let screen = ScreenRows::new(["a", "", "b", "   ", "c", ""]);
        assert_eq!(Region::LastRows(2).text(&screen), "b\nc");
        assert_eq!(Region::LastRows(9).text(&screen), "a\nb\nc");
        let bottom = ScreenRows::bottom(&["x", "y", " ", "z", ""], 2);
        assert_eq!(bottom.rows, ["y", "z"]);
    }

    #[test]
    fn rows_are_bounded_whatever_the_screen_holds() {
        let wide = "w".repeat(10 * SCREEN_ROW_MAX_CHARS);
        let tall: Vec<String> = (0..1000).map(|_| wide.clone()).collect();
        let rows = ScreenRows::bottom(&tall, 10_000);
        assert_eq!(rows.rows.len(), SCREEN_ROWS_MAX);
        assert!(rows
            .rows
            .iter()
            .all(|r| r.chars().count() == SCREEN_ROW_MAX_CHARS));
        assert_eq!(ScreenRows::from_joined(&rows.joined()), rows);
    }

    #[test]
    fn the_explanation_names_every_rule_and_the_version() {
        let claude = crate::profile::profile_for("claude");
        let screen = ScreenRows::new(["Enter to select · ↑/↓ to navigate · Esc to cancel"]);
        let text = claude.explain_screen(&screen).to_string();
        assert!(text.starts_with("claude screen: needs you (claude.question-dialog, measured on Claude Code 2.1.332)"), "{text}");
        for rule in claude.screen_rules {
            assert!(text.contains(rule.id), "{text}");
        }
        let none = crate::profile::profile_for("command").explain_screen(&screen);
        assert!(none.to_string().contains("command has no screen rules"));
    }
}
