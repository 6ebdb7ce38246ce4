//! Claude Code. Measured on 2.1.332 (real-agents README) and 2.1.250 (plan).

use super::{
    AgentProfile, Dialog, DialogChoice, ErrorText, Keys, NativeStatus, NotifyIgnore, Region,
    ScreenImplies, ScreenRule, TitleRule, TitleState,
};
use crate::stop::StopReason;

pub(super) static PROFILE: AgentProfile = AgentProfile::new(
    "claude",
    &["claude-code"],
    "Claude Code 2.1.332 (titles, 7501), 2.1.250 (notify filter)",
    &[
        TitleRule {
            id: "claude.busy-glyph",
            // U+25D0..U+25D3, the quarter-circle spinner family.
            pattern: r"^[\x{25D0}-\x{25D3}] ",
            state: TitleState::Busy,
            why:
                "2.1.332 alternates '◐ Claude Code' and '◑ Claude Code' every 960 ms while a turn \
                  runs (OSC 0 only); the other two frames of the family are accepted too. After a \
                  focus-out the glyph stops alternating but stays a busy glyph.",
        },
        TitleRule {
            id: "claude.idle-glyph",
            pattern: r"^\x{2733}( |$)",
            state: TitleState::Idle,
            why: "'✳ Claude Code' (U+2733) at the prompt. It also shows while blocked on a \
                  permission prompt (painted ~25 ms before PermissionRequest fires), so idle here \
                  is never proof of done: hooks or OSC 7501 correct it.",
        },
        TitleRule {
            id: "claude.plain-title",
            pattern: r"^Claude Code$",
            state: TitleState::Unknown,
            why: "once termic answers the OSC 7501 probe, 2.1.332 drops the glyph and the title \
                  says nothing about state; OSC 7501 carries it instead. Not idle.",
        },
    ],
    &[NotifyIgnore {
        id: "claude.waiting-nudge",
        contains: "is waiting for your input",
        why: "Claude's idle nudge ('Claude is waiting for your input'), sent seconds after a turn \
              or a prompt, is not a new block. termic's own attention message never contains it.",
    }],
)
// 2.1.332 sends `OSC 7501 ; ?` at start-up and reports its state only once
// the terminal answered; before that any 7501 in its output is printed text.
.speaks_native(NativeStatus::AfterProbe)
.native_clear_continues(
    "Claude Code 2.1.332 reports `working` then `clear` in the same write when a turn goes on \
     after its background shell ended, and `done` ~400 ms later (measured 2026-12-06); its \
     Escape interrupt is `idle`, so `clear` mid-turn is not an interrupt",
)
.native_idle_is_no_turn_without_a_key(
    "Claude Code 2.1.332 reports `working` ~200 ms after Enter on `/clear`, then `idle` ~400 ms \
     later with no done (measured 2026-12-06): a local command, not an interrupted turn; its \
     interrupts (Escape, Ctrl-C) report the same `idle` right after the key",
)
.with_screen_rules(SCREEN_RULES)
.with_dialogs(DIALOGS)
.with_error_text(ERROR_TEXT)
// 2.1.332 on a 401 reports `state=blocked:kind=auth` ("Invalid API key ·
// Fix external API key") where every other API error is `state=error`; its
// StopFailure says authentication_failed. The turn is over, not waiting.
.with_error_kinds(&[("auth", StopReason::AuthFailed)])
.with_continue_prompt("continue")
// 2.1.332's dialogs drop a key that comes within 150 ms of their first
// paint (its `fg=150` guard, read in the binary; each dropped key holds it
// 150 ms more). A multi-select's first Enter sent as soon as termic saw
// the list was lost 1 run of 2, at 300 ms it was taken 2 of 2 (2026-12-07).
.with_dialog_refuses_keys_ms(150);

