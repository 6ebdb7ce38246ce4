//! PTY output bytes to [`Signal`]s, in stream order.
//!
//! [`Scanner`] wraps a [`vte::Parser`] with a private
//! [`Perform`]: vte tracks escape-sequence state, and the performer turns the
//! few sequences termic cares about into signals: window titles (OSC 0/2),
//! notifications (OSC 9, 777 and kitty's 99), progress (OSC 9;4), termic hook
//! messages (OSC 777;termic), native program status (OSC 7501), shell-integration marks (OSC 133), a bare BEL, and
//! visible output. Everything else (CSI, DCS, other OSCs) is parsed and dropped.
//!
//! ```
//! use termic_signal::scanner::Scanner;
//! use termic_signal::signal::Signal;
//!
//! let mut scanner = Scanner::new();
//! let mut out = Vec::new();
//! scanner.feed(b"\x1b]0;\xe2\x9c\xb3 Claude", &mut out);
//! scanner.feed(b" Code\x07", &mut out); // split anywhere: same signals
//! assert_eq!(out, vec![Signal::Title("\u{2733} Claude Code".into())]);
//! ```
//!
//! Memory is bounded whatever the agent prints: the workspace's vte drops
//! any OSC longer than [`MAX_OSC_BYTES`] whole (never truncated: a cut
//! title or hook message would be a lie) without buffering more than that,
//! and the only other state is the bounded OSC 99 chunk table in `kitty.rs`.

mod kitty;
mod native;
mod osc;
mod shell;

use vte::{Parser, Perform};

use crate::signal::Signal;
use kitty::KittyAssembler;

/// Longest OSC body (the bytes between `ESC ]` and the terminator) the
/// scanner accepts. Longer sequences are dropped whole: a truncated title or
/// hook message would be a lie. 8 KiB is far above anything measured (titles
/// are under 200 bytes, a Claude 7501 `msg=` a few hundred) and twice kitty's
/// 4 KiB notification chunk.
pub const MAX_OSC_BYTES: usize = 8192;

// termic's screen model parses with vte's default bound and tees the parse
// to a [`SignalTap`]: the bound must be the scanner's.
const _: () = assert!(MAX_OSC_BYTES == vte::MAX_OSC_RAW);

/// Turns PTY output into [`Signal`]s. One per task; keeps state across
/// [`feed`](Scanner::feed) calls so a sequence split at any byte is seen whole.
pub struct Scanner {
    parser: Parser<MAX_OSC_BYTES>,
    tap: SignalTap,
}

/// What the scanner keeps besides its parser (the OSC 99 chunk table), for
/// a caller that parses the stream itself and hands every action of that
/// parse to [`SignalTap::performer`]: termic's screen thread parses each
/// byte once, for its screen model, and tees the actions here (vt100's
/// `process_also`). The same bytes give the same signals as
/// [`Scanner::feed`] when each call's performer is [`finish`]ed where a
/// `feed` call would end; vte's own bound on an OSC (dropped whole past
/// [`MAX_OSC_BYTES`]) is the scanner's too.
///
/// [`finish`]: SignalPerformer::finish
#[derive(Default)]
pub struct SignalTap {
    kitty: KittyAssembler,
}

impl SignalTap {
    /// The vte performer for one stretch of the stream; its signals go to
    /// `out` in stream order. Call [`SignalPerformer::finish`] at the end.
    pub fn performer<'a>(&'a mut self, out: &'a mut Vec<Signal>) -> SignalPerformer<'a> {
        SignalPerformer::new(out, &mut self.kitty)
    }

    /// Heap bytes held (the OSC 99 chunk table), as
    /// [`Scanner::retained_heap_bytes`].
    pub fn retained_heap_bytes(&self) -> usize {
        self.kitty.retained_heap_bytes()
    }
}

impl Default for Scanner {
    fn default() -> Self {
        Scanner::new()
    }
}

impl std::fmt::Debug for Scanner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scanner")
            .field("kitty_pending", &self.tap.kitty.pending_count())
            .finish_non_exhaustive()
    }
}

