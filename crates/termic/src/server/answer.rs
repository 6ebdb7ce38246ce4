//! One-tap answers (issue 30): what a task that needs you is asked, the
//! choices its agent's dialog offers, and the `answer` request that sends
//! one choice's keys only while the screen still shows it.
//!
//! Choices are offered only when the needs-you came from a channel that
//! speaks for the agent (one of termic's hooks, or the agent's native
//! status) AND the agent's dialog for that kind is on the screen: printed
//! text alone never makes a task answerable, and a dialog that left the
//! screen is never answered blind. The ids and keys are the agent's
//! profile's (termic-signal's profile/<agent>.rs), never screen text.

use std::time::{Duration, Instant};

use termic_signal::engine::{Engine, State};
use termic_signal::profile::{profile_for, AgentProfile, OfferedChoice, ScreenRows, Then};

use super::protocol::{Answered, Choice, RowAttention};

/// The screen rows read for a dialog (each profile's regions are fewer).
pub const DIALOG_ROWS: usize = termic_signal::profile::SCREEN_ROWS_MAX;

/// Added to an agent's measured refusal of early keys
/// ([`AgentProfile::dialog_refuses_keys_ms`]): termic sees a paint a little
/// after the agent stamps it, never before, so this is slack for the key's
/// way to the agent, not for termic's view.
pub const SETTLE_MARGIN: Duration = Duration::from_millis(100);
/// The longest an answer waits for such a dialog to hold still; a dialog
/// still changing then is answered `screen_changed`, nothing sent.
pub const SETTLE_MAX: Duration = Duration::from_secs(2);
/// The longest the second step of a two-step choice (opencode's "Allow
/// always") waits for its prompt; then nothing more is sent.
pub const FOLLOW_UP_MAX: Duration = Duration::from_secs(3);
/// How often a waiting answer reads the screen again.
pub const POLL: Duration = Duration::from_millis(20);

/// The row's `attention`: the engine's, while the task needs you.
pub fn row_attention(engine: &Engine) -> Option<Box<RowAttention>> {
    if engine.state() != State::NeedsYou {
        return None;
    }
    let attention = engine.attention()?;
    let (message, from_output) = attention.message_parts();
    Some(Box::new(RowAttention {
        kind: attention.kind.clone().unwrap_or_else(|| "unsure".into()),
        message: message.map(str::to_owned),
        from_output,
    }))
}

/// What the engine says about a task's block, as [`decide`] reads it.
#[derive(Debug, Clone, Copy)]
pub struct Block<'a> {
    pub needs_you: bool,
    /// The needs-you came from a hook or the agent's native status.
    pub told_by_agent: bool,
    /// The attention's kind (`permission`, `question`, `plan`...).
    pub kind: Option<&'a str>,
    pub profile: &'static AgentProfile,
}

impl<'a> Block<'a> {
    pub fn of(engine: &'a Engine) -> Block<'a> {
        Block {
            needs_you: engine.state() == State::NeedsYou,
            told_by_agent: engine.needs_you_from_agent(),
            kind: engine.attention().and_then(|a| a.kind.as_deref()),
            profile: profile_for(&engine.config().agent),
        }
    }
}

/// The choices a task offers now (pure): its agent's dialog for the
/// attention's kind, as the screen shows it; none unless the agent itself
/// said it needs you.
pub fn offered(block: Block<'_>, screen: &ScreenRows) -> Vec<OfferedChoice> {
    read(block, screen).map(|d| d.choices).unwrap_or_default()
}

fn read(block: Block<'_>, screen: &ScreenRows) -> Option<termic_signal::profile::DialogRead> {
    let (true, true, Some(kind)) = (block.needs_you, block.told_by_agent, block.kind) else {
        return None;
    };
    block.profile.read_dialog(kind, screen)
}

/// What answering with a choice sends now (see [`decide_answer`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub keys: Vec<u8>,
    /// The second prompt the keys open, answered once it shows.
    pub then: Option<Then>,
    /// How long the dialog must have held still before the keys go (zero
    /// for an agent that takes keys at once).
    pub hold: Duration,
    /// The dialog as read, to tell whether it held still.
    pub shown: String,
}

/// The row's `choices`.
pub fn row_choices(block: Block<'_>, screen: &ScreenRows) -> Vec<Choice> {
    offered(block, screen)
        .into_iter()
        .map(|c| Choice {
            id: c.id,
            label: c.label,
        })
        .collect()
}

/// Whether the choice is one the agent needs the screen for: a task that
/// does not need you asks for no row at all.
pub fn needs_screen(block: Block<'_>) -> bool {
    block.needs_you && block.told_by_agent && block.kind.is_some()
}