/// Claude Code's dialogs as painted by 2.1.332 with hooks off and no probe
/// reply (tests/real_agents/tasks.rs measures them). Its title shows the idle glyph
/// while a dialog waits, so without these the settle timer would call the
/// wait a done.
static SCREEN_RULES: &[ScreenRule] = &[
    ScreenRule {
        id: "claude.permission-dialog",
        region: Region::LastRows(12),
        pattern: r"(?m)^ *Do you want to [^\n]*\?\n *(❯ *)?1\. Yes\b",
        implies: ScreenImplies::NeedsYou { kind: "permission" },
        measured_on: "Claude Code 2.1.332",
        why: "' Do you want to create out.txt?' over ' ❯ 1. Yes', '2. Yes, and ...', '3. No' \
              and ' Esc to cancel · Tab to amend' at the bottom while a tool waits for approval \
              (the same question form for edits and commands).",
    },
    ScreenRule {
        id: "claude.question-dialog",
        region: Region::LastRows(2),
        pattern: r"(?m)^ *Enter to select · (↑/↓|Tab/Arrow keys) to navigate · Esc to cancel$",
        implies: ScreenImplies::NeedsYou { kind: "question" },
        measured_on: "Claude Code 2.1.332",
        why: "AskUserQuestion paints the question, numbered choices, and this footer as the \
              last row while it waits for an answer; with several questions the footer says \
              'Tab/Arrow keys to navigate' under tabs '←  ☐ Color  ☐ Size  ✔ Submit  →' \
              (measured 2026-12-06).",
    },
    ScreenRule {
        id: "claude.question-review",
        region: Region::LastRows(2),
        pattern: r"(?m)^ *(❯ *)?1\. Submit answers\n *2\. Cancel$",
        implies: ScreenImplies::NeedsYou { kind: "question" },
        measured_on: "Claude Code 2.1.332",
        why: "AskUserQuestion with several questions ends on a review ('Review your answers', \
              each question with its answer) over the choices '❯ 1. Submit answers' and \
              '2. Cancel', with no footer; it waits for Enter (measured 2026-12-06).",
    },
    ScreenRule {
        id: "claude.plan-dialog",
        region: Region::LastRows(12),
        pattern: PLAN_PATTERN,
        implies: ScreenImplies::NeedsYou { kind: "plan" },
        measured_on: "Claude Code 2.1.332",
        why: PLAN_WHY,
    },
    ScreenRule {
        id: "claude.esc-to-interrupt",
        region: Region::LastRows(1),
        pattern: r"· esc to interrupt\b",
        implies: ScreenImplies::NotDone,
        measured_on: "Claude Code 2.1.332",
        why: "the status row under the prompt says '⏸ manual mode on · esc to interrupt' while a \
              turn runs and '? for shortcuts' once it ended: a guessed done waits.",
    },
    ScreenRule {
        id: "claude.background-shell",
        region: Region::LastRows(1),
        pattern: r"· \d+ shells? ·",
        implies: ScreenImplies::StillWorking,
        measured_on: "Claude Code 2.1.332",
        why: "the status row under the prompt says '⏸ manual mode on · 1 shell · ← for agents · \
              ↓ to manage' while a shell the turn started in the background still runs (its \
              answer reads '· 1 shell still running'); Claude goes on with the turn when it \
              ends, so a guessed done waits (measured 2026-12-06).",
    },
    ScreenRule {
        id: "claude.api-error",
        region: Region::LastRows(10),
        pattern: API_ERROR_PATTERN,
        implies: ScreenImplies::Stopped,
        measured_on: "Claude Code 2.1.332",
        why: "after it gives up on a 429, 500 or 529: '● API Error: <status or Request rejected \
              (429)> <provider message>' (wrapped rows indented two spaces) as the last \
              transcript entry, then its own prompt box holding the placeholder 'Resend your \
              message to try again'. The placeholder is inside the box, where no printed file \
              can reach, and typing replaces it.",
    },
    ScreenRule {
        id: "claude.auth-error",
        region: Region::LastRows(8),
        pattern: AUTH_ERROR_PATTERN,
        implies: ScreenImplies::Stopped,
        measured_on: "Claude Code 2.1.332",
        why: "after a 401: '⎿  Invalid API key · Fix external API key' as the last transcript \
              entry, then its prompt box holding the placeholder 'Once fixed, resend your \
              message'.",
    },
];

/// Claude Code's dialogs and their keys (issue 30). Its permission list
/// picks the option whose number is typed, at once (no Enter): `1`
/// approves, `2` approves and stops asking, the `No` option's number
/// declines (measured on 2.1.332 and termic-sim's claude). The first
/// option is the highlighted one (`❯`; the simulator paints `>`). Its
/// question (AskUserQuestion) and plan approval (ExitPlanMode) lists take
/// no typed number (measured 2026-12-06: a number, with or without Enter,
/// did not answer the question on 2.1.332): Down or Up from the `❯` row to
/// the option, then Enter (measured 2026-12-06 on 2.1.332 against the fake
/// model, tests/real_agents/dialogs.rs; the screens are
/// crates/termic-signal/tests/screens/claude-2.1.332-*.txt).
static DIALOGS: &[Dialog] = &[PERMISSION, QUESTION_MULTI, QUESTION, QUESTION_REVIEW, PLAN];

