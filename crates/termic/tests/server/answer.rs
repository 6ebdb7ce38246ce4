//! One-tap answers (issue 30) through the real binary, with a claude-based
//! scripted agent: the dialog's choices are offered only while the agent's
//! own channel (a hook) says it waits and the dialog is on the screen;
//! `termic answer` sends nothing once the dialog went away, and nothing to
//! a task whose "dialog" is only printed text. What the task received is
//! recorded by the task itself (`cat > got.bin`), so "nothing was sent" is
//! proved, not assumed.

use std::time::Duration;

use serde_json::Value;

use termic::server::protocol::{Answered, Request, Response};

use crate::attach::streams::Conn;
use crate::harness::hook;
use crate::served::{text, Served};
use crate::wait::eventually_some;

const WITHIN: Duration = Duration::from_secs(30);

/// The task's only row, once `pred` holds for it.
fn row_until(s: &Served, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
    eventually_some(WITHIN, || s.ls().into_iter().next().filter(|r| pred(r)))
        .unwrap_or_else(|| panic!("the row never {what}: {:?}", s.ls()))
}

/// What the task read from its terminal, once it holds `want`: then it is
/// exactly `want`, or the test fails showing what else came.
fn received(s: &Served, want: &str) -> String {
    let path = s.f.work.join("got.bin");
    eventually_some(WITHIN, || {
        std::fs::read_to_string(&path)
            .ok()
            .filter(|got| got.contains(want))
    })
    .unwrap_or_else(|| panic!("the task never read {want:?}"))
}

/// After its dialog, the task records every byte it reads.
const RECORD_INPUT: &str = "stty raw -echo; exec cat > got.bin";

/// A permission the agent's hook announces over Claude's dialog as
/// termic-sim paints it; the dialog goes away when the test makes a file
/// `clear` (the task still needs you: only its screen changed).
fn announced_script() -> String {
    [
        hook("working", ""),
        "sleep 0.3".into(),
        "printf 'Do you want to create out.txt?\\r\\n > 1. Yes\\r\\n   2. No\\r\\n'".into(),
        hook("attention", ";kind=permission"),
        "while [ ! -e clear ]; do sleep 0.05; done".into(),
        "printf '\\033[2J\\033[Hthe dialog went away\\r\\n'".into(),
        RECORD_INPUT.into(),
    ]
    .join("; ")
}

