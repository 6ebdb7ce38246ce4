//! Where things go on the screen. One function decides the task pane's size,
//! so the PTY size, the mouse translation and the drawing always agree.

use ratatui::layout::Rect;

/// Columns of the full sidebar at its widest automatic size, border included.
pub const SIDEBAR_WIDTH: u16 = 30;
/// The automatic sidebar never goes below this while it shows names.
pub const SIDEBAR_MIN_AUTO: u16 = 22;
/// The narrowest sidebar that still shows names.
pub const SIDEBAR_MIN_FULL: u16 = 16;
/// The widest a user may make it.
pub const SIDEBAR_MAX: u16 = 48;
/// Badges only: a key and a state mark per task (`12 ! │`).
pub const SIDEBAR_COMPACT: u16 = 6;
/// Below this many columns the automatic sidebar shows badges only.
pub const COMPACT_BELOW: u16 = 60;
/// Columns the pane keeps however the sidebar is set.
pub const PANE_MIN: u16 = 20;
/// Columns one sidebar resize key adds or takes.
pub const SIDEBAR_STEP: u16 = 4;

/// How wide the sidebar is: chosen from the terminal's width (a quarter of
/// it, 22 to 30 columns; badges only under 60 columns), or set by the user
/// with the prefix then `<` or `>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SidebarWidth {
    #[default]
    Auto,
    Set(u16),
}

impl SidebarWidth {
    /// Columns (border included) in an outer terminal `cols` wide.
    pub fn columns(self, cols: u16) -> u16 {
        let want = match self {
            SidebarWidth::Auto if cols < COMPACT_BELOW => SIDEBAR_COMPACT,
            SidebarWidth::Auto => (cols / 4).clamp(SIDEBAR_MIN_AUTO, SIDEBAR_WIDTH),
            SidebarWidth::Set(w) => w,
        };
        want.min(cols.saturating_sub(PANE_MIN))
    }

    /// One step wider or narrower than it is now at `cols`: narrower than
    /// [`SIDEBAR_MIN_FULL`] goes to badges only, and back.
    pub fn resized(self, cols: u16, wider: bool) -> SidebarWidth {
        let now = self.columns(cols);
        let next = match (wider, now) {
            (true, w) if w < SIDEBAR_MIN_FULL => SIDEBAR_MIN_FULL,
            (true, w) => (w + SIDEBAR_STEP).min(SIDEBAR_MAX),
            (false, w) if w <= SIDEBAR_MIN_FULL => SIDEBAR_COMPACT,
            (false, w) => w.saturating_sub(SIDEBAR_STEP).max(SIDEBAR_MIN_FULL),
        };
        SidebarWidth::Set(next)
    }
}

/// The three regions of the workspace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkspaceLayout {
    pub sidebar: Rect,
    /// The focused task's terminal. Its size is the size of every task's PTY.
    pub pane: Rect,
    /// One line at the bottom.
    pub status: Rect,
}

impl WorkspaceLayout {
    pub fn new(area: Rect, width: SidebarWidth) -> Self {
        let body_height = area.height.saturating_sub(1);
        // Narrow outer terminals keep at least 20 columns for the agent.
        let sidebar_width = width.columns(area.width);
        let sidebar = Rect::new(area.x, area.y, sidebar_width, body_height);
        let pane = Rect::new(
            area.x + sidebar_width,
            area.y,
            area.width - sidebar_width,
            body_height,
        );
        let status = Rect::new(area.x, area.y + body_height, area.width, area.height.min(1));
        WorkspaceLayout {
            sidebar,
            pane,
            status,
        }
    }

    /// The PTY size (rows, cols) for an outer terminal of `cols` x `rows`.
    /// Never zero: a PTY of size 0 confuses agents.
    pub fn pty_size(cols: u16, rows: u16, width: SidebarWidth) -> (u16, u16) {
        let pane = WorkspaceLayout::new(Rect::new(0, 0, cols, rows), width).pane;
        (pane.height.max(1), pane.width.max(1))
    }

    /// Translates an outer-terminal cell to a 0-based cell inside the pane,
    /// or `None` when it is outside the pane.
    pub fn pane_cell(&self, column: u16, row: u16) -> Option<(u16, u16)> {
        let p = self.pane;
        let inside = column >= p.x && column < p.x + p.width && row >= p.y && row < p.y + p.height;
        inside.then(|| (column - p.x, row - p.y))
    }
}

