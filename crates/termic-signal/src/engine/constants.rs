//! Every timing the engine uses, in one table. docs/state-machine.md carries
//! the same table (a test checks they agree), with the reasoning behind each value.

/// All durations are milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Constants {
    /// Title idle (and no visible output) this long ends a turn as done.
    pub settle_ms: u64,
    /// Title idle this long ends the turn even though output kept coming.
    pub settle_ceiling_ms: u64,
    /// No output bytes at all this long: the fallback asks the user to look.
    pub byte_quiet_ms: u64,
    /// Screen hash unchanged this long while bytes still arrive: same fallback.
    pub settled_screen_ms: u64,
    /// No new scrollback lines (after some arrived this turn) and no busy
    /// title this long: same fallback.
    pub scrollback_stable_ms: u64,
    /// No busy sign at all (busy title, Enter, hook or native working) this long: same fallback.
    pub absolute_ceiling_ms: u64,
    /// A hook's permission attention waits this long before the badge moves,
    /// so a request resolved by a rule or reviewer never rings.
    pub permission_debounce_ms: u64,
    /// Escape / Ctrl-C then the title going idle within this window is an interrupt.
    pub interrupt_title_window_ms: u64,
    /// Escape / Ctrl-C then this long without output is an interrupt.
    pub interrupt_quiet_grace_ms: u64,
    /// Enter, then visible output within this window, starts a turn (no hooks).
    pub submit_activity_window_ms: u64,
    /// A done followed by an attention within this window is a false done.
    pub false_done_window_ms: u64,
    /// A native `working` with no Enter first waits this long before it
    /// counts, so Codex's start-up working/idle pair is not a turn.
    pub native_hold_ms: u64,
    /// A command task (not an agent) with no output this long reads idle.
    pub output_quiet_ms: u64,
    /// A hook error this soon after the turn ended (native idle or done,
    /// hook done) corrects that end to the error.
    pub error_correction_ms: u64,
    /// Output this soon after a resize (any task) or a typed key other than
    /// Enter (a command or shell task) is the program redrawing or echoing,
    /// not work: it starts and resumes nothing.
    pub redraw_window_ms: u64,
}

impl Default for Constants {
    fn default() -> Self {
        Constants {
            settle_ms: 5_000,
            settle_ceiling_ms: 90_000,
            byte_quiet_ms: 12_000,
            settled_screen_ms: 20_000,
            scrollback_stable_ms: 60_000,
            absolute_ceiling_ms: 600_000,
            permission_debounce_ms: 1_000,
            interrupt_title_window_ms: 3_000,
            interrupt_quiet_grace_ms: 15_000,
            submit_activity_window_ms: 3_000,
            false_done_window_ms: 10_000,
            native_hold_ms: 1_000,
            output_quiet_ms: 2_000,
            error_correction_ms: 5_000,
            redraw_window_ms: 1_000,
        }
    }
}

impl Constants {
    /// `(name, value)` for every constant, in table order (docs and Inspector).
    /// Destructured without `..`, so a new constant that is not listed here
    /// (and so not checked against the docs) does not compile.
    pub fn table(&self) -> [(&'static str, u64); 15] {
        let Constants {
            settle_ms,
            settle_ceiling_ms,
            byte_quiet_ms,
            settled_screen_ms,
            scrollback_stable_ms,
            absolute_ceiling_ms,
            permission_debounce_ms,
            interrupt_title_window_ms,
            interrupt_quiet_grace_ms,
            submit_activity_window_ms,
            false_done_window_ms,
            native_hold_ms,
            output_quiet_ms,
            error_correction_ms,
            redraw_window_ms,
        } = *self;
        [
            ("settle_ms", settle_ms),
            ("settle_ceiling_ms", settle_ceiling_ms),
            ("byte_quiet_ms", byte_quiet_ms),
            ("settled_screen_ms", settled_screen_ms),
            ("scrollback_stable_ms", scrollback_stable_ms),
            ("absolute_ceiling_ms", absolute_ceiling_ms),
            ("permission_debounce_ms", permission_debounce_ms),
            ("interrupt_title_window_ms", interrupt_title_window_ms),
            ("interrupt_quiet_grace_ms", interrupt_quiet_grace_ms),
            ("submit_activity_window_ms", submit_activity_window_ms),
            ("native_hold_ms", native_hold_ms),
            ("false_done_window_ms", false_done_window_ms),
            ("output_quiet_ms", output_quiet_ms),
            ("error_correction_ms", error_correction_ms),
            ("redraw_window_ms", redraw_window_ms),
        ]
    }
}
