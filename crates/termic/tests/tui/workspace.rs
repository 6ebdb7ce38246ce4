//! End-to-end: the workspace for daily use through the real `termic`
//! binary in a PTY: the sidebar with many tasks at 80x24, copy mode
//! (search, select, copy by OSC 52, wheel and drag), rename, restart and
//! the details panel.

use crate::harness;

use crate::git_support;

use git_support::git;
use harness::{hook, Fixture, Termic};

/// The sidebar part of a line at 80 columns (22 columns, border included).
fn side(line: &str) -> String {
    line.chars()
        .take(21)
        .collect::<String>()
        .trim_end()
        .to_string()
}

fn sidebar_lines(screen: &str) -> Vec<String> {
    screen.lines().map(side).collect()
}

/// A sidebar title row: the task's number (right-aligned), the unseen
/// mark, then the name.
fn entry(line: &str, number: u32, name: &str) -> bool {
    let rest = line.trim_start();
    let Some(rest) = rest.strip_prefix(&number.to_string()) else {
        return false;
    };
    let mut c = rest.chars();
    matches!(c.next(), Some(' ' | '*')) && c.as_str().starts_with(&format!("{name} "))
}

/// Each start counts itself in `starts` (in the work dir); starts 1, 2
/// and 14 need you, the others are done.
fn counting_agent() -> String {
    [
        "n=$(cat starts 2>/dev/null || echo 0)".to_string(),
        "n=$((n+1))".into(),
        "echo $n > starts".into(),
        format!(
            "case $n in 1|2|14) {} ;; *) {} ;; esac",
            hook("attention", ""),
            hook("done", "")
        ),
        "echo task $n up".into(),
        "sleep 600".into(),
    ]
    .join("; ")
}

#[test]
fn fourteen_tasks_at_80x24_are_marked_and_each_reachable_by_key() {
    let f = Fixture::new();
    f.fake_sh_agent(&counting_agent());
    let mut t = Termic::start(&f, &["run", "fake", "--name", "t1"]);
    t.wait_text("task 1 up");
    t.resize(24, 80);
    for k in 2..=14 {
        t.prefix(b"n");
        t.wait_text("New task");
        t.send(b"\t");
        t.send(format!("t{k}").as_bytes());
        t.send(b"\r");
        t.wait_text(&format!("task {k} up"));
    }
    // t14 is focused: tasks 1 to 4 are above, two of them need you.
    let s = t.wait_for("the upper marker", |s| {
        sidebar_lines(s).iter().any(|l| l == "↑ 4 more, 2 need you")
    });
    let lines = sidebar_lines(&s);
    // Labelled with its number, the one `termic ls` lists.
    assert!(lines.iter().any(|l| entry(l, 14, "t14")), "{s}");
    assert!(!lines.iter().any(|l| l.starts_with('↓')), "{s}");

    // `'` then a letter reaches task 10 and beyond.
    t.prefix(b"'a");
    t.wait_text("task 10 up");
    t.prefix(b"'d");
    t.wait_text("task 13 up");
    // Back to task 1: now t14, which needs you, is hidden below and named.
    t.prefix(b"1");
    let s = t.wait_for("the lower marker", |s| {
        sidebar_lines(s)
            .iter()
            .any(|l| l == "↓ 4 more, 1 needs you")
    });
    assert!(s.contains("task 1 up"), "{s}");
    assert!(!sidebar_lines(&s).iter().any(|l| l.starts_with('↑')), "{s}");

    // Needs you first: t1, t2, t14 lead the list and keep their numbers
    // and keys (issue 28: the key follows the task, not the row).
    t.prefix(b"!");
    // Title rows are every other line under the title.
    let first_rows = |s: &str| -> Vec<String> {
        sidebar_lines(s)
            .into_iter()
            .skip(1)
            .step_by(2)
            .take(3)
            .collect()
    };
    let s = t.wait_for("needs you first", |s| {
        first_rows(s).get(2).is_some_and(|l| entry(l, 14, "t14"))
    });
    let rows = first_rows(&s);
    assert!(entry(&rows[0], 1, "t1"), "{s}");
    assert!(entry(&rows[1], 2, "t2"), "{s}");
    // Key 3 is task 3 (shown further down), not the third row.
    t.prefix(b"3");
    t.wait_text("task 3 up");
    t.prefix(b"'e");
    t.wait_text("task 14 up");

    // Narrower in three steps (22, 18, 16 columns): badges only.
    for width in [18, 16] {
        t.prefix(b"<");
        t.wait_for(&format!("a sidebar {width} wide"), |s| {
            s.lines()
                .nth(1)
                .is_some_and(|l| l.chars().nth(width - 1) == Some('│'))
        });
    }
    t.prefix(b"<");
    // Each row: the number (two columns wide here), the unseen star, the
    // state mark, then the border.
    let compact = |l: &str, number: u32, mark: char| {
        let c: Vec<char> = l.chars().collect();
        c.len() >= 6
            && format!("{number:>2}") == c[..2].iter().collect::<String>()
            && c[3] == mark
            && c[4..].contains(&'│')
    };
    let s = t.wait_for("badges only", |s| {
        s.lines().nth(1).is_some_and(|l| compact(l, 1, '!'))
    });
    let lines: Vec<&str> = s.lines().collect();
    assert!(compact(lines[2], 2, '!'), "{s}");
    assert!(compact(lines[3], 14, '!'), "{s}");
    // The next task does not need you (done, or idle once that was seen).
    assert!(
        (3..=13).any(|n| ['+', '.'].iter().any(|&m| compact(lines[4], n, m))),
        "{s}"
    );
    // And back: names again.
    t.prefix(b">");
    t.wait_for("names again", |s| s.lines().any(|l| entry(l, 1, "t1")));
}

