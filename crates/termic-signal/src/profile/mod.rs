//! Per-agent detection data: what an agent's window title says about its
//! turn, and which of its notifications do not mean "needs you".
//!
//! Each agent is one small module holding a static [`AgentProfile`]: rules are
//! data (a regex, the state it means, and why, with the version it was
//! measured on), evaluated in order, first match wins. [`AgentProfile::explain`]
//! and [`AgentProfile::explain_notify`] list every rule evaluated and its
//! result, for the Signal Inspector.
//!
//! ```
//! use termic_signal::profile::{profile_for, wants_attention, TitleState};
//!
//! assert_eq!(profile_for("claude").classify_title("✳ Claude Code"), TitleState::Idle);
//! assert!(!wants_attention("claude", "Claude is waiting for your input"));
//! assert_eq!(profile_for("my-own-agent").id, "generic");
//! ```

mod agy;
mod claude;
mod codex;
mod command;
mod copilot;
mod dialog;
mod errors;
mod explain;
mod gemini;
mod generic;
mod grok;
mod opencode;
mod qwen;
mod screen;
mod shell;
mod turns;

use std::sync::OnceLock;

use regex::Regex;

pub use dialog::{Dialog, DialogChoice, DialogRead, FollowUp, Keys, OfferedChoice, Then};
pub use errors::ErrorText;
pub use explain::{NotifyExplanation, RuleCheck, TitleExplanation};
pub use screen::{
    Region, ScreenExplanation, ScreenImplies, ScreenRows, ScreenRule, SCREEN_ROWS_MAX,
    SCREEN_ROW_MAX_CHARS,
};
pub use turns::Turns;

/// What a window title says about the agent's turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TitleState {
    /// The agent is working (a spinner is animating).
    Busy,
    /// The agent is at its prompt.
    Idle,
    /// The agent is blocked on the user.
    NeedsYou,
    /// The title carries no state.
    Unknown,
}

impl TitleState {
    pub fn as_str(self) -> &'static str {
        match self {
            TitleState::Busy => "busy",
            TitleState::Idle => "idle",
            TitleState::NeedsYou => "needs you",
            TitleState::Unknown => "unknown",
        }
    }
}

/// A title pattern: when `pattern` matches the whole title string (use
/// anchors), the title means `state`.
#[derive(Debug)]
pub struct TitleRule {
    /// Stable id shown in the Inspector, `<agent>.<name>`.
    pub id: &'static str,
    /// A `regex` crate pattern.
    pub pattern: &'static str,
    pub state: TitleState,
    /// What was measured, on which version, and why the pattern is shaped so.
    pub why: &'static str,
}

/// Whether a program's OSC 7501 status reports are obeyed. Printed text is
/// data: any program can print `ESC ] 7501 ; state=done`, so a report counts
/// only in a task whose program is the one that speaks the protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NativeStatus {
    /// The program never speaks it: every report is recorded, not obeyed.
    Never,
    /// Obeyed only after termic answered the program's `OSC 7501 ; ?` probe
    /// in this task (Claude Code reports nothing until it is answered).
    AfterProbe,
    /// The program always speaks it (Codex).
    Always,
}

/// A notification body that does not mean the agent needs the user.
#[derive(Debug)]
pub struct NotifyIgnore {
    pub id: &'static str,
    /// Ignored when the body contains this text.
    pub contains: &'static str,
    pub why: &'static str,
}