/// The pane cut in two for a split view, with a one-cell divider between:
/// side by side (`stacked` false) or one above the other. Each half is
/// at least one cell.
pub fn split_pane(pane: Rect, stacked: bool) -> (Rect, Rect) {
    if stacked {
        let first = pane.height.saturating_sub(1) / 2;
        let second = pane.height.saturating_sub(first + 1);
        (
            Rect::new(pane.x, pane.y, pane.width, first.max(1)),
            Rect::new(pane.x, pane.y + first + 1, pane.width, second.max(1)),
        )
    } else {
        let first = pane.width.saturating_sub(1) / 2;
        let second = pane.width.saturating_sub(first + 1);
        (
            Rect::new(pane.x, pane.y, first.max(1), pane.height),
            Rect::new(pane.x + first + 1, pane.y, second.max(1), pane.height),
        )
    }
}

/// A rectangle of at most `width` x `height`, centred in `area`.
pub fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let w = width.min(area.width);
    let h = height.min(area.height);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pane_takes_what_the_sidebar_and_status_line_leave() {
        let l = WorkspaceLayout::new(Rect::new(0, 0, 120, 40), SidebarWidth::Auto);
        assert_eq!(l.sidebar, Rect::new(0, 0, 30, 39));
        assert_eq!(l.pane, Rect::new(30, 0, 90, 39));
        assert_eq!(l.status, Rect::new(0, 39, 120, 1));
        assert_eq!(
            WorkspaceLayout::pty_size(120, 40, SidebarWidth::Auto),
            (39, 90)
        );
    }

    #[test]
    fn narrow_terminal_shrinks_the_sidebar_not_the_pane() {
        let l = WorkspaceLayout::new(Rect::new(0, 0, 35, 10), SidebarWidth::Set(30));
        assert_eq!(l.pane.width, 20);
        assert_eq!(WorkspaceLayout::pty_size(0, 0, SidebarWidth::Auto), (1, 1));
    }

    #[test]
    fn the_automatic_width_follows_the_terminal() {
        let auto = SidebarWidth::Auto;
        // A quarter of the width, 22 to 30 columns.
        assert_eq!(auto.columns(80), 22);
        assert_eq!(auto.columns(100), 25);
        assert_eq!(auto.columns(220), 30);
        // Badges only under 60 columns.
        assert_eq!(auto.columns(59), SIDEBAR_COMPACT);
        assert_eq!(auto.columns(22), 2);
    }

    #[test]
    fn resizing_steps_down_to_badges_only_and_back() {
        let mut w = SidebarWidth::Auto;
        let mut seen = Vec::new();
        for _ in 0..4 {
            w = w.resized(80, false);
            seen.push(w.columns(80));
        }
        assert_eq!(seen, [18, 16, SIDEBAR_COMPACT, SIDEBAR_COMPACT]);
        w = w.resized(80, true);
        assert_eq!(w.columns(80), SIDEBAR_MIN_FULL);
        for _ in 0..20 {
            w = w.resized(200, true);
        }
        assert_eq!(w.columns(200), SIDEBAR_MAX);
        // The pane keeps its 20 columns on a small terminal.
        assert_eq!(w.columns(50), 30);
    }

    #[test]
    fn a_split_gives_each_half_its_own_size_and_a_divider() {
        let pane = Rect::new(22, 0, 58, 23);
        let (a, b) = split_pane(pane, false);
        assert_eq!(a, Rect::new(22, 0, 28, 23));
        assert_eq!(b, Rect::new(51, 0, 29, 23));
        let (a, b) = split_pane(pane, true);
        assert_eq!(a, Rect::new(22, 0, 58, 11));
        assert_eq!(b, Rect::new(22, 12, 58, 11));
    }

    #[test]
    fn mouse_cells_are_pane_relative() {
        let l = WorkspaceLayout::new(Rect::new(0, 0, 120, 40), SidebarWidth::Auto);
        assert_eq!(l.pane_cell(30, 0), Some((0, 0)));
        assert_eq!(l.pane_cell(45, 7), Some((15, 7)));
        assert_eq!(l.pane_cell(29, 7), None);
        assert_eq!(l.pane_cell(50, 39), None);
    }
}