/// The `❯` row of a question's or a plan's list: the highlighted option.
const HIGHLIGHTED: &str = r"^ *❯ *(?P<n>[1-9])\. ";

/// The options of Claude's selection lists (question and plan): picked
/// with the arrow keys from the highlighted row, then Enter; a free-text
/// row, "Chat about this" and checkbox rows are not offered.
const LIST_OPTIONS: &[DialogChoice] = &[DialogChoice {
    id: "option",
    row: r"^ *(?:❯ *)?(?P<n>[1-9])\. (?P<label>\S.*)$",
    numbered: true,
    keys: Keys::Select {
        highlighted: HIGHLIGHTED,
        not_offered: &["Type something", "Chat about this", "["],
    },
}];

/// AskUserQuestion: "Which color do you like?" over "❯ 1. Red" (each
/// option may have a description row under it), "3. Type something."
/// (a free-text answer: not offered, it needs typing) and, under a rule,
/// "4. Chat about this" (not an answer: not offered), with the footer
/// "Enter to select · ↑/↓ to navigate · Esc to cancel" (several
/// questions: "Tab/Arrow keys to navigate"; an option picked moves to the
/// next question, and the review's "Submit answers" is a list too).
const QUESTION: Dialog = Dialog {
    id: "claude.question",
    kind: "question",
    region: Region::LastRows(16),
    pattern: r"(?m)^ *Enter to select · (↑/↓|Tab/Arrow keys) to navigate · Esc to cancel$",
    choices: LIST_OPTIONS,
    measured_on: "Claude Code 2.1.332",
    why: "AskUserQuestion's list: Down from '❯ 1. Red' to '2. Blue' and Enter answered Blue \
          (the tool result said so); a typed digit did not answer it.",
};

/// The `❯` row of a multi-select question: an option, or its Submit row.
const HIGHLIGHTED_MULTI: &str = r"^ *❯ +(?:(?P<n>[1-9])\. |Submit$)";

/// AskUserQuestion with `multiSelect: true`, as 2.1.332 paints it
/// (measured 2026-12-06 against the fake model, the screens are
/// tests/screens/claude-2.1.332-multi-select*.txt): the tab row
/// '←  ☒ Toppings  ✔ Submit  →', the question, '❯ 1. [ ] Cheese' (a
/// description row under each), '4. [ ] Type something', an unnumbered
/// '   Submit' row, a rule, '5. Chat about this' and the footer (with
/// '· ctrl+g to edit in Vim' while 'Type something' is highlighted). Enter
/// on an option toggles its box (`[ ]` and `[✔]`) and keeps the list; Enter
/// on Submit opens the review ([`QUESTION_REVIEW`]). Each box is a choice
/// (`toggle_<n>`, its label with the box as painted, so a client shows
/// whether it is ticked), and Submit is one: the arrows from the `❯` row,
/// then Enter, as for the other lists.
const QUESTION_MULTI: Dialog = Dialog {
    id: "claude.question-multi",
    kind: "question",
    region: Region::LastRows(24),
    pattern: r"(?ms)^ *(?:❯ *)?1\. \[[ ✔]\] .*^ *Enter to select · [^\n]*Esc to cancel$",
    choices: &[
        DialogChoice {
            id: "toggle",
            row: r"^ *(?:❯ *)?(?P<n>[1-9])\. (?P<label>\[[ ✔]\] \S.*)$",
            numbered: true,
            keys: Keys::Select {
                highlighted: HIGHLIGHTED_MULTI,
                not_offered: &["[ ] Type something", "[✔] Type something"],
            },
        },
        DialogChoice {
            id: "submit",
            row: r"^ *(?:❯)? +(?P<label>Submit)$",
            numbered: false,
            keys: Keys::Select {
                highlighted: HIGHLIGHTED_MULTI,
                not_offered: &[],
            },
        },
    ],
    measured_on: "Claude Code 2.1.332",
    why: "Enter on '❯ 1. [ ] Cheese' ticked it ('[✔] Cheese'), Down and Enter ticked Olives, \
          Down to Submit and Enter opened the review, whose 'Submit answers' sent 'Cheese, \
          Olives' as the tool result.",
};

