//! The outer terminal: raw mode, alternate screen, bracketed paste and focus
//! reporting on the way in, all of it undone on every way out (normal exit,
//! error, panic). Or, in the server, an attached client's terminal: frames go
//! to the client as bytes and the size is the one the client last reported.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use ratatui::backend::{Backend, ClearType, CrosstermBackend, WindowSize};
use ratatui::buffer::Cell;
use ratatui::crossterm::event::{
    DisableBracketedPaste, DisableFocusChange, DisableMouseCapture, EnableBracketedPaste,
    EnableFocusChange, EnableMouseCapture,
};
use ratatui::crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen,
};
use ratatui::crossterm::{cursor, execute};
use ratatui::layout::{Position, Size};
use ratatui::Terminal;

pub type Term = Terminal<OuterBackend>;

/// A client's terminal size (cols, rows), updated as its resizes arrive.
pub type SharedSize = Arc<Mutex<(u16, u16)>>;

/// ratatui's crossterm backend over this process's stdout, or over an
/// attached client's connection with the size the client reported (a
/// server has no terminal to ask).
pub struct OuterBackend {
    inner: CrosstermBackend<Box<dyn Write + Send>>,
    remote: Option<SharedSize>,
}

impl Write for OuterBackend {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        Write::flush(&mut self.inner)
    }
}

impl Backend for OuterBackend {
    type Error = io::Error;

    fn draw<'a, I>(&mut self, content: I) -> io::Result<()>
    where
        I: Iterator<Item = (u16, u16, &'a Cell)>,
    {
        self.inner.draw(content)
    }
    fn hide_cursor(&mut self) -> io::Result<()> {
        self.inner.hide_cursor()
    }
    fn show_cursor(&mut self) -> io::Result<()> {
        self.inner.show_cursor()
    }
    fn get_cursor_position(&mut self) -> io::Result<Position> {
        match self.remote {
            // Only asked around a clear; the client's cursor is ours anyway.
            Some(_) => Ok(Position::ORIGIN),
            None => self.inner.get_cursor_position(),
        }
    }
    fn set_cursor_position<P: Into<Position>>(&mut self, position: P) -> io::Result<()> {
        self.inner.set_cursor_position(position)
    }
    fn clear(&mut self) -> io::Result<()> {
        self.inner.clear()
    }
    fn clear_region(&mut self, clear_type: ClearType) -> io::Result<()> {
        self.inner.clear_region(clear_type)
    }
    fn size(&self) -> io::Result<Size> {
        match &self.remote {
            Some(size) => {
                let (cols, rows) = *termic_runtime::lock(size);
                Ok(Size::new(cols, rows))
            }
            None => self.inner.size(),
        }
    }
    fn window_size(&mut self) -> io::Result<WindowSize> {
        match self.remote {
            Some(_) => Ok(WindowSize {
                columns_rows: self.size()?,
                pixels: Size::default(),
            }),
            None => self.inner.window_size(),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        Backend::flush(&mut self.inner)
    }
}

/// Owns the outer terminal's modes; dropping it restores them (only a
/// local one: a client restores its own terminal).
pub struct TerminalGuard {
    pub terminal: Term,
    mouse_captured: bool,
    local: bool,
}

impl TerminalGuard {
    pub fn enter() -> io::Result<Self> {
        install_panic_hook();
        // Under the stdout lock: a fatal signal's restore comes before
        // (then the terminal is not taken) or after (then it puts back
        // what this set).
        let held = io::stdout().lock();
        if RESTORED_FOR_GOOD.load(Ordering::SeqCst) {
            return Err(io::Error::new(
                io::ErrorKind::Interrupted,
                "a signal is ending termic",
            ));
        }
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
        drop(held);
        let backend = OuterBackend {
            inner: CrosstermBackend::new(Box::new(LocalTerminal)),
            remote: None,
        };
        let terminal = Terminal::new(backend).inspect_err(|_| restore())?;
        Ok(TerminalGuard {
            terminal,
            mouse_captured: false,
            local: true,
        })
    }

    /// An attached client's terminal, in the server: frames go to `out`
    /// (flushed once per frame) at the size in `size`. The client has set
    /// up its terminal's modes and restores them itself.
    pub fn remote(out: Box<dyn Write + Send>, size: SharedSize) -> io::Result<Self> {
        let backend = OuterBackend {
            inner: CrosstermBackend::new(out),
            remote: Some(size),
        };
        Ok(TerminalGuard {
            terminal: Terminal::new(backend)?,
            mouse_captured: false,
            local: false,
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
        Write::flush(out)
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        if self.local {
            restore();
        }
    }
}

/// Set once a fatal signal put the terminal back: whatever the app or the
/// attach client draws after it is dropped.
static RESTORED_FOR_GOOD: AtomicBool = AtomicBool::new(false);

/// This process's stdout as the workspace draws on it: each write checks,
/// under the stdout lock, that no fatal signal put the terminal back
/// ([`restore_for_good`]), so no frame lands on the user's restored screen.
struct LocalTerminal;

impl Write for LocalTerminal {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut out = io::stdout().lock();
        if RESTORED_FOR_GOOD.load(Ordering::SeqCst) {
            return Ok(buf.len());
        }
        out.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        let mut out = io::stdout().lock();
        if RESTORED_FOR_GOOD.load(Ordering::SeqCst) {
            return Ok(());
        }
        out.flush()
    }
}

/// Puts the outer terminal back. Safe to call more than once.
pub fn restore() {
    let held = io::stdout().lock();
    if !RESTORED_FOR_GOOD.load(Ordering::SeqCst) {
        put_back();
    }
    drop(held);
}

/// Puts the outer terminal back for good (a fatal signal, from the signal
/// thread while the main thread may be drawing): under the stdout lock, so
/// a frame being written is whole before it, and every later one dropped.
pub fn restore_for_good() {
    let held = io::stdout().lock();
    if !RESTORED_FOR_GOOD.swap(true, Ordering::SeqCst) {
        put_back();
    }
    drop(held);
}

fn put_back() {
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
