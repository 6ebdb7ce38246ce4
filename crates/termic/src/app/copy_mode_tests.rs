use super::*;
use ratatui::crossterm::event::KeyEventState;

fn key(code: KeyCode, modifiers: KeyModifiers) -> KeyEvent {
    KeyEvent {
        code,
        modifiers,
        kind: ratatui::crossterm::event::KeyEventKind::Press,
        state: KeyEventState::NONE,
    }
}

fn ch(c: char) -> KeyEvent {
    key(KeyCode::Char(c), KeyModifiers::NONE)
}

fn ctrl(c: char) -> KeyEvent {
    key(KeyCode::Char(c), KeyModifiers::CONTROL)
}

fn alt(c: char) -> KeyEvent {
    key(KeyCode::Char(c), KeyModifiers::ALT)
}

/// 30 lines `line 1`..`line 30`, a `needle` on lines 5 and 25, in a 10-row pane.
fn mode(keys: CopyKeys) -> CopyMode {
    let rows: Vec<String> = (1..=30)
        .map(|i| match i {
            5 => "line 5 has a needle".to_string(),
            25 => "\x1b[31mline 25\x1b[m Needle needle".to_string(),
            _ => format!("line {i}"),
        })
        .collect();
    CopyMode::new(7, keys, all(rows, 10, 40))
}

/// Rows as the runtime gives them: formatted, and plain without the SGR.
fn all(formatted: Vec<String>, rows: u16, cols: u16) -> AllRows {
    let plain = formatted
        .iter()
        .map(|l| termic_runtime::history::strip_sgr(l))
        .collect();
    AllRows {
        formatted,
        plain,
        rows,
        cols,
    }
}

fn type_all(m: &mut CopyMode, keys: &[KeyEvent]) -> Vec<CopyOutcome> {
    keys.iter().map(|k| m.key(k)).collect()
}

#[test]
fn editor_picks_the_key_set_like_tmux() {
    assert_eq!(
        CopyKeys::from_editor(None, Some("/usr/bin/vim")),
        CopyKeys::Vi
    );
    assert_eq!(
        CopyKeys::from_editor(Some("nvim"), Some("emacs")),
        CopyKeys::Vi
    );
    assert_eq!(
        CopyKeys::from_editor(Some(""), Some("nano")),
        CopyKeys::Emacs
    );
    assert_eq!(CopyKeys::from_editor(None, None), CopyKeys::Emacs);
}

#[test]
fn starts_at_the_live_place_with_the_cursor_on_the_last_line() {
    let m = mode(CopyKeys::Vi);
    assert_eq!(m.top, 20);
    assert_eq!(m.cursor.line, 29);
    assert!(m.at_bottom());
    assert_eq!(m.lines_back(), 0);
    assert_eq!(m.position(), "[30/30]");
}

#[test]
fn vi_search_back_and_forth_with_smart_case() {
    let mut m = mode(CopyKeys::Vi);
    type_all(
        &mut m,
        &[
            ch('?'),
            ch('n'),
            ch('e'),
            ch('e'),
            ch('d'),
            ch('l'),
            ch('e'),
        ],
    );
    assert_eq!(m.prompt.as_ref().map(|p| p.text.as_str()), Some("needle"));
    m.key(&key(KeyCode::Enter, KeyModifiers::NONE));
    // Backwards from the last line: the last needle on line 25 first.
    assert_eq!(m.cursor, Point { line: 24, ch: 15 });
    m.key(&ch('n'));
    assert_eq!(
        m.cursor,
        Point { line: 24, ch: 8 },
        "Needle: lower case folds"
    );
    m.key(&ch('n'));
    assert_eq!(m.cursor, Point { line: 4, ch: 13 });
    assert_eq!(m.top, 4, "the view scrolled to the match");
    m.key(&ch('N'));
    assert_eq!(m.cursor, Point { line: 24, ch: 8 });
    // A capital letter matches case: only "Needle".
    type_all(&mut m, &[ch('/'), ch('N'), ch('e'), ch('e')]);
    m.key(&key(KeyCode::Enter, KeyModifiers::NONE));
    assert_eq!(
        m.cursor,
        Point { line: 24, ch: 8 },
        "wrapped back to itself"
    );
    type_all(&mut m, &[ch('/'), ch('z'), ch('z')]);
    m.key(&key(KeyCode::Enter, KeyModifiers::NONE));
    assert_eq!(m.note.as_deref(), Some("Not found: zz"));
}