/// What answering with `choice` does (pure): the keys to send, or why
/// nothing is sent. `not_needed` when the task does not need you;
/// `unknown_choice` when its agent's dialogs for what it asks have no
/// such choice (or termic knows none for a needs-you it guessed);
/// `screen_changed` when the dialog, or that choice in it, is not on the
/// screen now.
///
/// Also what must come before the keys (the dialog held still for the
/// agent's measured refusal of early keys, and a margin) and after them
/// (a second prompt).
pub fn decide_answer(
    block: Block<'_>,
    screen: &ScreenRows,
    choice: &str,
) -> Result<Answer, Answered> {
    if !block.needs_you {
        return Err(Answered::NotNeeded);
    }
    let read = read(block, screen);
    if let Some((found, shown)) = read.and_then(|d| {
        let found = d.choices.into_iter().find(|c| c.id == choice)?;
        Some((found, d.shown))
    }) {
        let refuses = block.profile.dialog_refuses_keys_ms;
        return Ok(Answer {
            keys: found.keys,
            then: found.then,
            hold: match refuses {
                0 => Duration::ZERO,
                ms => Duration::from_millis(ms) + SETTLE_MARGIN,
            },
            shown,
        });
    }
    let known = block.told_by_agent
        && block
            .kind
            .is_some_and(|kind| defines(block.profile, kind, choice));
    Err(if known {
        Answered::ScreenChanged
    } else {
        Answered::UnknownChoice
    })
}

/// Whether a dialog held still long enough to take a key: the same
/// dialog read over at least `hold`, from the first read that showed it
/// as it is now (any change starts over).
#[derive(Debug, Default)]
pub struct Settle {
    seen: Option<(String, Instant)>,
}

impl Settle {
    pub fn ready(&mut self, now: Instant, shown: &str, hold: Duration) -> bool {
        if hold.is_zero() {
            return true;
        }
        match &self.seen {
            Some((before, since)) if before == shown => now.duration_since(*since) >= hold,
            _ => {
                self.seen = Some((shown.to_owned(), now));
                false
            }
        }
    }
}

