//! The focused task's terminal: a ratatui widget over a `vt100::Screen`.
//!
//! tui-term does not build against vt100 0.18 (crates.md), so this is the
//! small widget of our own: copy each cell's text, colours and attributes.

use ratatui::buffer::Buffer;
use ratatui::layout::{Position, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::widgets::Widget;

pub struct PaneWidget<'a> {
    screen: &'a vt100::Screen,
    /// The screen's cell drawn at the area's top left (row, column).
    offset: (u16, u16),
}

impl<'a> PaneWidget<'a> {
    pub fn new(screen: &'a vt100::Screen) -> Self {
        PaneWidget {
            screen,
            offset: (0, 0),
        }
    }

    /// Shows the part of a screen larger than the area that keeps the
    /// cursor in view ([`view_offset`]).
    pub fn following_cursor(self, area: Rect) -> Self {
        PaneWidget {
            offset: view_offset(self.screen, area),
            ..self
        }
    }
}

/// The top-left cell of `screen` shown in `area` (row, column): the
/// screen's own top left when it fits. A screen larger than the pane (the
/// task took a larger client's size, `[server] window_size`) shows its top
/// left part, moved on as little as keeps the cursor in view, as tmux
/// shows a window larger than the client.
pub fn view_offset(screen: &vt100::Screen, area: Rect) -> (u16, u16) {
    let (rows, cols) = screen.size();
    let (row, col) = screen.cursor_position();
    let offset = |len: u16, view: u16, at: u16| {
        let past = len.saturating_sub(view);
        (at + 1).saturating_sub(view).min(past)
    };
    (
        offset(rows.get(), area.height, row),
        offset(cols.get(), area.width, col),
    )
}

impl Widget for PaneWidget<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let (rows, cols) = self.screen.size();
        let (top, left) = self.offset;
        let height = area.height.min(rows.get() - top);
        let width = area.width.min(cols.get() - left);
        for row in 0..height {
            for col in 0..width {
                let Some(cell) = self.screen.cell(top + row, left + col) else {
                    continue;
                };
                if cell.is_wide_continuation() {
                    continue;
                }
                let out = &mut buf[(area.x + col, area.y + row)];
                if cell.has_contents() {
                    out.set_symbol(cell.contents());
                } else {
                    out.set_symbol(" ");
                }
                out.set_style(cell_style(cell));
            }
        }
    }
}

/// The focused pane copied out of its screen model, so the task's lock is
/// held only for the copy and never while the outer terminal is written.
#[derive(Debug, Clone, PartialEq)]
pub struct PaneSnapshot {
    pub buffer: Buffer,
    /// Where the outer terminal's cursor goes (`None`: hidden).
    pub cursor: Option<Position>,
    /// The agent asked for mouse reports.
    pub wants_mouse: bool,
}

impl PaneSnapshot {
    /// Copies `screen` into a buffer covering `pane`. A scrolled-back view
    /// (`live` false) shows no cursor.
    pub fn capture(screen: &vt100::Screen, pane: Rect, live: bool) -> Self {
        let mut buffer = Buffer::empty(pane);
        let widget = PaneWidget::new(screen);
        let widget = if live {
            widget.following_cursor(pane)
        } else {
            widget
        };
        widget.render(pane, &mut buffer);
        PaneSnapshot {
            buffer,
            cursor: if live {
                cursor_position(screen, pane)
            } else {
                None
            },
            wants_mouse: screen.mouse_protocol_mode() != vt100::MouseProtocolMode::None,
        }
    }

    /// A pane with nothing drawn yet (a remote task whose link has not
    /// brought its screen).
    pub fn blank(pane: Rect) -> Self {
        PaneSnapshot {
            buffer: Buffer::empty(pane),
            cursor: None,
            wants_mouse: false,
        }
    }

    /// Writes `text` over the snapshot's last row, reversed and cut to the
    /// width: what an unfocused half says of itself (its remote link), as
    /// the status line does for the focused one.
    pub fn banner(&mut self, text: &str) {
        let area = self.buffer.area;
        if area.is_empty() {
            return;
        }
        let y = area.bottom() - 1;
        let style = Style::new().add_modifier(Modifier::REVERSED);
        for x in area.left()..area.right() {
            self.buffer[(x, y)].reset();
            self.buffer[(x, y)].set_style(style);
        }
        self.buffer
            .set_stringn(area.x, y, text, usize::from(area.width), style);
        if self.cursor.is_some_and(|c| c.y == y) {
            self.cursor = None;
        }
    }