impl Scanner {
    pub fn new() -> Scanner {
        Scanner {
            // The workspace's vte drops an OSC longer than this whole, with
            // or without its `std` feature (vendor/vte/TERMIC-PATCH.md).
            parser: Parser::<MAX_OSC_BYTES>::default(),
            tap: SignalTap::default(),
        }
    }

    /// Scan `bytes` and push what they signal onto `out`, in stream order.
    ///
    /// At most one [`Signal::Activity`] is pushed per call, at the position of
    /// the first visible output in `bytes`: the engine only needs to know that
    /// the agent painted something, and this keeps the hot path to one flag.
    pub fn feed(&mut self, bytes: &[u8], out: &mut Vec<Signal>) {
        let mut performer = self.tap.performer(out);
        self.parser.advance(&mut performer, bytes);
        performer.finish();
    }

    /// Heap bytes this scanner holds beyond its fixed size (the OSC 99 chunk
    /// table). Bounded by [`Scanner::MAX_RETAINED_HEAP_BYTES`]; tests pin that.
    pub fn retained_heap_bytes(&self) -> usize {
        self.tap.retained_heap_bytes()
    }

    /// Upper bound of [`retained_heap_bytes`](Scanner::retained_heap_bytes).
    pub const MAX_RETAINED_HEAP_BYTES: usize = kitty::MAX_RETAINED_BYTES;
}

/// The vte callback sink for one `feed` call (or one stretch of a caller's
/// own parse, [`SignalTap`]).
pub struct SignalPerformer<'a> {
    out: &'a mut Vec<Signal>,
    kitty: &'a mut KittyAssembler,
    /// Visible output seen in this call. `print` only sets this flag (a
    /// branch-free store, since vte calls it per character); the Activity
    /// signal is placed when the next signal, or the end of the call, comes.
    visible: bool,
    activity_sent: bool,
}

impl<'a> SignalPerformer<'a> {
    fn new(out: &'a mut Vec<Signal>, kitty: &'a mut KittyAssembler) -> Self {
        SignalPerformer {
            out,
            kitty,
            visible: false,
            activity_sent: false,
        }
    }

    /// The end of the stretch: reports the visible output it held, if no
    /// signal after it has already.
    pub fn finish(mut self) {
        self.flush_activity();
    }

    /// Report Activity once, if visible output came before this point.
    #[inline]
    fn flush_activity(&mut self) {
        if self.visible && !self.activity_sent {
            self.activity_sent = true;
            self.out.push(Signal::Activity);
        }
    }

    fn push(&mut self, signal: Signal) {
        self.flush_activity();
        self.out.push(signal);
    }
}

const BEL: u8 = 0x07;
const LF: u8 = 0x0a;

impl Perform for SignalPerformer<'_> {
    /// Text only matters until the first visible output of a call: after
    /// it vte skips text (no UTF-8 decoding), calling `execute` for the
    /// C0 controls (a bare BEL) only.
    #[inline]
    fn wants_text(&self) -> bool {
        !self.visible
    }

    /// No signal comes from a CSI sequence: vte skips them unparsed.
    #[inline]
    fn wants_csi(&self) -> bool {
        false
    }

    #[inline(always)]
    fn print(&mut self, _c: char) {
        self.visible = true;
    }

    #[inline(always)]
    fn print_ascii(&mut self, _run: &[u8]) {
        self.visible = true;
    }

    #[inline(always)]
    fn print_non_ascii(&mut self, _run: &str) {
        self.visible = true;
    }

    #[inline]
    fn execute(&mut self, byte: u8) {
        match byte {
            // vte never executes the BEL that ends an OSC, so this one is bare.
            BEL => self.push(Signal::Bell),
            LF => self.visible = true,
            _ => {}
        }
    }

    fn osc_dispatch(&mut self, params: &[&[u8]], _bell_terminated: bool) {
        // Both terminators are accepted: Claude re-emits ST-ended sequences
        // with BEL, and other agents use either.
        if let Some(signal) = osc::dispatch(params, self.kitty) {
            self.push(signal);
        }
    }
}

#[cfg(test)]
mod tests;