/// Whether the agent's dialogs for `kind` have a choice `id` (a numbered
/// one's ids are `<prefix>_1` to `<prefix>_9`).
fn defines(profile: &AgentProfile, kind: &str, id: &str) -> bool {
    profile
        .dialogs
        .iter()
        .filter(|d| d.kind == kind)
        .flat_map(|d| d.choices)
        .any(|c| match c.numbered {
            false => c.id == id,
            true => id
                .strip_prefix(c.id)
                .and_then(|rest| rest.strip_prefix('_'))
                .is_some_and(|n| {
                    n.len() == 1 && ('1'..='9').contains(&n.chars().next().unwrap_or('0'))
                }),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The keys [`decide_answer`] sends.
    fn decide(block: Block<'_>, screen: &ScreenRows, choice: &str) -> Result<Vec<u8>, Answered> {
        decide_answer(block, screen, choice).map(|a| a.keys)
    }

    const DIALOG: [&str; 4] = [
        " Do you want to create out.txt?",
        " ❯ 1. Yes",
        "   2. Yes, allow all edits during this session",
        "   3. No, and tell Claude what to do differently (esc)",
    ];

    fn block(told_by_agent: bool, kind: Option<&str>) -> Block<'_> {
        Block {
            needs_you: true,
            told_by_agent,
            kind,
            profile: profile_for("claude"),
        }
    }

    #[test]
    fn a_choice_on_the_screen_is_its_keys_and_anything_else_sends_nothing() {
        let screen = ScreenRows::new(DIALOG);
        let asked = block(true, Some("permission"));
        assert_eq!(decide(asked, &screen, "approve_once"), Ok(b"1".to_vec()));
        assert_eq!(decide(asked, &screen, "deny"), Ok(b"3".to_vec()));
        // The dialog left the screen: a choice it had is not sent.
        let gone = ScreenRows::new(["● Write(out.txt)", "  ⎿  Wrote 1 line"]);
        assert_eq!(
            decide(asked, &gone, "approve_once"),
            Err(Answered::ScreenChanged)
        );
        // A choice this dialog does not show now (two options only).
        let two = ScreenRows::new([DIALOG[0], DIALOG[1], "   2. No"]);
        assert_eq!(
            decide(asked, &two, "approve_always"),
            Err(Answered::ScreenChanged)
        );
        assert_eq!(decide(asked, &two, "deny"), Ok(b"2".to_vec()));
        // Ids are termic's: a label or a digit is not one.
        assert_eq!(decide(asked, &screen, "Yes"), Err(Answered::UnknownChoice));
        assert_eq!(decide(asked, &screen, "1"), Err(Answered::UnknownChoice));
        assert_eq!(
            decide(asked, &screen, "option_1"),
            Err(Answered::UnknownChoice)
        );
    }

    /// Printed text is data: the same dialog on the screen of a task whose
    /// needs-you was a guess (a screen rule, a title) offers nothing.
    #[test]
    fn a_guessed_needs_you_offers_no_choice() {
        let screen = ScreenRows::new(DIALOG);
        let guessed = block(false, Some("permission"));
        assert!(offered(guessed, &screen).is_empty());
        assert_eq!(
            decide(guessed, &screen, "approve_once"),
            Err(Answered::UnknownChoice)
        );
        let idle = Block {
            needs_you: false,
            ..block(true, Some("permission"))
        };
        assert!(offered(idle, &screen).is_empty());
        assert_eq!(
            decide(idle, &screen, "approve_once"),
            Err(Answered::NotNeeded)
        );
        // An agent termic knows no dialog of.
        let unknown = Block {
            profile: profile_for("my-own-agent"),
            ..block(true, Some("permission"))
        };
        assert!(offered(unknown, &screen).is_empty());
        assert_eq!(
            decide(unknown, &screen, "approve_once"),
            Err(Answered::UnknownChoice)
        );
    }

    /// Claude's question as 2.1.332 paints it: an option is the arrows
    /// from the highlight and Enter; its free-text entry is never typed.
    #[test]
    fn a_question_option_is_its_arrows_and_the_free_text_entry_is_not_sent() {
        let rows: Vec<&str> =
            include_str!("../../../termic-signal/tests/screens/claude-2.1.332-question.txt")
                .lines()
                .collect();
        let screen = ScreenRows::new(rows);
        let asked = block(true, Some("question"));
        assert_eq!(decide(asked, &screen, "option_1"), Ok(b"\r".to_vec()));
        assert_eq!(decide(asked, &screen, "option_2"), Ok(b"\x1b[B\r".to_vec()));
        assert_eq!(
            decide(asked, &screen, "option_3"),
            Err(Answered::ScreenChanged)
        );
        // The permission's ids are not a question's.
        assert_eq!(
            decide(asked, &screen, "approve_once"),
            Err(Answered::UnknownChoice)
        );
    }

    /// opencode's Allow once needs the selection, read from the colours:
    /// on a screen read without them it is not sent, and the answer says
    /// the screen changed (2026-12-06).
    #[test]
    fn opencode_allow_once_is_not_sent_without_the_selection() {
        let screen = ScreenRows::new([
            "  ┃  △ Permission required",
            "  ┃   Allow once   Allow always   Reject      ⇆ select  enter confirm",
        ]);
        let asked = Block {
            profile: profile_for("opencode"),
            ..block(true, Some("permission"))
        };
        assert_eq!(
            decide(asked, &screen, "approve_once"),
            Err(Answered::ScreenChanged)
        );
        assert_eq!(decide(asked, &screen, "deny"), Ok(b"\x1b".to_vec()));
        // Allow always is opencode's too (2026-12-07), and needs it as well.
        assert_eq!(
            decide(asked, &screen, "approve_always"),
            Err(Answered::ScreenChanged)
        );
        let deny = decide_answer(asked, &screen, "deny").unwrap();
        assert_eq!((deny.then, deny.hold), (None, Duration::ZERO));
    }

    /// Claude's dialogs drop a key within 150 ms of their paint
    /// (2026-12-07): its answers wait until the dialog held still that long
    /// and a margin; any change starts the wait over.
    #[test]
    fn a_claude_answer_waits_for_its_dialog_to_hold_still() {
        let screen = ScreenRows::new(DIALOG);
        let answer = decide_answer(block(true, Some("permission")), &screen, "approve_once");
        let answer = answer.unwrap();
        assert_eq!(answer.hold, Duration::from_millis(250));
        assert!(answer.shown.contains("1. Yes"));
        let t0 = Instant::now();
        let at = |ms| t0 + Duration::from_millis(ms);
        let mut settle = Settle::default();
        assert!(!settle.ready(at(0), &answer.shown, answer.hold));
        assert!(!settle.ready(at(249), &answer.shown, answer.hold));
        assert!(!settle.ready(at(260), "it moved", answer.hold));
        assert!(!settle.ready(at(300), &answer.shown, answer.hold));
        assert!(!settle.ready(at(549), &answer.shown, answer.hold));
        assert!(settle.ready(at(550), &answer.shown, answer.hold));
        // An agent that takes keys at once is answered at once.
        assert!(Settle::default().ready(at(0), "x", Duration::ZERO));
    }

    #[test]
    fn known_ids_are_the_profiles_for_that_kind() {
        let claude = profile_for("claude");
        for id in ["approve_once", "approve_always", "deny"] {
            assert!(defines(claude, "permission", id), "{id}");
        }
        for id in ["option_1", "Yes", "1", ""] {
            assert!(!defines(claude, "permission", id), "{id}");
        }
        // A question's and a plan's are its numbered options (2026-12-06).
        for kind in ["question", "plan"] {
            assert!(defines(claude, kind, "option_1"), "{kind}");
            assert!(defines(claude, kind, "option_9"), "{kind}");
            for id in ["option_0", "option_10", "option_x", "approve_once"] {
                assert!(!defines(claude, kind, id), "{kind} {id}");
            }
        }
    }
}