/// Everything termic knows about reading one agent's terminal.
#[derive(Debug)]
pub struct AgentProfile {
    /// The agent id (a user-defined agent passes its base id).
    pub id: &'static str,
    /// Other names that resolve to this profile (e.g. an OSC 7501 `app=`).
    pub aliases: &'static [&'static str],
    /// Versions the rules were measured on.
    pub measured_on: &'static str,
    pub title_rules: &'static [TitleRule],
    pub notify_ignore: &'static [NotifyIgnore],
    /// Whether termic's hooks for this agent can report "needs you". agy's
    /// hook events are PreInvocation and Stop only (it has no attention-shaped
    /// event), so with its hooks wired a silent wait for the user still rests
    /// on the byte-quiet fallback, which asks and never claims a done.
    pub hooks_report_attention: bool,
    /// Agent heuristics, or the plain rules of a command or a shell.
    pub turns: Turns,
    /// Whether this program's OSC 7501 reports are obeyed.
    pub native_status: NativeStatus,
    /// Whether a printed OSC 9 / 777 / 99 notification means needs you. Off
    /// for the generic profile: a shell task's output is only text.
    pub printed_notifications: bool,
    /// What the bottom of the agent's screen says (screen.rs): needs you or
    /// not done, never done. Empty for commands, shells and the generic
    /// profile, so printed text there is only text.
    pub screen_rules: &'static [ScreenRule],
    /// How this agent words the API error it stopped on (profile/errors.rs).
    pub error_text: &'static [ErrorText],
    /// Native `blocked` kinds that are really an error the agent stopped on.
    pub error_kinds: &'static [(&'static str, crate::stop::StopReason)],
    /// Why a native `clear` during a turn is NOT an interrupt for this agent
    /// (`None`: it is read like `idle`, an interrupt).
    pub native_clear_mid_turn: Option<&'static str>,
    /// Why a native `idle` after `working` without a done is an interrupt
    /// for this agent only after Escape or Ctrl-C during the turn (watched
    /// or not); with no such key it ran no turn and the task is idle
    /// (`None`: any such `idle` is an interrupt).
    pub native_idle_needs_interrupt_key: Option<&'static str>,
    /// Why this agent's end-of-turn hook also fires when Escape stopped the
    /// turn (`None`: it does not). Then a hook done within the interrupt
    /// window after an Escape or Ctrl-C is the interrupt, not a done.
    pub done_hook_on_interrupt: Option<&'static str>,
    /// The last message this agent's end-of-turn hook sends when the turn
    /// ended on an error it does not name (the message, and why), so that
    /// hook done is an `error`, not a done. `None`: no such message.
    pub error_message: Option<(&'static str, &'static str)>,
    /// Why this agent's hooks send no end of turn when it gives up on an
    /// API error (`None`: they do). Then its `Stopped` screen rule, when it
    /// begins to match during a turn its hooks started, ends that turn as
    /// the error it names (rules/screen_rules.rs).
    pub screen_stop_ends_hooked_turn: Option<&'static str>,
    /// The agent's dialogs and the keys of their choices (dialog.rs):
    /// empty where termic does not know them.
    pub dialogs: &'static [Dialog],
    /// What termic types (then Enter) to make the agent go on after a
    /// usage limit reset (`[tasks] continue_after_limit`); `None`: nothing.
    pub continue_prompt: Option<&'static str>,
    /// How long, in ms, the agent's dialogs refuse keys after they are
    /// painted (measured; 0: they take keys at once). A one-tap answer
    /// waits until the dialog held still at least that long.
    pub dialog_refuses_keys_ms: u64,
    compiled: OnceLock<Vec<Regex>>,
    compiled_screen: OnceLock<Vec<Regex>>,
    compiled_dialogs: OnceLock<Vec<dialog::Compiled>>,
}

/// What a `Stopped` screen rule's match names: the reason, the error text
/// that said so, and a usage limit's reset time when the text names one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScreenStop {
    pub reason: crate::stop::StopReason,
    pub by: Option<&'static str>,
    pub until: Option<crate::limit::ResetAt>,
}

/// Every profile, generic last. Lookup order is this order.
pub static PROFILES: &[&AgentProfile] = &[
    &claude::PROFILE,
    &codex::PROFILE,
    &grok::PROFILE,
    &agy::PROFILE,
    &opencode::PROFILE,
    &gemini::PROFILE,
    &qwen::PROFILE,
    &copilot::PROFILE,
    &command::PROFILE,
    &shell::PROFILE,
    &generic::PROFILE,
];

/// The profile for an agent id or alias; the generic profile (no title
/// states, every notification counts) for anything unknown.
pub fn profile_for(agent_id: &str) -> &'static AgentProfile {
    PROFILES
        .iter()
        .copied()
        .find(|p| p.id == agent_id || p.aliases.contains(&agent_id))
        .unwrap_or(&generic::PROFILE)
}

/// Does a notification with this body from this agent mean "needs you"?
pub fn wants_attention(agent: &str, body: &str) -> bool {
    profile_for(agent).wants_attention(body)
}

