//! Why a profile read a title or a notification the way it did: every rule
//! evaluated, in order, with its result. The Signal Inspector shows these.

use std::fmt;

use super::TitleState;

/// One rule evaluated against one input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleCheck {
    pub rule_id: &'static str,
    /// The pattern (title rules) or the text looked for (notify filters).
    pub test: &'static str,
    /// What a match means: a title state, or "ignored".
    pub outcome: &'static str,
    pub matched: bool,
    pub why: &'static str,
}

/// How a title was classified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TitleExplanation {
    pub agent: &'static str,
    pub title: String,
    pub state: TitleState,
    /// The first rule that matched; `None` when none did (state Unknown).
    pub decided_by: Option<&'static str>,
    /// Every rule, in evaluation order (later matches lose to earlier ones).
    pub checks: Vec<RuleCheck>,
}

/// Whether a notification was taken as "needs you".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotifyExplanation {
    pub agent: &'static str,
    pub body: String,
    pub wants_attention: bool,
    pub checks: Vec<RuleCheck>,
}

fn write_checks(f: &mut fmt::Formatter<'_>, checks: &[RuleCheck]) -> fmt::Result {
    for check in checks {
        let verdict = if check.matched { "match" } else { "no match" };
        writeln!(
            f,
            "  {:<8} {} ({}): {:?}",
            verdict, check.rule_id, check.outcome, check.test
        )?;
    }
    Ok(())
}

impl fmt::Display for TitleExplanation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let by = self.decided_by.unwrap_or("no rule matched");
        writeln!(
            f,
            "{} title {:?}: {} ({by})",
            self.agent,
            self.title,
            self.state.as_str()
        )?;
        if self.checks.is_empty() {
            writeln!(f, "  {} has no title rules", self.agent)?;
        }
        write_checks(f, &self.checks)
    }
}

impl fmt::Display for NotifyExplanation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verdict = if self.wants_attention {
            "needs you"
        } else {
            "ignored"
        };
        writeln!(f, "{} notification {:?}: {verdict}", self.agent, self.body)?;
        if self.checks.is_empty() {
            writeln!(f, "  {} has no notification filters", self.agent)?;
        }
        write_checks(f, &self.checks)
    }
}
