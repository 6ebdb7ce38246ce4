//! The error state: an agent that stopped because its model API failed
//! (rate limit, overload, server error, auth failure) and gave up retrying.
//!
//! Only a channel that speaks for the agent moves a task here: a hook of
//! this task (Claude's StopFailure, opencode's session.error with an API
//! error) or the agent's own OSC 7501 `state=error` (Claude Code, once its
//! probe is answered), never printed text. A turn that already ended a
//! moment before (a native `idle` or `done`, a hook done that raced the
//! error report) is corrected to the error within `error_correction_ms`:
//! an error is worse news than a done and must not be hidden by the order
//! in which two channels land. A second report of an error already shown
//! only logs (hook and native both report Claude's).

use crate::engine::span::Span;
use crate::engine::types::{LogKind, Rule, State, Transition};
use crate::engine::Engine;
use crate::limit::{reset_in_text, ResetAt};
use crate::stop::StopReason;
use crate::wire::{field, HookMessage};

impl Engine {
    /// A hook `error` of this task (the id is already checked).
    pub(in crate::engine) fn hook_error(
        &mut self,
        now: u64,
        msg: &HookMessage,
        named: String,
        out: &mut Vec<Transition>,
    ) {
        let reason = msg
            .field(field::REASON)
            .and_then(StopReason::from_wire)
            .unwrap_or(StopReason::ApiError);
        // The hook's script read the reset time from the agent's own
        // payload, or its message names it (Claude's StopFailure: "... Your
        // limit resets at 15:00.").
        let until = msg
            .field(field::UNTIL)
            .and_then(ResetAt::from_wire)
            .or_else(|| {
                msg.field(field::MESSAGE)
                    .and_then(|m| reset_in_text(&crate::wire::decode_text(m)))
            });
        self.error_reported(
            now,
            State::stopped(reason, until),
            Rule::HookError,
            named,
            out,
        );
    }

    /// A native `state=error`: the reason comes from its message, read by
    /// the agent's profile (Claude says "API Error: Request rejected (429)").
    pub(in crate::engine) fn native_error(
        &mut self,
        now: u64,
        message: Option<&str>,
        out: &mut Vec<Transition>,
    ) {
        let text = message.unwrap_or("");
        let (reason, rule_id) = self.profile.classify_error(text);
        let by = rule_id.unwrap_or("no rule matched");
        // A usage limit's message names its reset ("resets 3pm").
        let to = State::stopped(reason, reset_in_text(text));
        self.error_reported(now, to, Rule::NativeError, format!("error ({by})"), out);
    }

    /// A native `blocked` whose kind the profile knows is an error (Claude's
    /// `kind=auth` on a 401).
    pub(in crate::engine) fn native_blocked_error(
        &mut self,
        now: u64,
        reason: StopReason,
        summary: &str,
        out: &mut Vec<Transition>,
    ) {
        let named = format!("{summary}, an error for this agent");
        let to = State::stopped(reason, reset_in_text(summary));
        self.error_reported(now, to, Rule::NativeError, named, out);
    }

    fn error_reported(
        &mut self,
        now: u64,
        to: State,
        rule: Rule,
        named: String,
        out: &mut Vec<Transition>,
    ) {
        let detail = format!("{named}: stopped: {}", stop_label(to));
        if matches!(self.state, State::Error(_) | State::RateLimited(_)) {
            let shown = self.state;
            if refines(shown, to) {
                let detail = format!("{detail} (more precise than {})", stop_label(shown));
                self.go(now, to, rule, detail, None, out);
                return;
            }
            let shown = stop_label(shown);
            self.log.push(
                now,
                LogKind::Signal,
                format!("{}: already stopped: {shown} ({detail})", rule.label()),
            );
            return;
        }
        if self.state.in_turn() {
            self.stop_on_error(now, to, rule, detail, out);
            return;
        }
        let window = self.config.constants.error_correction_ms;
        // The submit's turn failed before any sign of it reached termic:
        // Claude Code 2.1.332 answers a 401 within ~170 ms of Enter with a
        // native `blocked kind=auth` and, now and then, no `working` first.
        if let Some(entered) = self.entered_at {
            let ago = now.saturating_sub(entered);
            if ago <= window {
                let detail = format!(
                    "{detail} (the turn of the Enter {} earlier, before it showed as working)",
                    Span(ago)
                );
                self.stop_on_error(now, to, rule, detail, out);
                return;
            }
        }
        let ended_ago = now.saturating_sub(self.since);
        let just_ended = matches!(self.state, State::Done | State::Idle | State::Interrupted);
        if just_ended && self.since > 0 && ended_ago <= window {
            let detail = format!(
                "{detail} (corrects the {} {} earlier)",
                self.state,
                Span(ended_ago)
            );
            self.stop_on_error(now, to, rule, detail, out);
            return;
        }
        self.log.push(
            now,
            LogKind::Fact,
            format!("{}: {detail} ignored: no turn is running", rule.label()),
        );
    }

    pub(in crate::engine) fn stop_on_error(
        &mut self,
        now: u64,
        to: State,
        rule: Rule,
        detail: String,
        out: &mut Vec<Transition>,
    ) {
        // The error spends this submit's done: the agent gave up, and a
        // later quiet screen must not turn that into a done.
        self.done_token = false;
        self.last_done_at = None;
        self.go(now, to, rule, detail, None, out);
    }
}

/// What follows "stopped: " in the log: `rate limited until 15:00`,
/// `server error`.
fn stop_label(state: State) -> String {
    match state {
        State::Error(reason) => reason.to_string(),
        other => other.to_string(),
    }
}

/// A second report names the stop more precisely than the one shown:
/// Claude 2.1.332's StopFailure says `server_error` for a 529 that its
/// native report, 150 ms later, calls "Repeated 529 Overloaded errors"; a
/// rate limit with no time is refined by one that names its reset.
fn refines(shown: State, newer: State) -> bool {
    match (shown, newer) {
        (State::RateLimited(None), State::RateLimited(Some(_))) => true,
        (State::RateLimited(_), _) => false,
        (State::Error(StopReason::ServerError | StopReason::ApiError), State::Error(r)) => {
            Some(r) != shown_reason(shown) && r != StopReason::ApiError
        }
        (State::Error(StopReason::ServerError | StopReason::ApiError), State::RateLimited(_)) => {
            true
        }
        _ => false,
    }
}

fn shown_reason(state: State) -> Option<StopReason> {
    match state {
        State::Error(r) => Some(r),
        _ => None,
    }
}