impl AgentProfile {
    const fn new(
        id: &'static str,
        aliases: &'static [&'static str],
        measured_on: &'static str,
        title_rules: &'static [TitleRule],
        notify_ignore: &'static [NotifyIgnore],
    ) -> AgentProfile {
        AgentProfile {
            id,
            aliases,
            measured_on,
            title_rules,
            notify_ignore,
            hooks_report_attention: true,
            turns: Turns::Agent,
            native_status: NativeStatus::Never,
            printed_notifications: true,
            screen_rules: &[],
            error_text: &[],
            error_kinds: &[],
            native_clear_mid_turn: None,
            native_idle_needs_interrupt_key: None,
            done_hook_on_interrupt: None,
            error_message: None,
            screen_stop_ends_hooked_turn: None,
            dialogs: &[],
            continue_prompt: None,
            dialog_refuses_keys_ms: 0,
            compiled: OnceLock::new(),
            compiled_screen: OnceLock::new(),
            compiled_dialogs: OnceLock::new(),
        }
    }

    /// For an agent that goes on from where it stopped when told so in a
    /// prompt (after a usage limit resets).
    const fn with_continue_prompt(mut self, prompt: &'static str) -> AgentProfile {
        self.continue_prompt = Some(prompt);
        self
    }

    /// For an agent whose dialogs drop a key that comes sooner than `ms`
    /// after they are painted.
    const fn with_dialog_refuses_keys_ms(mut self, ms: u64) -> AgentProfile {
        self.dialog_refuses_keys_ms = ms;
        self
    }

    /// For an agent whose dialogs' choices and keys are known (dialog.rs).
    const fn with_dialogs(mut self, dialogs: &'static [Dialog]) -> AgentProfile {
        self.dialogs = dialogs;
        self
    }

    /// For an agent whose dialogs were measured on screen (screen.rs).
    const fn with_screen_rules(mut self, rules: &'static [ScreenRule]) -> AgentProfile {
        self.screen_rules = rules;
        self
    }

    /// For an agent whose native `idle` after `working` is an interrupt only
    /// after an interrupt key (why).
    const fn native_idle_is_no_turn_without_a_key(mut self, why: &'static str) -> AgentProfile {
        self.native_idle_needs_interrupt_key = Some(why);
        self
    }

    /// For an agent whose native `clear` mid-turn is not an interrupt (why).
    const fn native_clear_continues(mut self, why: &'static str) -> AgentProfile {
        self.native_clear_mid_turn = Some(why);
        self
    }

    /// For an agent whose end-of-turn hook fires on an interrupt too.
    const fn with_done_hook_on_interrupt(mut self, why: &'static str) -> AgentProfile {
        self.done_hook_on_interrupt = Some(why);
        self
    }

    /// For an agent whose end-of-turn hook says `message` on an error.
    const fn with_error_message(
        mut self,
        message: &'static str,
        why: &'static str,
    ) -> AgentProfile {
        self.error_message = Some((message, why));
        self
    }

    /// For an agent whose hooks stay silent when it stops on an API error.
    const fn with_screen_stop_ending_hooked_turns(mut self, why: &'static str) -> AgentProfile {
        self.screen_stop_ends_hooked_turn = Some(why);
        self
    }

    /// For a program that speaks OSC 7501 (see [`NativeStatus`]).
    const fn speaks_native(mut self, when: NativeStatus) -> AgentProfile {
        self.native_status = when;
        self
    }

    /// For an agent that reports the API error it stopped on (see [`ErrorText`]).
    const fn with_error_text(mut self, rules: &'static [ErrorText]) -> AgentProfile {
        self.error_text = rules;
        self
    }

    /// For an agent that reports some API errors as a native `blocked` kind.
    const fn with_error_kinds(
        mut self,
        kinds: &'static [(&'static str, crate::stop::StopReason)],
    ) -> AgentProfile {
        self.error_kinds = kinds;
        self
    }

    /// For a profile whose printed notifications are only text.
    const fn without_printed_notifications(mut self) -> AgentProfile {
        self.printed_notifications = false;
        self
    }

    /// For an agent whose hooks report working and done but never "needs you".
    const fn without_hook_attention(mut self) -> AgentProfile {
        self.hooks_report_attention = false;
        self
    }

    /// For a profile that is not a coding agent's (see [`Turns`]).
    const fn with_turns(mut self, turns: Turns) -> AgentProfile {
        self.turns = turns;
        self
    }

    /// The title rules' regexes, compiled on first use. Every pattern is
    /// checked to compile by a test, so the `expect` cannot fire in a build
    /// that passed its tests.
    fn regexes(&self) -> &[Regex] {
        self.compiled.get_or_init(|| {
            self.title_rules
                .iter()
                .map(|r| {
                    Regex::new(r.pattern).expect("profile title patterns are tested to compile")
                })
                .collect()
        })
    }

    /// The state this title means: the first matching rule's, else Unknown.
    pub fn classify_title(&self, title: &str) -> TitleState {
        self.title_rules
            .iter()
            .zip(self.regexes())
            .find(|(_, re)| re.is_match(title))
            .map_or(TitleState::Unknown, |(rule, _)| rule.state)
    }

    /// Every title rule evaluated against `title`, and the verdict.
    pub fn explain(&self, title: &str) -> TitleExplanation {
        let checks: Vec<RuleCheck> = self
            .title_rules
            .iter()
            .zip(self.regexes())
            .map(|(rule, re)| RuleCheck {
                rule_id: rule.id,
                test: rule.pattern,
                outcome: rule.state.as_str(),
                matched: re.is_match(title),
                why: rule.why,
            })
            .collect();
        let decided_by = self
            .title_rules
            .iter()
            .zip(&checks)
            .find(|(_, check)| check.matched)
            .map(|(rule, _)| rule);
        TitleExplanation {
            agent: self.id,
            title: title.to_string(),
            state: decided_by.map_or(TitleState::Unknown, |r| r.state),
            decided_by: decided_by.map(|r| r.id),
            checks,
        }
    }

    /// The first screen rule that matches `screen`, if any.
    pub fn screen_match(&'static self, screen: &ScreenRows) -> Option<&'static ScreenRule> {
        self.explain_screen(screen).decided_by
    }

    /// Every screen rule evaluated against `screen`, and the verdict (the
    /// Inspector shows it when the verdict changes).
    pub fn explain_screen(&'static self, screen: &ScreenRows) -> ScreenExplanation {
        let compiled = self
            .compiled_screen
            .get_or_init(|| screen::compile(self.screen_rules));
        let checks: Vec<(&'static ScreenRule, bool)> = self
            .screen_rules
            .iter()
            .zip(compiled)
            .map(|(rule, re)| (rule, re.is_match(&rule.region.text(screen))))
            .collect();
        ScreenExplanation {
            agent: self.id,
            decided_by: checks.iter().find(|(_, m)| *m).map(|(r, _)| *r),
            checks,
        }
    }

    /// The reason a `Stopped` screen rule's match names (the profile's error
    /// texts over the matched rows only, never the rest of the screen), and
    /// the error text that said so. `None` when `rule` does not match.
    pub fn screen_stop_reason(
        &'static self,
        rule: &'static ScreenRule,
        screen: &ScreenRows,
    ) -> Option<ScreenStop> {
        let compiled = self
            .compiled_screen
            .get_or_init(|| screen::compile(self.screen_rules));
        let at = self.screen_rules.iter().position(|r| r == rule)?;
        let text = screen::matched_text(rule, &compiled[at], screen)?;
        let (reason, by) = self.classify_error(&text);
        // A usage limit's line names its reset ("resets at 15:00").
        let until = (reason == crate::stop::StopReason::RateLimited)
            .then(|| crate::limit::reset_in_text(&text))
            .flatten();
        Some(ScreenStop { reason, by, until })
    }

    /// How many of the screen's last non-blank rows this profile's screen
    /// rules read (0: none, the runtime sends no rows).
    pub fn screen_rows_wanted(&self) -> usize {
        screen::rows_wanted(self.screen_rules)
    }

    /// The agent's dialog for `kind` (an attention kind) on `screen`, with
    /// the choices it shows now; `None` when none of its dialogs is there
    /// (or termic knows none).
    pub fn read_dialog(&'static self, kind: &str, screen: &ScreenRows) -> Option<DialogRead> {
        let compiled = self
            .compiled_dialogs
            .get_or_init(|| dialog::compile(self.dialogs));
        dialog::read(self.dialogs, compiled, kind, screen)
    }

    /// How many of the screen's last non-blank rows its dialogs read.
    pub fn dialog_rows_wanted(&self) -> usize {
        dialog::rows_wanted(self.dialogs)
    }

    /// Does a notification with this body mean the agent needs the user?
    pub fn wants_attention(&self, body: &str) -> bool {
        !self.notify_ignore.iter().any(|r| body.contains(r.contains))
    }

    /// Every notification filter evaluated against `body`, and the verdict.
    pub fn explain_notify(&self, body: &str) -> NotifyExplanation {
        let checks: Vec<RuleCheck> = self
            .notify_ignore
            .iter()
            .map(|rule| RuleCheck {
                rule_id: rule.id,
                test: rule.contains,
                outcome: "ignored",
                matched: body.contains(rule.contains),
                why: rule.why,
            })
            .collect();
        NotifyExplanation {
            agent: self.id,
            body: body.to_string(),
            wants_attention: !checks.iter().any(|c| c.matched),
            checks,
        }
    }
}

#[cfg(test)]
mod tests;