/// The review AskUserQuestion ends on after a multi-select or several
/// questions: 'Review your answers', each question with its answer, then
/// '❯ 1. Submit answers' and '2. Cancel' (no footer), picked like the
/// other lists.
const QUESTION_REVIEW: Dialog = Dialog {
    id: "claude.question-review",
    kind: "question",
    region: Region::LastRows(3),
    pattern: r"(?m)^ *(?:❯ *)?1\. Submit answers\n *(?:❯ *)?2\. Cancel$",
    choices: LIST_OPTIONS,
    measured_on: "Claude Code 2.1.332",
    why: "Enter on '❯ 1. Submit answers' submitted the answers (the tool result carried them).",
};

/// ExitPlanMode: "Exit plan mode?", "Claude wants to exit plan mode",
/// "❯ 1. Yes, and switch to default (ask each time) for this session",
/// "2. No" (other versions offer more Yes rows and "No, keep planning").
const PLAN: Dialog = Dialog {
    id: "claude.plan",
    kind: "plan",
    region: Region::LastRows(12),
    pattern: PLAN_PATTERN,
    choices: LIST_OPTIONS,
    measured_on: "Claude Code 2.1.332",
    why: "ExitPlanMode's list: Enter on '❯ 1. Yes, and switch to default ...' approved the \
          plan (the tool result said so).",
};

const PERMISSION: Dialog = Dialog {
    id: "claude.permission",
    kind: "permission",
    region: Region::LastRows(12),
    pattern: r"(?m)^ *Do you want to [^\n]*\?\n *([❯>] *)?1\. Yes\b",
    choices: &[
        DialogChoice {
            id: "approve_once",
            row: r"^ *(?:[❯>] *)?(?P<n>1)\. (?P<label>Yes\b.*)$",
            numbered: false,
            keys: Keys::Number,
        },
        DialogChoice {
            id: "approve_always",
            row: r"^ *(?:[❯>] *)?(?P<n>2)\. (?P<label>Yes, .*)$",
            numbered: false,
            keys: Keys::Number,
        },
        DialogChoice {
            id: "deny",
            row: r"^ *(?:[❯>] *)?(?P<n>[2-9])\. (?P<label>No\b.*)$",
            numbered: false,
            keys: Keys::Number,
        },
    ],
    measured_on: "Claude Code 2.1.332",
    why: "' Do you want to create out.txt?' over ' ❯ 1. Yes', '2. Yes, allow all edits \
              during this session (shift+tab)' and '3. No, and tell Claude what to do \
              differently (esc)'; a command's dialog says 'Yes, and don't ask again for ...'.",
};

/// The error row (and up to three wrapped rows) right above the prompt box
/// `───` / `❯ Resend your message to try again` / `───`, then at most two
/// status rows: nothing else may sit between them or below, but the
/// right-aligned `◐ medium · /effort` hint 2.1.332 shows for the first ~5 s
/// of a session (measured: a 401 is painted under it).
const API_ERROR_PATTERN: &str = r"(?m)^●[ \x{A0}]API Error: [^\n]*(\n  [^\n]*){0,3}(\n {20,}[^\n]*/effort)?\n *─{10,}[^\n]*\n❯[ \x{A0}]Resend your message to try again\n *─{10,}[^\n]*(\n[^\n]*){0,2}\z";
const AUTH_ERROR_PATTERN: &str = r"(?m)^ *⎿[ \x{A0}]+Invalid API key[^\n]*(\n {20,}[^\n]*/effort)?\n *─{10,}[^\n]*\n❯[ \x{A0}]Once fixed, resend your message\n *─{10,}[^\n]*(\n[^\n]*){0,2}\z";

/// ExitPlanMode: 2.1.332 asks "Exit plan mode?" ("Would you like to
/// proceed?" is the older form of the same dialog, kept for it).
const PLAN_PATTERN: &str =
    r"(?s)(Exit plan mode\?|Would you like to proceed\?)\n(.*\n)? *(❯ *)?1\. Yes\b";
const PLAN_WHY: &str =
    "in plan mode, ExitPlanMode paints '   Exit plan mode?', 'Claude wants to exit \
                        plan mode', '❯ 1. Yes, and switch to default (ask each time) for this \
                        session', '2. No' and waits for the choice.";