/// 200 numbered rows, `needle` on rows 50 and 150, then quiet.
fn rows_agent() -> String {
    "i=1; while [ $i -le 200 ]; do case $i in 50|150) echo row $i needle;; *) echo row $i;; esac; i=$((i+1)); done; echo bottom; sleep 600".to_string()
}

#[test]
fn copy_mode_searches_highlights_selects_and_copies_with_vi_keys() {
    let f = Fixture::new();
    f.fake_sh_agent(&rows_agent());
    let mut t = Termic::start_with_env(&f, &["run", "fake"], &[("EDITOR", "vim")]);
    t.wait_text("bottom");
    t.prefix(b"[");
    t.wait_text("copy mode [");
    // Search back: the nearest needle is row 150, then row 50.
    t.send(b"?needle");
    t.wait_text("search ?needle_");
    t.send(b"\r");
    t.wait_for("row 150 in view", |s| {
        s.lines().any(|l| l.contains("row 150 needle"))
    });
    t.send(b"n");
    let s = t.wait_for("row 50 in view", |s| {
        s.lines().any(|l| l.contains("row 50 needle"))
    });
    let (row, line) = s
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("row 50 needle"))
        .unwrap();
    // The match is highlighted (yellow), the text beside it is not.
    let chars: Vec<char> = line.chars().collect();
    let needle: Vec<char> = "needle".chars().collect();
    let col = (0..chars.len())
        .find(|&i| chars[i..].starts_with(&needle))
        .unwrap() as u16;
    let row = row as u16;
    t.wait_for("match highlighted", |_| {
        t.cell_bg(row, col + 1) == Some(vt100::Color::Idx(3))
    });
    assert_ne!(t.cell_bg(row, col - 2), Some(vt100::Color::Idx(3)));
    // Select the match to the end of the line and copy it.
    t.send(b"v$y");
    t.wait_text("Copied 6 characters (terminal clipboard).");
    // OSC 52 with base64("needle").
    t.wait_raw(b"\x1b]52;c;bmVlZGxl\x07");
    let s = t.screen();
    assert!(!s.contains("copy mode ["), "copying leaves copy mode: {s}");
    // Keys reach the agent again.
    assert!(s.contains("bottom"), "{s}");
}

#[test]
fn the_wheel_scrolls_history_and_a_drag_copies_only_pane_text() {
    let f = Fixture::new();
    f.fake_sh_agent(&rows_agent());
    let mut t = Termic::start(&f, &["run", "fake"]);
    t.wait_text("bottom");
    assert!(!t.screen().contains("row 100\n"));
    // The agent did not ask for the mouse: the wheel scrolls its history.
    for _ in 0..20 {
        t.send(b"\x1b[<64;60;10M");
    }
    let s = t.wait_text("copy mode [");
    assert!(s.lines().any(|l| l.contains("row 130")), "{s}");
    // Wheel down to the bottom leaves copy mode.
    for _ in 0..25 {
        t.send(b"\x1b[<65;60;10M");
    }
    t.wait_for("live again", |s| !s.contains("copy mode ["));
    // A drag from the pane's first column over 7 cells of the first row
    // (the sidebar is 30 columns): the copy holds pane text only.
    let s = t.screen();
    let first = s
        .lines()
        .next()
        .unwrap()
        .chars()
        .skip(30)
        .collect::<String>();
    let want: String = first.chars().take(7).collect();
    t.send(b"\x1b[<0;31;1M\x1b[<32;34;1M\x1b[<32;37;1M\x1b[<0;37;1m");
    use base64::Engine as _;
    let encoded = base64::engine::general_purpose::STANDARD.encode(want.trim_end());
    t.wait_raw(format!("\x1b]52;c;{encoded}\x07").as_bytes());
    t.wait_text("Copied");
}