#[test]
fn an_answer_after_the_dialog_went_away_sends_nothing() {
    let s = Served::new(&announced_script());
    s.expect(&["run", "fake", "--name", "t1", "--detach"], 0);
    // A protocol client's task list (the web page's) sees the choices come
    // and go with the dialog.
    let mut list = Conn::open(&s);
    list.send(&Request::Subscribe);
    assert!(matches!(list.read(), Response::Subscribed { .. }));
    let pushed = list.row_until("choices", |r| !r.choices.is_empty());
    assert_eq!(pushed.state, "needs_you");
    s.expect(&["wait", "t1", "--for", "needs_you", "--timeout", "30"], 0);

    // The hook said what is asked; the screen shows which choices.
    let row = row_until(&s, "offered choices", |r| r["choices"].is_array());
    assert_eq!(row["attention"]["kind"], "permission", "{row}");
    assert_eq!(row["attention"]["from_output"], false, "{row}");
    assert_eq!(
        row["choices"],
        serde_json::json!([
            {"id": "approve_once", "label": "Yes"},
            {"id": "deny", "label": "No"}
        ])
    );
    let listed = s.expect(&["answer", "t1"], 0);
    assert!(listed.starts_with("t1 needs you: permission\n"), "{listed}");
    assert!(
        listed.contains("  approve_once  Yes\n  deny          No\n"),
        "{listed}"
    );
    // An id the agent's dialog does not have is refused, whatever it says.
    let out = s.termic(&["answer", "t1", "Yes"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("Yes is not a choice this task offers"),
        "{}",
        text(&out.stderr)
    );

    // The dialog leaves the screen; the task still needs you.
    std::fs::write(s.f.work.join("clear"), "").unwrap();
    let row = row_until(&s, "lost its choices", |r| r.get("choices").is_none());
    assert_eq!(row["state"], "needs_you", "{row}");
    let pushed = list.row_until("no choices", |r| r.choices.is_empty());
    assert_eq!(pushed.state, "needs_you");
    // The request a protocol client sends, and the CLI's.
    let mut conn = Conn::open(&s);
    conn.send(&Request::Answer {
        task: "1".into(),
        choice: "approve_once".into(),
    });
    assert_eq!(conn.read(), Response::Answered(Answered::ScreenChanged));
    let out = s.expect(&["answer", "t1", "approve_once"], 3);
    assert!(
        out.contains("the screen changed, nothing was sent"),
        "{out}"
    );
    let listed = s.expect(&["answer", "t1"], 0);
    assert!(listed.contains("answer on its screen"), "{listed}");

    // Proof that nothing was sent: the next bytes the task reads are the
    // ones typed after the refused answer, with nothing before them.
    s.expect(&["send", "t1", "Z"], 0);
    assert_eq!(received(&s, "Z"), "Z");
}

/// A "dialog" the program prints by itself, with no hook saying it waits:
/// the screen rule makes the task need you (the user should look), but
/// printed text never makes it answerable.
fn printed_script() -> String {
    [
        "read line".to_string(),
        "printf 'Do you want to create out.txt?\\r\\n ❯ 1. Yes\\r\\n   2. No\\r\\n'".into(),
        RECORD_INPUT.into(),
    ]
    .join("; ")
}

#[test]
fn a_dialog_only_printed_offers_no_choice_and_takes_no_answer() {
    let s = Served::new(&printed_script());
    s.expect(&["run", "fake", "--name", "t1", "--detach"], 0);
    s.expect(&["send", "t1", "go", "--enter"], 0);
    s.expect(&["wait", "t1", "--for", "needs_you", "--timeout", "30"], 0);
    let row = s.ls().remove(0);
    assert_eq!(row["attention"]["kind"], "permission", "{row}");
    assert!(row.get("choices").is_none(), "{row}");
    let listed = s.expect(&["answer", "t1"], 0);
    assert!(
        listed.contains("termic cannot answer it for you"),
        "{listed}"
    );
    let out = s.termic(&["answer", "t1", "approve_once"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    s.expect(&["send", "t1", "Z"], 0);
    assert_eq!(received(&s, "Z"), "Z");
}

/// Claude Code's question (AskUserQuestion) as 2.1.332 paints it
/// (crates/termic-signal/tests/screens/claude-2.1.332-question.txt), the
/// hook saying a question waits.
fn question_script() -> String {
    [
        hook("working", ""),
        "sleep 0.3".into(),
        "printf ' ☐ Color\\r\\n\\r\\nWhich color do you like?\\r\\n\\r\\n❯ 1. Red\\r\\n     Pick Red.\\r\\n  \
2. Blue\\r\\n     Pick Blue.\\r\\n  3. Type something.\\r\\n────────\\r\\n  4. Chat about this\\r\\n\\r\\n\
Enter to select · ↑/↓ to navigate · Esc to cancel\\r\\n'"
            .into(),
        hook("attention", ";kind=question"),
        RECORD_INPUT.into(),
    ]
    .join("; ")
}

/// A question's options are offered (not its free-text entry), and
/// answering option 2 types what Claude's list takes (measured on 2.1.332:
/// Down, then Enter), exactly once.
#[test]
fn a_question_option_is_answered_with_the_lists_arrow_and_enter() {
    let s = Served::new(&question_script());
    s.expect(&["run", "fake", "--name", "q", "--detach"], 0);
    let row = row_until(&s, "offered choices", |r| r["choices"].is_array());
    assert_eq!(row["attention"]["kind"], "question", "{row}");
    assert_eq!(
        row["choices"],
        serde_json::json!([
            {"id": "option_1", "label": "Red"},
            {"id": "option_2", "label": "Blue"}
        ])
    );
    let listed = s.expect(&["answer", "q"], 0);
    assert!(listed.contains("  option_2  Blue\n"), "{listed}");
    let out = s.expect(&["answer", "q", "option_2"], 0);
    assert_eq!(out.trim(), "sent option_2");
    assert_eq!(received(&s, "\r"), "\x1b[B\r");
}

/// opencode 1.18.33's permission prompt as measured (2026-12-07): the
/// options row on rgb(30,30,30), the selected option's box on
/// rgb(245,167,66); `selected` paints Confirm's box on that colour in the
/// "Always allow" prompt, else both its options alike.
const GREY: &str = "\\033[48;2;30;30;30m";
const ORANGE: &str = "\\033[48;2;245;167;66m";

fn opencode_prompt() -> String {
    format!(
        "printf '\\033[2J\\033[H{GREY}  ┃  △ Permission required\\033[0m\\r\\n{GREY}  ┃\\033[0m\\r\\n\
{GREY}  ┃  {ORANGE} Allow once {GREY}  Allow always   Reject   ⇆ select  enter confirm\\033[0m\\r\\n'"
    )
}

fn always_prompt(selected: bool) -> String {
    let confirm = if selected { ORANGE } else { GREY };
    format!(
        "printf '\\033[2J\\033[H{GREY}  ┃  △ Always allow\\033[0m\\r\\n{GREY}  ┃\\033[0m\\r\\n\
{GREY}  ┃  {confirm} Confirm {GREY}  Cancel   ⇆ select  enter confirm\\033[0m\\r\\n'"
    )
}

/// An opencode-based task: its permission prompt; the first answer's keys
/// open a second prompt NOT as measured (both options alike), then it
/// reads one byte; then the prompt again, and this time the second prompt
/// as measured (Confirm selected), then it records what it reads.
fn opencode_always_script() -> String {
    [
        hook("working", ""),
        "sleep 0.3".into(),
        opencode_prompt(),
        hook("attention", ";kind=permission"),
        "stty raw -echo".into(),
        "head -c 4 > first.bin".into(),
        always_prompt(false),
        "head -c 1 > between.bin".into(),
        hook("working", ""),
        opencode_prompt(),
        hook("attention", ";kind=permission"),
        "head -c 4 > second.bin".into(),
        always_prompt(true),
        "exec cat > got.bin".into(),
    ]
    .join("; ")
}

/// opencode's approve_always is two steps (2026-12-07): Right and Enter,
/// then Enter on the "Always allow" prompt only when it shows Confirm on
/// the first prompt's selected colour. A second prompt not as measured
/// gets nothing more (`partly_sent`, exit 3: the task read the first keys
/// and then only what the test typed); the measured one gets Enter.
#[test]
fn opencode_allow_always_sends_its_second_step_only_on_the_measured_prompt() {
    let s = Served::new("true");
    let escaped = opencode_always_script()
        .replace('\\', "\\\\")
        .replace('"', "\\\"");
    s.f.config(&format!(
        "[agents.fake]\nbase = \"opencode\"\ncommand = [\"sh\", \"-c\", \"{escaped}\"]\n"
    ));
    s.expect(&["run", "fake", "--name", "oc", "--detach"], 0);
    let offers = |r: &Value| {
        r["choices"]
            .as_array()
            .is_some_and(|c| c.iter().any(|c| c["id"] == "approve_always"))
    };
    let row = row_until(&s, "offered approve_always", offers);
    assert_eq!(
        row["choices"],
        serde_json::json!([
            {"id": "approve_once", "label": "Allow once"},
            {"id": "approve_always", "label": "Allow always"},
            {"id": "deny", "label": "Reject"}
        ])
    );
    let out = s.expect(&["answer", "oc", "approve_always"], 3);
    assert!(
        out.contains("sent the first step of approve_always")
            && out.contains("nothing more was sent"),
        "{out}"
    );
    let read = |name: &str| {
        let path = s.f.work.join(name);
        eventually_some(WITHIN, || {
            std::fs::read(&path).ok().filter(|b| !b.is_empty())
        })
        .unwrap_or_else(|| panic!("the task never wrote {name}"))
    };
    assert_eq!(read("first.bin"), b"\x1b[C\r");
    // Nothing more came: the next byte the task reads is the test's.
    s.expect(&["send", "oc", "Z"], 0);
    assert_eq!(read("between.bin"), b"Z");

    // The prompt again; this time the second prompt is as measured.
    row_until(&s, "offered approve_always again", offers);
    let out = s.expect(&["answer", "oc", "approve_always"], 0);
    assert_eq!(out.trim(), "sent approve_always");
    assert_eq!(read("second.bin"), b"\x1b[C\r");
    assert_eq!(received(&s, "\r"), "\r");
}