    /// Highlights copy mode's cells: search matches, the selection and its
    /// cursor (pane-relative rows and columns).
    pub fn mark(&mut self, marks: &[crate::app::copy_mode::Mark]) {
        use crate::app::copy_mode::MarkKind;
        let area = self.buffer.area;
        for mark in marks {
            let style = match mark.kind {
                MarkKind::Match => Style::new().fg(Color::Black).bg(Color::Yellow),
                MarkKind::Selection => Style::new().fg(Color::Black).bg(Color::Cyan),
                MarkKind::Cursor => Style::new().add_modifier(Modifier::REVERSED),
            };
            for col in mark.cols.clone() {
                let (x, y) = (area.x + col, area.y + mark.row);
                if x < area.right() && y < area.bottom() {
                    self.buffer[(x, y)].set_style(style);
                }
            }
        }
    }

    /// Copies the snapshot into `buf`, clipped to `pane` (the frame may have
    /// been resized since the capture).
    pub fn paint(&self, buf: &mut Buffer, pane: Rect) {
        let area = self.buffer.area.intersection(pane).intersection(buf.area);
        if area.is_empty() {
            return;
        }
        // A row at a time, as slices: indexing each cell checked it
        // against both areas (measured in the server's frame thread).
        let width = usize::from(area.width);
        for y in area.top()..area.bottom() {
            let from = self.buffer.index_of(area.x, y);
            let to = buf.index_of(area.x, y);
            buf.content[to..to + width].clone_from_slice(&self.buffer.content[from..from + width]);
        }
    }
}

/// Where the outer terminal's cursor goes, or `None` when the agent hid it
/// or it is outside the pane.
pub fn cursor_position(screen: &vt100::Screen, pane: Rect) -> Option<Position> {
    if screen.hide_cursor() {
        return None;
    }
    let (top, left) = view_offset(screen, pane);
    let (row, col) = screen.cursor_position();
    let (row, col) = (row - top, col - left);
    (row < pane.height && col < pane.width).then(|| Position::new(pane.x + col, pane.y + row))
}

fn cell_style(cell: &vt100::Cell) -> Style {
    let mut style = Style::new()
        .fg(color(cell.fgcolor()))
        .bg(color(cell.bgcolor()));
    let attrs = [
        (cell.bold(), Modifier::BOLD),
        (cell.dim(), Modifier::DIM),
        (cell.italic(), Modifier::ITALIC),
        (cell.underline(), Modifier::UNDERLINED),
        (cell.inverse(), Modifier::REVERSED),
    ];
    for (on, modifier) in attrs {
        if on {
            style = style.add_modifier(modifier);
        }
    }
    style
}