#[test]
fn rename_restart_and_details_of_a_worktree_task() {
    let f = Fixture::new();
    git(&f.work, &["init", "-q", "-b", "main"]);
    std::fs::write(f.work.join("a.txt"), "a\n").unwrap();
    git(&f.work, &["add", "a.txt"]);
    git(&f.work, &["commit", "-qm", "first"]);
    f.fake_sh_agent(
        "n=$(cat .runs 2>/dev/null || echo 0); n=$((n+1)); echo $n > .runs; \
         echo run $n in $(pwd); read x; exit 3",
    );
    let mut t = Termic::start(&f, &["run", "fake", "--worktree", "--name", "wt1"]);
    let s = t.wait_text("run 1 in /");
    let dir = s
        .lines()
        .find_map(|l| l.split("run 1 in ").nth(1))
        .unwrap()
        .trim()
        .to_string();

    // Restart is for an exited task.
    t.prefix(b"r");
    t.wait_text("wt1 is still running. Restart is for a task that has exited.");

    // Rename: the dialog starts empty; Esc keeps the old name.
    t.prefix(b",");
    t.wait_text("Rename wt1");
    t.send(b"x\x1b");
    t.wait_for("dialog closed", |s| !s.contains("Rename wt1"));
    t.prefix(b",");
    t.wait_text("Rename wt1");
    t.send(b"login-fix\r");
    t.wait_for("renamed", |s| {
        s.lines().any(|l| l.starts_with("1 login-fix"))
    });

    // The agent exits 3; restart runs it again in the same worktree.
    t.send(b"\r");
    t.wait_text("exited 3");
    t.prefix(b"r");
    let s = t.wait_text("run 2 in /");
    assert!(
        s.contains(&format!("run 2 in {dir}")),
        "same directory: {s}"
    );
    assert!(s.lines().any(|l| l.starts_with("1 login-fix")), "{s}");

    // Details: directory, branch, worktree, agent, status channel, pid.
    t.prefix(b"t");
    let s = t.wait_text("login-fix (fake)");
    let row = |label: &str| {
        s.lines()
            .find(|l| l.contains(&format!("│{label} ")))
            .unwrap_or_else(|| panic!("no {label} row: {s}"))
            .to_string()
    };
    assert!(row("directory").contains(dir.as_str()), "{s}");
    assert!(row("worktree ").contains(dir.as_str()), "{s}");
    assert!(
        row("branch").contains("login") || row("branch").contains("wt1"),
        "{s}"
    );
    assert!(row("status from").contains("heuristics"), "{s}");
    assert!(row("command").contains("sh -c"), "{s}");
    let pid: String = row("pid")
        .split_whitespace()
        .nth(1)
        .unwrap()
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    assert!(pid.parse::<u32>().unwrap() > 1, "{s}");
    t.send(b"\x1b");
    t.wait_for("details closed", |s| !s.contains("status from"));
}

#[test]
fn a_split_shows_two_tasks_each_at_its_own_size() {
    let f = Fixture::new();
    f.fake_sh_agent("trap 'echo size $(stty size)' WINCH; echo ready; while :; do sleep 0.1; done");
    let mut t = Termic::start(&f, &["run", "fake", "--name", "a"]);
    t.wait_text("ready");
    t.prefix(b"n");
    t.wait_text("New task");
    t.send(b"\tb\r");
    t.wait_for("b started", |s| s.lines().any(|l| l.starts_with("2 b ")));
    // 140 columns: a 30-column sidebar and 110 for the panes, cut 54 | 55.
    t.prefix(b"|");
    let s = t.wait_for("both halves sized", |s| {
        s.contains("size 39 54") && s.contains("size 39 55")
    });
    let right = s.lines().find(|l| l.contains("size 39 55")).unwrap();
    let col = right.chars().collect::<Vec<_>>();
    let at = (0..col.len())
        .find(|&i| col[i..].starts_with(&['s', 'i', 'z', 'e', ' ', '3', '9', ' ', '5', '5']))
        .unwrap();
    assert_eq!(at, 85, "the other task is drawn in the right half: {s}");
    // Stacked: 39 rows cut 19 / 19, each 110 wide.
    t.prefix(b"-");
    t.wait_for("stacked", |s| s.matches("size 19 110").count() == 2);
    // The same key again: one pane, the whole size.
    t.prefix(b"-");
    t.wait_text("size 39 110");
}
