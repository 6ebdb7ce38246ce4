//! The outer terminal: raw mode, alternate screen, bracketed paste and focus
//! reporting on the way in, all of it undone on every way out (normal exit,
//! error, panic).

use std::io::{self, Stdout, Write};

use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{
    DisableBracketedPaste, DisableFocusChange, DisableMouseCapture, EnableBracketedPaste,
    EnableFocusChange, EnableMouseCapture,
};
use ratatui::crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen,
};
use ratatui::crossterm::{cursor, execute};
use ratatui::Terminal;

pub type Term = Terminal<CrosstermBackend<Stdout>>;

/// Owns the outer terminal's modes; dropping it restores them.
pub struct TerminalGuard {
    pub terminal: Term,
    mouse_captured: bool,
}

impl TerminalGuard {
    pub fn enter() -> io::Result<Self> {
        install_panic_hook();
        enable_raw_mode()?;
        let mut stdout = io::stdout();
        if let Err(e) = execute!(
            stdout,
            EnterAlternateScreen,
            EnableBracketedPaste,
            EnableFocusChange
        ) {
            restore();
            return Err(e);
        }
        let terminal = Terminal::new(CrosstermBackend::new(stdout)).inspect_err(|_| restore())?;
        Ok(TerminalGuard {
            terminal,
            mouse_captured: false,
        })
    }

    /// Mouse capture is on only while the focused agent asked for mouse
    /// reports, so the outer terminal's own selection works otherwise.
    pub fn set_mouse_capture(&mut self, on: bool) -> io::Result<()> {
        if on == self.mouse_captured {
            return Ok(());
        }
        let out = self.terminal.backend_mut();
        if on {
            execute!(out, EnableMouseCapture)?;
        } else {
            execute!(out, DisableMouseCapture)?;
        }
        self.mouse_captured = on;
        Ok(())
    }

    /// Raw bytes for the outer terminal (bell, notification), between frames.
    pub fn write_raw(&mut self, bytes: &[u8]) -> io::Result<()> {
        let out = self.terminal.backend_mut();
        out.write_all(bytes)?;
        out.flush()
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
    }
}

/// Puts the outer terminal back. Safe to call more than once.
pub fn restore() {
    let mut stdout = io::stdout();
    let _ = execute!(
        stdout,
        DisableMouseCapture,
        DisableFocusChange,
        DisableBracketedPaste,
        LeaveAlternateScreen,
        cursor::Show
    );
    let _ = disable_raw_mode();
}

fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        previous(info);
    }));
}