fn color(c: vt100::Color) -> Color {
    match c {
        vt100::Color::Default => Color::Reset,
        vt100::Color::Idx(i) => Color::Indexed(i),
        vt100::Color::Rgb(r, g, b) => Color::Rgb(r, g, b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::testing::{draw, text_lines};

    fn screen(rows: u16, cols: u16, bytes: &[u8]) -> vt100::Parser {
        let nz = |n: u16| std::num::NonZeroU16::new(n).unwrap();
        let mut p = vt100::Parser::new(nz(rows), nz(cols), 0);
        p.process(bytes);
        p
    }

    #[test]
    fn copies_text_colours_and_attributes() {
        let p = screen(
            3,
            10,
            b"\x1b[1;31mred\x1b[0m \x1b[38;2;1;2;3;48;5;17mrgb\x1b[0m\r\n\x1b[7minv\x1b[4mu",
        );
        let t = draw(12, 3, |f| {
            f.render_widget(PaneWidget::new(p.screen()), Rect::new(1, 0, 10, 3))
        });
        assert_eq!(text_lines(&t)[0], " red rgb");
        assert_eq!(text_lines(&t)[1], " invu");
        let buf = t.backend().buffer();
        assert_eq!(buf[(1, 0)].fg, Color::Indexed(1));
        assert!(buf[(1, 0)].modifier.contains(Modifier::BOLD));
        assert_eq!(buf[(5, 0)].fg, Color::Rgb(1, 2, 3));
        assert_eq!(buf[(5, 0)].bg, Color::Indexed(17));
        assert!(buf[(1, 1)].modifier.contains(Modifier::REVERSED));
        assert!(buf[(4, 1)].modifier.contains(Modifier::UNDERLINED));
        assert_eq!(buf[(4, 0)].fg, Color::Reset);
    }

    #[test]
    fn wide_characters_take_two_cells() {
        let p = screen(1, 6, "a\u{4e2d}b".as_bytes());
        let t = draw(6, 1, |f| {
            f.render_widget(PaneWidget::new(p.screen()), f.area())
        });
        assert_eq!(text_lines(&t)[0], "a\u{4e2d}b");
    }

    #[test]
    fn cursor_follows_the_agent_and_hides_when_asked() {
        let pane = Rect::new(30, 0, 10, 5);
        let p = screen(5, 10, b"ab\r\ncd");
        assert_eq!(
            cursor_position(p.screen(), pane),
            Some(Position::new(32, 1))
        );
        let p = screen(5, 10, b"ab\x1b[?25l");
        assert_eq!(cursor_position(p.screen(), pane), None);
    }

    #[test]
    fn snapshot_paints_clipped_and_hides_the_cursor_when_scrolled() {
        let p = screen(2, 6, b"abcdef\r\nxy");
        let pane = Rect::new(2, 0, 6, 2);
        let live = PaneSnapshot::capture(p.screen(), pane, true);
        assert_eq!(live.cursor, Some(Position::new(4, 1)));
        assert!(!live.wants_mouse);
        assert_eq!(PaneSnapshot::capture(p.screen(), pane, false).cursor, None);
        // The frame shrank to 5 columns: what does not fit is dropped.
        let t = draw(5, 2, |f| live.paint(f.buffer_mut(), Rect::new(2, 0, 6, 2)));
        assert_eq!(
            text_lines(&t),
            vec!["  abc".to_string(), "  xy".to_string()]
        );
    }

    #[test]
    fn a_screen_larger_than_the_pane_shows_the_part_around_the_cursor() {
        // another client's size: 4x8 in a 2x5 pane, the cursor at the
        // bottom of the text on row 2
        let p = screen(4, 8, b"row0\r\nrow1\r\nrow2 ab");
        let pane = Rect::new(0, 0, 5, 2);
        assert_eq!(view_offset(p.screen(), pane), (1, 3));
        let live = PaneSnapshot::capture(p.screen(), pane, true);
        assert_eq!(live.cursor, Some(Position::new(4, 1)));
        let t = draw(5, 2, |f| live.paint(f.buffer_mut(), pane));
        assert_eq!(text_lines(&t), vec!["1".to_string(), "2 ab".to_string()]);
        // a scrolled-back view has no cursor to follow
        let scrolled = PaneSnapshot::capture(p.screen(), pane, false);
        let t = draw(5, 2, |f| scrolled.paint(f.buffer_mut(), pane));
        assert_eq!(text_lines(&t), vec!["row0".to_string(), "row1".to_string()]);
        // the cursor in view already: the top left part, as it is
        assert_eq!(view_offset(screen(4, 8, b"ab").screen(), pane), (0, 0));
    }

    #[test]
    fn a_banner_takes_the_last_row_reversed_and_cut_to_the_width() {
        let parser = screen(3, 10, b"top\r\nmiddle\r\nbottom-row");
        let pane = Rect::new(2, 1, 8, 3);
        let mut snapshot = PaneSnapshot::capture(parser.screen(), pane, false);
        snapshot.banner("far: disconnected since 01:00");
        let row = |y: u16| -> String {
            (pane.left()..pane.right())
                .map(|x| snapshot.buffer[(x, y)].symbol())
                .collect()
        };
        assert_eq!(row(1), "top     ");
        assert_eq!(row(2), "middle  ");
        assert_eq!(row(3), "far: dis");
        assert!((pane.left()..pane.right()).all(|x| snapshot.buffer[(x, 3)]
            .modifier
            .contains(Modifier::REVERSED)));
        // A short text: the rest of the row is blank, reversed too.
        let mut blank = PaneSnapshot::blank(pane);
        blank.banner("far");
        assert_eq!(blank.buffer[(5, 3)].symbol(), " ");
        assert!(blank.buffer[(9, 3)].modifier.contains(Modifier::REVERSED));
        assert_eq!(blank.buffer[(2, 1)].symbol(), " ");
    }

    #[test]
    fn a_smaller_screen_leaves_the_rest_of_the_pane_alone() {
        let p = screen(1, 3, b"xyz");
        let t = draw(5, 2, |f| {
            f.render_widget(PaneWidget::new(p.screen()), f.area())
        });
        assert_eq!(text_lines(&t), vec!["xyz".to_string(), String::new()]);
    }
}