/// The `msg=` of 2.1.332's `state=error` after it gave up (measured with
/// termic-fakemodel's error-429/500/529 scenarios; the same words are on
/// its screen after a bullet).
static ERROR_TEXT: &[ErrorText] = &[
    ErrorText {
        id: "claude.error-429",
        contains: "(429)",
        reason: StopReason::RateLimited,
        why: "'API Error: Request rejected (429) · <provider message>' after 10 retries \
              (~3 minutes with the default CLAUDE_CODE_MAX_RETRIES).",
    },
    ErrorText {
        id: "claude.usage-limit",
        contains: "limit reached",
        reason: StopReason::RateLimited,
        why: "a subscription's usage limit: '5-hour limit reached \u{2219} resets 3pm' (the \
              wording users report; not reproduced offline against an API key, 2026-12-06).",
    },
    ErrorText {
        id: "claude.error-529",
        contains: "529 Overloaded",
        reason: StopReason::Overloaded,
        why: "'API Error: Repeated 529 Overloaded errors. The API is at capacity ...'.",
    },
    ErrorText {
        id: "claude.error-529-once",
        contains: "API Error: 529",
        reason: StopReason::Overloaded,
        why: "a single 529 with CLAUDE_CODE_MAX_RETRIES=0: StopFailure says server_error, the \
              native message keeps the status.",
    },
    ErrorText {
        id: "claude.error-overloaded",
        contains: "Overloaded",
        reason: StopReason::Overloaded,
        why: "the same family worded without the status.",
    },
    ErrorText {
        id: "claude.error-5xx",
        contains: "API Error: 5",
        reason: StopReason::ServerError,
        why: "'API Error: 500 <provider message> This is a server-side issue ...'.",
    },
    ErrorText {
        id: "claude.error-auth",
        contains: "Invalid API key",
        reason: StopReason::AuthFailed,
        why:
            "a 401 is reported as blocked kind=auth with 'Invalid API key · Fix external API key'.",
    },
];

#[cfg(test)]
mod tests {

    use super::super::dialog::{choice, offered_on};

    /// Each choice Claude's dialog on `rows` offers: id, label, keys.
    fn offered(kind: &str, rows: &[&str]) -> Vec<(String, String, String)> {
        offered_on("claude", kind, rows)
    }

    /// 2.1.332's dialogs: the recording in tests/traces/claude-permission-
    /// hooks.cast (two options), tests/runtime/screen_rules.rs' three, and
    /// what termic-sim's claude paints (`>` for `❯`).
    #[test]
    fn the_permission_dialog_offers_what_it_shows() {
        let recorded = [
            "● Write(out.txt)",
            " Do you want to create out.txt?",
            " ❯ 1. Yes",
            "   2. No",
            "",
            " Esc to cancel · Tab to amend",
        ];
        assert_eq!(
            offered("permission", &recorded),
            [
                choice("approve_once", "Yes", "1"),
                choice("deny", "No", "2")
            ]
        );
        let three = [
            " Do you want to create out.txt?",
            " ❯ 1. Yes",
            "   2. Yes, and switch to accept edits",
            "   3. No",
            " Esc to cancel · Tab to amend",
        ];
        assert_eq!(
            offered("permission", &three),
            [
                choice("approve_once", "Yes", "1"),
                choice("approve_always", "Yes, and switch to accept edits", "2"),
                choice("deny", "No", "3"),
            ]
        );
        let simulated = [
            "Do you want to create out.txt?",
            " > 1. Yes",
            "   2. Yes, allow all edits during this session",
            "   3. No, and tell Claude what to do differently (esc)",
        ];
        let ids: Vec<String> = offered("permission", &simulated)
            .into_iter()
            .map(|c| c.0)
            .collect();
        assert_eq!(ids, ["approve_once", "approve_always", "deny"]);
        // Numbered rows without the question are a list, not the dialog.
        assert!(offered("permission", &["1. Yes", "2. No"]).is_empty());
        // The dialog for another kind is not read as this one.
        assert!(offered("question", &three).is_empty());
    }

