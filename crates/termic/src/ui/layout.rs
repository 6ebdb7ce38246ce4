//! Where things go on the screen. One function decides the task pane's size,
//! so the PTY size, the mouse translation and the drawing always agree.

use ratatui::layout::Rect;

/// Columns of the sidebar, its right border included.
pub const SIDEBAR_WIDTH: u16 = 30;

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
    pub fn new(area: Rect) -> Self {
        let body_height = area.height.saturating_sub(1);
        // Narrow outer terminals keep at least 20 columns for the agent.
        let sidebar_width = SIDEBAR_WIDTH.min(area.width.saturating_sub(20));
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
    pub fn pty_size(cols: u16, rows: u16) -> (u16, u16) {
        let pane = WorkspaceLayout::new(Rect::new(0, 0, cols, rows)).pane;
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
        let l = WorkspaceLayout::new(Rect::new(0, 0, 120, 40));
        assert_eq!(l.sidebar, Rect::new(0, 0, 30, 39));
        assert_eq!(l.pane, Rect::new(30, 0, 90, 39));
        assert_eq!(l.status, Rect::new(0, 39, 120, 1));
        assert_eq!(WorkspaceLayout::pty_size(120, 40), (39, 90));
    }

    #[test]
    fn narrow_terminal_shrinks_the_sidebar_not_the_pane() {
        let l = WorkspaceLayout::new(Rect::new(0, 0, 35, 10));
        assert_eq!(l.pane.width, 20);
        assert_eq!(WorkspaceLayout::pty_size(0, 0), (1, 1));
    }

    #[test]
    fn mouse_cells_are_pane_relative() {
        let l = WorkspaceLayout::new(Rect::new(0, 0, 120, 40));
        assert_eq!(l.pane_cell(30, 0), Some((0, 0)));
        assert_eq!(l.pane_cell(45, 7), Some((15, 7)));
        assert_eq!(l.pane_cell(29, 7), None);
        assert_eq!(l.pane_cell(50, 39), None);
    }
}