#[test]
fn matches_and_selection_are_marked_in_the_view() {
    let mut m = mode(CopyKeys::Vi);
    m.find("needle", false);
    let view = m.view();
    assert_eq!(
        view.parser.screen().contents().lines().nth(4),
        Some("line 25 Needle needle")
    );
    let matches: Vec<_> = view
        .marks
        .iter()
        .filter(|k| k.kind == MarkKind::Match)
        .map(|k| (k.row, k.cols.clone()))
        .collect();
    assert_eq!(matches, [(4, 8..14), (4, 15..21)]);
    // Select from the match to the end of the line.
    type_all(&mut m, &[ch('v'), ch('$')]);
    let sel: Vec<_> = m
        .view()
        .marks
        .into_iter()
        .filter(|k| k.kind == MarkKind::Selection)
        .collect();
    assert_eq!(sel.len(), 1);
    assert_eq!((sel[0].row, sel[0].cols.clone()), (4, 15..21));
    assert_eq!(m.key(&ch('y')), CopyOutcome::Copy("needle".into()));
}

#[test]
fn a_selection_over_lines_copies_plain_text() {
    let mut m = mode(CopyKeys::Vi);
    // From line 24 column 5 down to line 25 column 6: colours are not copied.
    m.find("24", false);
    type_all(&mut m, &[ch('v'), ch('j'), ch('l')]);
    assert_eq!(
        m.selected_text().as_deref(),
        Some("24\nline 25"),
        "{:?}",
        m.selection()
    );
    // Escape drops the selection first, then leaves.
    assert_eq!(
        m.key(&key(KeyCode::Esc, KeyModifiers::NONE)),
        CopyOutcome::Stay
    );
    assert_eq!(m.selection(), None);
    assert_eq!(
        m.key(&key(KeyCode::Enter, KeyModifiers::NONE)),
        CopyOutcome::Exit
    );
}

#[test]
fn vi_motion_keys() {
    let mut m = mode(CopyKeys::Vi);
    m.key(&ch('g'));
    assert_eq!((m.top, m.cursor.line), (0, 0));
    type_all(&mut m, &[ch('w')]);
    assert_eq!(m.cursor.ch, 5, "next word");
    m.key(&ch('b'));
    assert_eq!(m.cursor.ch, 0);
    m.key(&ctrl('d'));
    assert_eq!(m.top, 5);
    m.key(&ctrl('f'));
    assert_eq!(m.top, 15);
    m.key(&key(KeyCode::PageDown, KeyModifiers::NONE));
    assert_eq!(m.top, 20);
    m.key(&ch('G'));
    assert_eq!(m.cursor.line, 29);
    assert_eq!(m.key(&ch('q')), CopyOutcome::Exit);
}

#[test]
fn emacs_keys_move_search_select_and_copy() {
    let mut m = mode(CopyKeys::Emacs);
    m.key(&alt('<'));
    assert_eq!(m.cursor.line, 0);
    type_all(&mut m, &[ctrl('s'), ch('h'), ch('a'), ch('s')]);
    m.key(&key(KeyCode::Enter, KeyModifiers::NONE));
    assert_eq!(m.cursor, Point { line: 4, ch: 7 });
    m.key(&ctrl(' '));
    type_all(&mut m, &[ctrl('e')]);
    assert_eq!(m.key(&alt('w')), CopyOutcome::Copy("has a needle".into()));
    m.key(&ctrl('n'));
    assert_eq!(m.cursor.line, 5);
    m.key(&ctrl('v'));
    assert_eq!(m.top, 10);
    m.key(&alt('v'));
    assert_eq!(m.top, 0);
    m.key(&ctrl('r'));
    assert!(m.prompt.as_ref().is_some_and(|p| !p.forward));
    m.key(&ctrl('g'));
    assert!(m.prompt.is_none());
    // C-g drops the selection first, then leaves.
    assert_eq!(m.key(&ctrl('g')), CopyOutcome::Stay);
    assert_eq!(m.selection(), None);
    assert_eq!(m.key(&ctrl('g')), CopyOutcome::Exit);
}

#[test]
fn a_mouse_drag_selects_by_cell_and_wide_characters_count_twice() {
    let rows = vec!["ab\u{4e2d}cd".to_string(), "second".to_string()];
    let mut m = CopyMode::new(1, CopyKeys::Vi, all(rows, 4, 20));
    // Cell 2 and 3 are the wide character; cell 4 is `c`.
    m.drag((1, 0), (4, 0));
    assert_eq!(m.selected_text().as_deref(), Some("b\u{4e2d}c"));
    m.drag((3, 0), (2, 1));
    assert_eq!(m.selected_text().as_deref(), Some("\u{4e2d}cd\nsec"));
    let sel: Vec<_> = m
        .view()
        .marks
        .into_iter()
        .filter(|k| k.kind == MarkKind::Selection)
        .map(|k| (k.row, k.cols))
        .collect();
    assert_eq!(sel, [(0, 2..6), (1, 0..3)]);
}

#[test]
fn the_wheel_scrolls_and_reaches_the_bottom() {
    let mut m = mode(CopyKeys::Vi);
    m.scroll(-3);
    assert_eq!(m.lines_back(), 3);
    assert_eq!(m.top, 17);
    assert!(m.cursor.line <= 26, "the cursor stays on screen");
    m.scroll(100);
    assert!(m.at_bottom());
}