    /// The question dialog as 2.1.332 painted it (captured from the real
    /// binary against the fake model): Red and Blue, with the arrows from
    /// the highlighted Red; "Type something." and "Chat about this" are not
    /// answers termic can give.
    #[test]
    fn the_question_dialog_offers_its_options_with_arrow_keys() {
        let screen: Vec<&str> = include_str!("../../tests/screens/claude-2.1.332-question.txt")
            .lines()
            .collect();
        assert_eq!(
            offered("question", &screen),
            [
                choice("option_1", "Red", "\r"),
                choice("option_2", "Blue", "\x1b[B\r"),
            ]
        );
        // The highlight moved to Blue: Red is Up, Blue is Enter.
        let moved: Vec<String> = screen
            .iter()
            .map(|r| match r.trim_start() {
                "❯ 1. Red" => "  1. Red".to_string(),
                "2. Blue" => "❯ 2. Blue".to_string(),
                _ => r.to_string(),
            })
            .collect();
        let moved: Vec<&str> = moved.iter().map(String::as_str).collect();
        assert_eq!(
            offered("question", &moved),
            [
                choice("option_1", "Red", "\x1b[A\r"),
                choice("option_2", "Blue", "\r"),
            ]
        );
        // Not the permission or plan dialog.
        assert!(offered("permission", &screen).is_empty());
        assert!(offered("plan", &screen).is_empty());
    }

    fn screen(text: &str) -> Vec<&str> {
        text.lines().collect()
    }

    /// The multi-select question as 2.1.332 painted it (captured from the
    /// real binary): each box a toggle with its state in the label, Submit
    /// after the last numbered row; not the free-text row, not "Chat about
    /// this"; the single-select reading offers nothing here.
    #[test]
    fn the_multi_select_question_offers_toggles_and_submit() {
        let ticked = screen(include_str!(
            "../../tests/screens/claude-2.1.332-multi-select.txt"
        ));
        // The highlight on Submit: Up to each box, Enter on Submit.
        let on_submit = screen(include_str!(
            "../../tests/screens/claude-2.1.332-multi-select-submit.txt"
        ));
        let up = |n: usize| format!("{}\r", "\x1b[A".repeat(n));
        let down = |n: usize| format!("{}\r", "\x1b[B".repeat(n));
        let expected = [
            (
                &ticked,
                ["[✔] Cheese", "[ ] Olives", "[ ] Basil"],
                [up(1), down(0), down(1), down(3)],
            ),
            (
                &on_submit,
                ["[✔] Cheese", "[✔] Olives", "[ ] Basil"],
                [up(4), up(3), up(2), down(0)],
            ),
        ];
        for (rows, labels, keys) in expected {
            let ids = ["toggle_1", "toggle_2", "toggle_3", "submit"];
            let labels = labels.iter().chain(&["Submit"]);
            let want: Vec<_> = ids
                .iter()
                .zip(labels)
                .zip(&keys)
                .map(|((id, label), keys)| choice(id, label, keys))
                .collect();
            assert_eq!(offered("question", rows), want);
        }
        assert!(offered("permission", &ticked).is_empty());
        assert!(offered("plan", &ticked).is_empty());
        // The single-select question is still read as before.
        let single = screen(include_str!(
            "../../tests/screens/claude-2.1.332-question.txt"
        ));
        assert!(offered("question", &single)
            .iter()
            .all(|c| c.0.starts_with("option_")));
    }

    /// The review after Submit: its two options, Enter on the highlighted
    /// "Submit answers".
    #[test]
    fn the_question_review_offers_submit_and_cancel() {
        let review = screen(include_str!(
            "../../tests/screens/claude-2.1.332-question-review.txt"
        ));
        assert_eq!(
            offered("question", &review),
            [
                choice("option_1", "Submit answers", "\r"),
                choice("option_2", "Cancel", "\x1b[B\r"),
            ]
        );
    }

    /// The plan dialog as 2.1.332 painted it (captured from the real
    /// binary): its two options, Enter on the highlighted Yes.
    #[test]
    fn the_plan_dialog_offers_its_options_with_arrow_keys() {
        let screen: Vec<&str> = include_str!("../../tests/screens/claude-2.1.332-plan.txt")
            .lines()
            .collect();
        assert_eq!(
            offered("plan", &screen),
            [
                choice(
                    "option_1",
                    "Yes, and switch to default (ask each time) for this session",
                    "\r"
                ),
                choice("option_2", "No", "\x1b[B\r"),
            ]
        );
        assert!(offered("question", &screen).is_empty());
        // A list with no highlight (not the live dialog) offers nothing.
        let dim: Vec<String> = screen.iter().map(|r| r.replace('❯', " ")).collect();
        let dim: Vec<&str> = dim.iter().map(String::as_str).collect();
        assert!(offered("plan", &dim).is_empty());
    }
}
