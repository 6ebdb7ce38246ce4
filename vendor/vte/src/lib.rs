//! Parser for implementing virtual terminal emulators
//!
//! [`Parser`] is implemented according to [Paul Williams' ANSI parser state
//! machine]. The state machine doesn't assign meaning to the parsed data and is
//! thus not itself sufficient for writing a terminal emulator. Instead, it is
//! expected that an implementation of [`Perform`] is provided which does
//! something useful with the parsed data. The [`Parser`] handles the book
//! keeping, and the [`Perform`] gets to simply handle actions.
//!
//! # Examples
//!
//! For an example of using the [`Parser`] please see the examples folder. The
//! example included there simply logs all the actions [`Perform`] does. One
//! quick way to see it in action is to pipe `printf` into it
//!
//! ```sh
//! printf '\x1b[31mExample' | cargo run --example parselog
//! ```
//!
//! # Differences from original state machine description
//!
//! * UTF-8 Support for Input
//! * OSC Strings can be terminated by 0x07
//! * Only supports 7-bit codes
//!
//! [`Parser`]: struct.Parser.html
//! [`Perform`]: trait.Perform.html
//! [Paul Williams' ANSI parser state machine]: https://vt100.net/emu/dec_ansi_parser
#![deny(clippy::all, clippy::if_not_else, clippy::enum_glob_use)]
#![cfg_attr(not(feature = "std"), no_std)]

use core::mem::MaybeUninit;
use core::str;

extern crate alloc;
use alloc::vec::Vec;

mod params;

#[cfg(feature = "ansi")]
pub mod ansi;
pub use params::{Params, ParamsIter};

const MAX_INTERMEDIATES: usize = 2;
const MAX_OSC_PARAMS: usize = 16;
/// termic: an OSC string longer than this is dropped whole (its bytes are
/// not kept), so a program that never ends one cannot grow the buffer. The
/// reply scanner in termic-signal uses the same bound.
pub const MAX_OSC_RAW: usize = 8 * 1024;

/// Parser for raw _VTE_ protocol which delegates actions to a [`Perform`]
///
/// [`Perform`]: trait.Perform.html
///
/// termic (see TERMIC-PATCH.md): the OSC buffer is bounded at
/// `OSC_RAW_BUF_SIZE` (default [`MAX_OSC_RAW`]) with the `std` feature too,
/// and invalid UTF-8 is parsed in one pass (upstream searched for the next
/// ESC again after every invalid byte).
#[derive(Default)]
pub struct Parser<const OSC_RAW_BUF_SIZE: usize = MAX_OSC_RAW> {
    state: State,
    intermediates: [u8; MAX_INTERMEDIATES],
    intermediate_idx: usize,
    params: Params,
    param: u16,
    osc_raw: Vec<u8>,
    /// The current OSC string passed `OSC_RAW_BUF_SIZE`: it is dropped.
    osc_overflow: bool,
    /// The `;` separators of the current OSC string so far (they are not
    /// kept in `osc_raw`, but count towards its bound).
    osc_separators: usize,
    osc_params: [(usize, usize); MAX_OSC_PARAMS],
    osc_num_params: usize,
    ignoring: bool,
    partial_utf8: [u8; 4],
    partial_utf8_len: usize,
}

impl Parser {
    /// Create a new Parser
    pub fn new() -> Parser {
        Default::default()
    }
}

impl<const OSC_RAW_BUF_SIZE: usize> Parser<OSC_RAW_BUF_SIZE> {
    /// Create a new Parser with a custom bound for the Operating System
    /// Command buffer (`vte::Parser::<64>::new_with_size()`).
    pub fn new_with_size() -> Parser<OSC_RAW_BUF_SIZE> {
        Default::default()
    }

    #[inline]
    fn params(&self) -> &Params {
        &self.params
    }

    #[inline]
    fn intermediates(&self) -> &[u8] {
        &self.intermediates[..self.intermediate_idx]
    }

    /// Advance the parser state.
    ///
    /// Requires a [`Perform`] implementation to handle the triggered actions.
    ///
    /// [`Perform`]: trait.Perform.html
    #[inline]
    pub fn advance<P: Perform>(&mut self, performer: &mut P, bytes: &[u8]) {
        let mut i = 0;

        // Handle partial codepoints from previous calls to `advance`.
        if self.partial_utf8_len != 0 {
            i += self.advance_partial_utf8(performer, bytes);
        }

        while i != bytes.len() {
            match self.state {
                State::Ground => i += self.advance_ground(performer, &bytes[i..]),
                State::CsiEntry | State::CsiParam => {
                    i += self.advance_csi_params(performer, &bytes[i..])
                },
                State::CsiIgnore => i += self.advance_csi_ignored(performer, &bytes[i..]),
                _ => {
                    // Inlining it results in worse codegen.
                    let byte = bytes[i];
                    self.change_state(performer, byte);
                    i += 1;
                },
            }
        }
    }

    /// termic: a CSI sequence's parameter bytes (digits and `;`, most of a
    /// dense SGR) in one loop, without going back to [`Self::advance`]'s
    /// state match for each; any other byte goes through the state machine
    /// as before, and the loop ends once the state leaves the parameters.
    /// The actions are those of `change_state` byte by byte.
    #[inline]
    fn advance_csi_params<P: Perform>(&mut self, performer: &mut P, bytes: &[u8]) -> usize {
        let mut i = 0;
        while let Some(&byte) = bytes.get(i) {
            i += 1;
            match byte {
                0x30..=0x39 => self.action_paramnext(byte),
                0x3B => self.action_param(),
                _ => {
                    self.change_state(performer, byte);
                    if !matches!(self.state, State::CsiEntry | State::CsiParam) {
                        return i;
                    }
                    continue;
                },
            }
            self.state = State::CsiParam;
        }
        i
    }

    /// termic: the bytes of an ignored CSI sequence up to the one that
    /// ends or interrupts it, in one loop; that byte goes through the state
    /// machine.
    #[inline]
    fn advance_csi_ignored<P: Perform>(&mut self, performer: &mut P, bytes: &[u8]) -> usize {
        let run = bytes.iter().position(|b| !(0x20..=0x3F).contains(b)).unwrap_or(bytes.len());
        if let Some(&byte) = bytes.get(run) {
            self.change_state(performer, byte);
            return run + 1;
        }
        run
    }

    /// Partially advance the parser state.
    ///
    /// This is equivalent to [`Self::advance`], but stops when
    /// [`Perform::terminated`] is true after reading a byte.
    ///
    /// Returns the number of bytes read before termination.
    ///
    /// See [`Perform::advance`] for more details.
    #[inline]
    #[must_use = "Returned value should be used to processs the remaining bytes"]
    pub fn advance_until_terminated<P: Perform>(
        &mut self,
        performer: &mut P,
        bytes: &[u8],
    ) -> usize {
        let mut i = 0;

        // Handle partial codepoints from previous calls to `advance`.
        if self.partial_utf8_len != 0 {
            i += self.advance_partial_utf8(performer, bytes);
        }

        while i != bytes.len() && !performer.terminated() {
            match self.state {
                State::Ground => i += self.advance_ground(performer, &bytes[i..]),
                _ => {
                    // Inlining it results in worse codegen.
                    let byte = bytes[i];
                    self.change_state(performer, byte);
                    i += 1;
                },
            }
        }

        i
    }

    #[inline(always)]
    fn change_state<P: Perform>(&mut self, performer: &mut P, byte: u8) {
        match self.state {
            State::CsiEntry => self.advance_csi_entry(performer, byte),
            State::CsiIgnore => self.advance_csi_ignore(performer, byte),
            State::CsiIntermediate => self.advance_csi_intermediate(performer, byte),
            State::CsiParam => self.advance_csi_param(performer, byte),
            State::DcsEntry => self.advance_dcs_entry(performer, byte),
            State::DcsIgnore => self.anywhere(performer, byte),
            State::DcsIntermediate => self.advance_dcs_intermediate(performer, byte),
            State::DcsParam => self.advance_dcs_param(performer, byte),
            State::DcsPassthrough => self.advance_dcs_passthrough(performer, byte),
            State::Escape => self.advance_esc(performer, byte),
            State::EscapeIntermediate => self.advance_esc_intermediate(performer, byte),
            State::OscString => self.advance_osc_string(performer, byte),
            State::SosPmApcString => self.anywhere(performer, byte),
            State::Ground => unreachable!(),
        }
    }

    #[inline(always)]
    fn advance_csi_entry<P: Perform>(&mut self, performer: &mut P, byte: u8) {
        match byte {
            0x00..=0x17 | 0x19 | 0x1C..=0x1F => performer.execute(byte),
            0x20..=0x2F => {
                self.action_collect(byte);
                self.state = State::CsiIntermediate
            },
            0x30..=0x39 => {
                self.action_paramnext(byte);
                self.state = State::CsiParam
            },
            0x3A => {
                self.action_subparam();
                self.state = State::CsiParam
            },
            0x3B => {
                self.action_param();
                self.state = State::CsiParam
            },
            0x3C..=0x3F => {
                self.action_collect(byte);
                self.state = State::CsiParam
            },
            0x40..=0x7E => self.action_csi_dispatch(performer, byte),
            _ => self.anywhere(performer, byte),
        }
    }

    #[inline(always)]
    fn advance_csi_ignore<P: Perform>(&mut self, performer: &mut P, byte: u8) {
        match byte {
            0x00..=0x17 | 0x19 | 0x1C..=0x1F => performer.execute(byte),
            0x20..=0x3F => (),
            0x40..=0x7E => self.state = State::Ground,
            0x7F => (),
            _ => self.anywhere(performer, byte),
        }
    }

    #[inline(always)]
    fn advance_csi_intermediate<P: Perform>(&mut self, performer: &mut P, byte: u8) {
        match byte {
            0x00..=0x17 | 0x19 | 0x1C..=0x1F => performer.execute(byte),
            0x20..=0x2F => self.action_collect(byte),
            0x30..=0x3F => self.state = State::CsiIgnore,
            0x40..=0x7E => self.action_csi_dispatch(performer, byte),
            _ => self.anywhere(performer, byte),
        }
    }

    #[inline(always)]
    fn advance_csi_param<P: Perform>(&mut self, performer: &mut P, byte: u8) {
        match byte {
            0x00..=0x17 | 0x19 | 0x1C..=0x1F => performer.execute(byte),
            0x20..=0x2F => {
                self.action_collect(byte);
                self.state = State::CsiIntermediate
            },
            0x30..=0x39 => self.action_paramnext(byte),
            0x3A => self.action_subparam(),
            0x3B => self.action_param(),
            0x3C..=0x3F => self.state = State::CsiIgnore,
            0x40..=0x7E => self.action_csi_dispatch(performer, byte),
            0x7F => (),
            _ => self.anywhere(performer, byte),
        }
    }

    #[inline(always)]
    fn advance_dcs_entry<P: Perform>(&mut self, performer: &mut P, byte: u8) {
        match byte {
            0x00..=0x17 | 0x19 | 0x1C..=0x1F => (),
            0x20..=0x2F => {
                self.action_collect(byte);
                self.state = State::DcsIntermediate
            },
            0x30..=0x39 => {
                self.action_paramnext(byte);
                self.state = State::DcsParam
            },
            0x3A => {
                self.action_subparam();
                self.state = State::DcsParam
            },
            0x3B => {
                self.action_param();
                self.state = State::DcsParam
            },
            0x3C..=0x3F => {
                self.action_collect(byte);
                self.state = State::DcsParam
            },
            0x40..=0x7E => self.action_hook(performer, byte),
            0x7F => (),
            _ => self.anywhere(performer, byte),
        }
    }

    #[inline(always)]
    fn advance_dcs_intermediate<P: Perform>(&mut self, performer: &mut P, byte: u8) {
        match byte {
            0x00..=0x17 | 0x19 | 0x1C..=0x1F => (),
            0x20..=0x2F => self.action_collect(byte),
            0x30..=0x3F => self.state = State::DcsIgnore,
            0x40..=0x7E => self.action_hook(performer, byte),
            0x7F => (),
            _ => self.anywhere(performer, byte),
        }
    }

    #[inline(always)]
    fn advance_dcs_param<P: Perform>(&mut self, performer: &mut P, byte: u8) {
        match byte {
            0x00..=0x17 | 0x19 | 0x1C..=0x1F => (),
            0x20..=0x2F => {
                self.action_collect(byte);
                self.state = State::DcsIntermediate
            },
            0x30..=0x39 => self.action_paramnext(byte),
            0x3A => self.action_subparam(),
            0x3B => self.action_param(),
            0x3C..=0x3F => self.state = State::DcsIgnore,
            0x40..=0x7E => self.action_hook(performer, byte),
            0x7F => (),
            _ => self.anywhere(performer, byte),
        }
    }

    #[inline(always)]
    fn advance_dcs_passthrough<P: Perform>(&mut self, performer: &mut P, byte: u8) {
        match byte {
            0x00..=0x17 | 0x19 | 0x1C..=0x7E => performer.put(byte),
            0x18 | 0x1A => {
                performer.unhook();
                performer.execute(byte);
                self.state = State::Ground
            },
            0x1B => {
                performer.unhook();
                self.reset_params();
                self.state = State::Escape
            },
            0x7F => (),
            0x9C => {
                performer.unhook();
                self.state = State::Ground
            },
            _ => (),
        }
    }

    #[inline(always)]
    fn advance_esc<P: Perform>(&mut self, performer: &mut P, byte: u8) {
        match byte {
            0x00..=0x17 | 0x19 | 0x1C..=0x1F => performer.execute(byte),
            0x20..=0x2F => {
                self.action_collect(byte);
                self.state = State::EscapeIntermediate
            },
            0x30..=0x4F => {
                performer.esc_dispatch(self.intermediates(), self.ignoring, byte);
                self.state = State::Ground
            },
            0x50 => {
                self.reset_params();
                self.state = State::DcsEntry
            },
            0x51..=0x57 => {
                performer.esc_dispatch(self.intermediates(), self.ignoring, byte);
                self.state = State::Ground
            },
            0x58 => self.state = State::SosPmApcString,
            0x59..=0x5A => {
                performer.esc_dispatch(self.intermediates(), self.ignoring, byte);
                self.state = State::Ground
            },
            0x5B => {
                // termic: a CSI sequence nobody reads is skipped to its end:
                // in every CSI state a byte does the same except for what
                // it adds to the dispatch, so the ignore state stands for
                // them all.
                if performer.wants_csi() {
                    self.reset_params();
                    self.state = State::CsiEntry
                } else {
                    self.state = State::CsiIgnore
                }
            },
            0x5C => {
                performer.esc_dispatch(self.intermediates(), self.ignoring, byte);
                self.state = State::Ground
            },
            0x5D => {
                self.osc_raw.clear();
                self.osc_overflow = false;
                self.osc_separators = 0;
                self.osc_num_params = 0;
                self.state = State::OscString
            },
            0x5E..=0x5F => self.state = State::SosPmApcString,
            0x60..=0x7E => {
                performer.esc_dispatch(self.intermediates(), self.ignoring, byte);
                self.state = State::Ground
            },
            // Anywhere.
            0x18 | 0x1A => {
                performer.execute(byte);
                self.state = State::Ground
            },
            0x1B => (),
            _ => (),
        }
    }

    #[inline(always)]
    fn advance_esc_intermediate<P: Perform>(&mut self, performer: &mut P, byte: u8) {
        match byte {
            0x00..=0x17 | 0x19 | 0x1C..=0x1F => performer.execute(byte),
            0x20..=0x2F => self.action_collect(byte),
            0x30..=0x7E => {
                performer.esc_dispatch(self.intermediates(), self.ignoring, byte);
                self.state = State::Ground
            },
            0x7F => (),
            _ => self.anywhere(performer, byte),
        }
    }

    #[inline(always)]
    fn advance_osc_string<P: Perform>(&mut self, performer: &mut P, byte: u8) {
        match byte {
            0x00..=0x06 | 0x08..=0x17 | 0x19 | 0x1C..=0x1F => (),
            0x07 => {
                self.osc_end(performer, byte);
                self.state = State::Ground
            },
            0x18 | 0x1A => {
                self.osc_end(performer, byte);
                performer.execute(byte);
                self.state = State::Ground
            },
            0x1B => {
                self.osc_end(performer, byte);
                self.reset_params();
                self.state = State::Escape
            },
            0x3B => {
                if self.osc_overflow || self.osc_full() {
                    return;
                }
                self.osc_separators += 1;
                self.action_osc_put_param()
            },
            _ => self.action_osc_put(byte),
        }
    }

    #[inline(always)]
    fn anywhere<P: Perform>(&mut self, performer: &mut P, byte: u8) {
        match byte {
            0x18 | 0x1A => {
                performer.execute(byte);
                self.state = State::Ground
            },
            0x1B => {
                self.reset_params();
                self.state = State::Escape
            },
            _ => (),
        }
    }

    #[inline]
    fn action_csi_dispatch<P: Perform>(&mut self, performer: &mut P, byte: u8) {
        if self.params.is_full() {
            self.ignoring = true;
        } else {
            self.params.push(self.param);
        }
        performer.csi_dispatch(self.params(), self.intermediates(), self.ignoring, byte as char);

        self.state = State::Ground
    }

    #[inline]
    fn action_hook<P: Perform>(&mut self, performer: &mut P, byte: u8) {
        if self.params.is_full() {
            self.ignoring = true;
        } else {
            self.params.push(self.param);
        }
        performer.hook(self.params(), self.intermediates(), self.ignoring, byte as char);
        self.state = State::DcsPassthrough;
    }

    #[inline]
    fn action_collect(&mut self, byte: u8) {
        if self.intermediate_idx == MAX_INTERMEDIATES {
            self.ignoring = true;
        } else {
            self.intermediates[self.intermediate_idx] = byte;
            self.intermediate_idx += 1;
        }
    }

    /// Advance to the next subparameter.
    #[inline]
    fn action_subparam(&mut self) {
        if self.params.is_full() {
            self.ignoring = true;
        } else {
            self.params.extend(self.param);
            self.param = 0;
        }
    }

    /// Advance to the next parameter.
    #[inline]
    fn action_param(&mut self) {
        if self.params.is_full() {
            self.ignoring = true;
        } else {
            self.params.push(self.param);
            self.param = 0;
        }
    }

    /// Advance inside the parameter without terminating it.
    #[inline]
    fn action_paramnext(&mut self, byte: u8) {
        if self.params.is_full() {
            self.ignoring = true;
        } else {
            // Continue collecting bytes into param.
            self.param = self.param.saturating_mul(10);
            self.param = self.param.saturating_add((byte - b'0') as u16);
        }
    }

    /// Add OSC param separator.
    #[inline]
    fn action_osc_put_param(&mut self) {
        let idx = self.osc_raw.len();

        let param_idx = self.osc_num_params;
        match param_idx {
            // First param is special - 0 to current byte index.
            0 => self.osc_params[param_idx] = (0, idx),

            // Only process up to MAX_OSC_PARAMS.
            MAX_OSC_PARAMS => return,

            // All other params depend on previous indexing.
            _ => {
                let prev = self.osc_params[param_idx - 1];
                let begin = prev.1;
                self.osc_params[param_idx] = (begin, idx);
            },
        }

        self.osc_num_params += 1;
    }

    #[inline(always)]
    fn action_osc_put(&mut self, byte: u8) {
        if self.osc_full() {
            return;
        }
        self.osc_raw.push(byte);
    }

    /// termic: whether the OSC body (every byte between `ESC ]` and the
    /// terminator but the C0 controls vte skips, separators included) is
    /// already `OSC_RAW_BUF_SIZE` long; if so, the string is marked to be
    /// dropped.
    #[inline(always)]
    fn osc_full(&mut self) -> bool {
        if self.osc_raw.len() + self.osc_separators >= OSC_RAW_BUF_SIZE {
            self.osc_overflow = true;
        }
        self.osc_overflow
    }

    fn osc_end<P: Perform>(&mut self, performer: &mut P, byte: u8) {
        if !self.osc_overflow {
            self.action_osc_put_param();
            self.osc_dispatch(performer, byte);
        }
        self.osc_raw.clear();
        // Keep a normal buffer, give back what an overlong string took.
        self.osc_raw.shrink_to(256);
        self.osc_overflow = false;
        self.osc_separators = 0;
        self.osc_num_params = 0;
    }

    /// Reset escape sequence parameters and intermediates.
    #[inline]
    fn reset_params(&mut self) {
        self.intermediate_idx = 0;
        self.ignoring = false;
        self.param = 0;

        self.params.clear();
    }

    /// Separate method for osc_dispatch that borrows self as read-only
    ///
    /// The aliasing is needed here for multiple slices into self.osc_raw
    #[inline]
    fn osc_dispatch<P: Perform>(&self, performer: &mut P, byte: u8) {
        let mut slices: [MaybeUninit<&[u8]>; MAX_OSC_PARAMS] =
            unsafe { MaybeUninit::uninit().assume_init() };

        for (i, slice) in slices.iter_mut().enumerate().take(self.osc_num_params) {
            let indices = self.osc_params[i];
            *slice = MaybeUninit::new(&self.osc_raw[indices.0..indices.1]);
        }

        unsafe {
            let num_params = self.osc_num_params;
            let params = &slices[..num_params] as *const [MaybeUninit<&[u8]>] as *const [&[u8]];
            performer.osc_dispatch(&*params, byte == 0x07);
        }
    }

    /// Advance the parser state from ground.
    ///
    /// The ground state is handled separately since it can only be left using
    /// the escape character (`\x1b`). This allows more efficient parsing by
    /// using SIMD search with [`memchr`].
    ///
    /// termic: the text before the ESC is searched once. Upstream returned
    /// after each invalid byte and searched for the ESC again, so a run of
    /// invalid bytes cost a search of the rest of the buffer per byte
    /// (quadratic; 10 MB of 0xff took 17 CPU-s).
    #[inline]
    fn advance_ground<P: Perform>(&mut self, performer: &mut P, bytes: &[u8]) -> usize {
        // termic: the common text is printable ASCII and C0 controls (a
        // few characters between SGRs, a line's CR LF) up to an ESC. It is
        // dispatched as it is scanned (`dispatch_ascii` stops at the ESC),
        // without memchr's search for the ESC first (about 75 instructions
        // a call, more than such a run costs to scan). From a non-ASCII
        // byte on, the general path takes the rest of the text, with the
        // performer's `wants_text` asked once for all of it.
        let wants_text = performer.wants_text();
        if wants_text {
            let i = Self::dispatch_ascii(performer, bytes);
            return match bytes.get(i) {
                None => i,
                Some(0x1B) => {
                    self.state = State::Escape;
                    self.reset_params();
                    i + 1
                },
                Some(_) => i + self.advance_text(performer, &bytes[i..], true),
            };
        }
        self.advance_text(performer, bytes, wants_text)
    }

    /// The text at the start of `bytes` up to the next ESC, and that ESC
    /// (`advance_ground` without its printable-ASCII shortcut). `wants_text`
    /// is the performer's answer for this text.
    #[inline]
    fn advance_text<P: Perform>(
        &mut self,
        performer: &mut P,
        bytes: &[u8],
        wants_text: bool,
    ) -> usize {
        // Find the next escape character.
        let num_bytes = bytes.len();
        let plain_chars = memchr::memchr(0x1B, bytes).unwrap_or(num_bytes);

        // If the next character is ESC, just process it and short-circuit.
        if plain_chars == 0 {
            self.state = State::Escape;
            self.reset_params();
            return 1;
        }

        // termic: text nobody reads costs one pass for its C0 controls. A
        // character cut off by the buffer end is still kept, as the path
        // below keeps it: the next call may want its text, and must see
        // the character whole (not a stray continuation byte).
        if !wants_text {
            for &byte in &bytes[..plain_chars] {
                if byte < 0x20 {
                    performer.execute(byte);
                }
            }
            if plain_chars == num_bytes {
                let tail = incomplete_char_len(&bytes[..plain_chars]);
                self.keep_cut_char(&bytes[plain_chars - tail..]);
                return plain_chars;
            }
            self.state = State::Escape;
            self.reset_params();
            return plain_chars + 1;
        }

        // termic: the ASCII at the start of the text is dispatched without
        // UTF-8 validation (it is valid), as `ground_dispatch` does; the
        // rest, from the first non-ASCII byte, goes through the loop below.
        let mut start = Self::dispatch_ascii(performer, &bytes[..plain_chars]);
        // The common text is all ASCII: nothing is left to validate.
        if start == plain_chars {
            if plain_chars < num_bytes {
                self.state = State::Escape;
                self.reset_params();
                return plain_chars + 1;
            }
            return plain_chars;
        }

        loop {
            match str::from_utf8(&bytes[start..plain_chars]) {
                Ok(parsed) => {
                    Self::ground_dispatch(performer, parsed);
                    let mut processed = plain_chars;

                    // If there's another character, it must be escape so process it directly.
                    if processed < num_bytes {
                        self.state = State::Escape;
                        self.reset_params();
                        processed += 1;
                    }

                    return processed;
                },
                // Handle invalid and partial utf8.
                Err(err) => {
                    // Dispatch all the valid bytes.
                    let valid_bytes = start + err.valid_up_to();
                    let parsed = unsafe { str::from_utf8_unchecked(&bytes[start..valid_bytes]) };
                    Self::ground_dispatch(performer, parsed);

                    match err.error_len() {
                        Some(len) => {
                            Self::dispatch_invalid(performer, &bytes[valid_bytes..valid_bytes + len]);

                            // Go on after the invalid bytes, in the same text;
                            // a valid or cut character goes back to the loop.
                            start = valid_bytes + len;
                            start += Self::dispatch_garbage(performer, &bytes[start..plain_chars]);
                            if start == plain_chars {
                                return start;
                            }
                        },
                        None => {
                            if plain_chars < num_bytes {
                                // Process bytes cut off by escape.
                                performer.print('\u{FFFD}');
                                self.state = State::Escape;
                                self.reset_params();
                                return plain_chars + 1;
                            }
                            // Process bytes cut off by the buffer end.
                            self.keep_cut_char(&bytes[valid_bytes..]);
                            return num_bytes;
                        },
                    }
                },
            }
        }
    }

    /// The first bytes of a character cut off by the buffer end, kept for
    /// the next call to complete.
    #[inline]
    fn keep_cut_char(&mut self, cut: &[u8]) {
        let len = self.partial_utf8_len + cut.len();
        self.partial_utf8[self.partial_utf8_len..len].copy_from_slice(cut);
        self.partial_utf8_len = len;
    }

    /// Advance the parser while processing a partial utf8 codepoint.
    #[inline]
    fn advance_partial_utf8<P: Perform>(&mut self, performer: &mut P, bytes: &[u8]) -> usize {
        // Try to copy up to 3 more characters, to ensure the codepoint is complete.
        let old_bytes = self.partial_utf8_len;
        let to_copy = bytes.len().min(self.partial_utf8.len() - old_bytes);
        self.partial_utf8[old_bytes..old_bytes + to_copy].copy_from_slice(&bytes[..to_copy]);
        self.partial_utf8_len += to_copy;

        // Parse the unicode character.
        match str::from_utf8(&self.partial_utf8[..self.partial_utf8_len]) {
            // If the entire buffer is valid, use the first character and continue parsing.
            Ok(parsed) => {
                let c = unsafe { parsed.chars().next().unwrap_unchecked() };
                Self::dispatch_completed(performer, c);

                self.partial_utf8_len = 0;
                c.len_utf8() - old_bytes
            },
            Err(err) => {
                let valid_bytes = err.valid_up_to();
                // If we have any valid bytes, that means we partially copied another
                // utf8 character into `partial_utf8`. Since we only care about the
                // first character, we just ignore the rest.
                if valid_bytes > 0 {
                    let c = unsafe {
                        let parsed = str::from_utf8_unchecked(&self.partial_utf8[..valid_bytes]);
                        parsed.chars().next().unwrap_unchecked()
                    };

                    Self::dispatch_completed(performer, c);

                    self.partial_utf8_len = 0;
                    // termic: only the first character is taken; upstream
                    // returned `valid_bytes - old_bytes`, which also
                    // swallowed the valid bytes copied after it (a cut `é`
                    // followed by `\n` and another cut character lost the
                    // `\n`).
                    return c.len_utf8() - old_bytes;
                }

                match err.error_len() {
                    // If the partial character was also invalid, emit the replacement
                    // character.
                    Some(invalid_len) => {
                        Self::dispatch_completed(performer, '\u{FFFD}');

                        self.partial_utf8_len = 0;
                        invalid_len - old_bytes
                    },
                    // If the character still isn't complete, wait for more data.
                    None => to_copy,
                }
            },
        }
    }

    /// termic: a character completed by this call's bytes belongs to this
    /// call's text, so it is dispatched only if the performer wants text now
    /// (it may have been cut in text that was skipped, or the reverse).
    #[inline]
    fn dispatch_completed<P: Perform>(performer: &mut P, c: char) {
        if performer.wants_text() {
            Self::dispatch_char(performer, c);
        }
    }

    /// Handle ground dispatch of print/execute for all characters in a string.
    ///
    /// termic: a run of printable ASCII goes to [`Perform::print_ascii`] in
    /// one call, and a run of printable non-ASCII characters to
    /// [`Perform::print_non_ascii`] (upstream called `print` once per
    /// character).
    #[inline]
    fn ground_dispatch<P: Perform>(performer: &mut P, text: &str) {
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            i += Self::dispatch_ascii(performer, &bytes[i..]);
            if i == bytes.len() {
                break;
            }
            // `i` is on a char boundary: it follows ASCII or a whole char.
            let run = non_ascii_run_len(&bytes[i..]);
            if run > 0 {
                performer.print_non_ascii(&text[i..i + run]);
                i += run;
                continue;
            }
            let c = text[i..].chars().next().unwrap_or('\u{FFFD}');
            Self::dispatch_char(performer, c);
            i += c.len_utf8();
        }
    }

    /// One character of text: a C0 or C1 control is executed, anything
    /// else printed. termic: a character completed across two `advance`
    /// calls goes through here too (upstream printed it, so a C1 control
    /// such as NEL, `\xc2\x85`, was executed or printed depending on where
    /// a read cut the stream).
    #[inline]
    fn dispatch_char<P: Perform>(performer: &mut P, c: char) {
        match c {
            '\x00'..='\x1f' | '\u{80}'..='\u{9f}' => performer.execute(c as u8),
            _ => performer.print(c),
        }
    }

    /// One invalid sequence, as `str::from_utf8` delimits it: a lone byte
    /// from 0x80 to 0x9F is the C1 control it stands for (executed),
    /// anything else one U+FFFD.
    #[inline]
    fn dispatch_invalid<P: Perform>(performer: &mut P, sequence: &[u8]) {
        match *sequence {
            [byte @ 0x80..=0x9F] => performer.execute(byte),
            _ => performer.print('\u{FFFD}'),
        }
    }

    /// termic: after an invalid sequence, dispatch what follows up to the
    /// first valid multi-byte character (or one cut off by the end of
    /// `bytes`): ASCII as [`Self::dispatch_ascii`] does, and each invalid
    /// sequence as `str::from_utf8` delimits it, without calling it: a
    /// byte that can never be part of a character (a stray continuation
    /// byte, 0xC0, 0xC1, 0xF5 to 0xFF), or a lead byte and the continuation
    /// bytes its lead allows after it ([`lead_char`]). A C1 control is
    /// executed, anything else is a U+FFFD. Each byte's class is read once:
    /// a validation call per invalid sequence cost more than the sequence
    /// (TERMIC-PATCH.md has the figures). Stops before an ESC too (the
    /// caller's text has none). Returns how many bytes it took.
    #[inline]
    fn dispatch_garbage<P: Perform>(performer: &mut P, bytes: &[u8]) -> usize {
        let mut i = 0;
        while let Some(&byte) = bytes.get(i) {
            match byte {
                // `lead_char` would say Invalid(1) for these too, but
                // through it 0xff garbage measured 2.7x slower (0.40x of
                // text against 1.07x) and mixed garbage 1.73x against 1.88x
                0x80..=0xC1 | 0xF5..=0xFF => {
                    Self::dispatch_invalid(performer, &bytes[i..i + 1]);
                    i += 1;
                },
                0xC2..=0xF4 => match lead_char(&bytes[i..]) {
                    LeadChar::Invalid(len) => {
                        Self::dispatch_invalid(performer, &bytes[i..i + len]);
                        i += len;
                    },
                    LeadChar::ValidOrCut => return i,
                },
                0x1B => return i,
                _ => i += Self::dispatch_ascii(performer, &bytes[i..]),
            }
        }
        i
    }

    /// termic: dispatch the ASCII bytes at the start of `bytes` (up to the
    /// first ESC or byte of 0x80 or above): each run of printable ASCII to
    /// `print_ascii`, a C0 control to `execute`, DEL to `print`. Returns
    /// how many bytes it took. ASCII needs no UTF-8 validation.
    #[inline]
    fn dispatch_ascii<P: Perform>(performer: &mut P, bytes: &[u8]) -> usize {
        let mut i = 0;
        while let Some(&byte) = bytes.get(i).filter(|b| **b < 0x80 && **b != 0x1B) {
            let run = bytes[i..].iter().take_while(|b| (0x20..0x7f).contains(*b)).count();
            if run > 0 {
                performer.print_ascii(&bytes[i..i + run]);
                i += run;
                continue;
            }
            match byte {
                0x7f => performer.print('\x7f'),
                _ => performer.execute(byte),
            }
            i += 1;
        }
        i
    }
}

/// termic: the length of the character cut off at the end of `text`: its
/// lead byte and the continuation bytes after it, fewer than the lead byte
/// announces (what `str::from_utf8` reports as an unexpected end), or 0.
#[inline]
fn incomplete_char_len(text: &[u8]) -> usize {
    let lead = text.iter().rev().take(3).position(|b| b & 0xC0 != 0x80);
    match lead.map(|back| &text[text.len() - back - 1..]) {
        Some(tail) => match str::from_utf8(tail) {
            Err(e) if e.valid_up_to() == 0 && e.error_len().is_none() => tail.len(),
            _ => 0,
        },
        None => 0,
    }
}

/// termic: what `str::from_utf8` says of the character that begins
/// `bytes`, read from its lead byte and the bytes its lead announces.
enum LeadChar {
    /// A whole valid character, or the start of one cut off by the end of
    /// `bytes`: the validating path takes it from here.
    ValidOrCut,
    /// An invalid sequence of this many bytes (as `Utf8Error::error_len`
    /// counts it: the lead and the continuation bytes valid after it).
    Invalid(usize),
}

/// termic: [`LeadChar`] for the character at the start of `bytes`
/// (non-empty), by the table of well-formed UTF-8 (Unicode 3.9, table
/// 3-7) that `str::from_utf8` follows: the second byte's range depends on
/// the lead (no overlong forms, no surrogates, nothing past U+10FFFF),
/// every later byte is 0x80 to 0xBF.
#[inline]
fn lead_char(bytes: &[u8]) -> LeadChar {
    let (len, second) = match bytes[0] {
        0xC2..=0xDF => (2, 0x80..=0xBF),
        0xE0 => (3, 0xA0..=0xBF),
        0xE1..=0xEC | 0xEE..=0xEF => (3, 0x80..=0xBF),
        0xED => (3, 0x80..=0x9F),
        0xF0 => (4, 0x90..=0xBF),
        0xF1..=0xF3 => (4, 0x80..=0xBF),
        0xF4 => (4, 0x80..=0x8F),
        _ => return LeadChar::Invalid(1),
    };
    for i in 1..len {
        let Some(&byte) = bytes.get(i) else {
            return LeadChar::ValidOrCut;
        };
        let fits = if i == 1 { second.contains(&byte) } else { (0x80..=0xBF).contains(&byte) };
        if !fits {
            return LeadChar::Invalid(i);
        }
    }
    LeadChar::ValidOrCut
}

/// termic: the length in bytes of the printable non-ASCII characters (U+00A0
/// and up) at the start of `bytes`, which is valid UTF-8. Every byte of such
/// a character is 0x80 or above; a C1 control (U+0080..=U+009F, encoded
/// 0xC2 0x80..=0x9F) or any ASCII byte ends the run, so it ends on a
/// character boundary.
#[inline]
fn non_ascii_run_len(bytes: &[u8]) -> usize {
    let mut n = 0;
    while let Some(&b) = bytes.get(n) {
        if b < 0x80 || (b == 0xC2 && matches!(bytes.get(n + 1), Some(&next) if next < 0xA0)) {
            break;
        }
        n += 1;
    }
    n
}

#[derive(PartialEq, Eq, Debug, Default, Copy, Clone)]
enum State {
    CsiEntry,
    CsiIgnore,
    CsiIntermediate,
    CsiParam,
    DcsEntry,
    DcsIgnore,
    DcsIntermediate,
    DcsParam,
    DcsPassthrough,
    Escape,
    EscapeIntermediate,
    OscString,
    SosPmApcString,
    #[default]
    Ground,
}

/// Performs actions requested by the Parser
///
/// Actions in this case mean, for example, handling a CSI escape sequence
/// describing cursor movement, or simply printing characters to the screen.
///
/// The methods on this type correspond to actions described in
/// <http://vt100.net/emu/dec_ansi_parser>. I've done my best to describe them in
/// a useful way in my own words for completeness, but the site should be
/// referenced if something isn't clear. If the site disappears at some point in
/// the future, consider checking archive.org.
pub trait Perform {
    /// Draw a character to the screen and update states.
    fn print(&mut self, _c: char) {}

    /// termic: draw a run of printable ASCII (`0x20..=0x7e`), the same as
    /// calling [`Perform::print`] for each byte, which is what this default
    /// does. A screen can write the whole run at once.
    fn print_ascii(&mut self, run: &[u8]) {
        for &b in run {
            self.print(char::from(b));
        }
    }

    /// termic: draw a run of printable non-ASCII characters (U+00A0 and
    /// up, no control), the same as calling [`Perform::print`] for each
    /// character, which is what this default does. A screen can write the
    /// characters that fit on its current row without the per-character
    /// bookkeeping.
    fn print_non_ascii(&mut self, run: &str) {
        for c in run.chars() {
            self.print(c);
        }
    }

    /// termic: whether this performer needs the text at all. When it says
    /// no, the parser skips the text up to the next ESC: no `print`,
    /// `print_ascii` or `print_non_ascii`, no `execute` of a C1 control
    /// in it, and an incomplete UTF-8 character at its end is dropped;
    /// `execute` is still called for every C0 control byte, in order.
    /// Asked once at the start of each run of text. A performer that only
    /// needs to know that something was printed (the signal scanner) says
    /// no once it knows.
    #[inline]
    fn wants_text(&self) -> bool {
        true
    }

    /// termic: whether this performer needs [`Perform::csi_dispatch`].
    /// When it says no, CSI sequences are skipped without collecting their
    /// parameters; the C0 controls inside them are still executed. Asked
    /// at each `ESC [`.
    #[inline]
    fn wants_csi(&self) -> bool {
        true
    }

    /// Execute a C0 or C1 control function.
    fn execute(&mut self, _byte: u8) {}

    /// Invoked when a final character arrives in first part of device control
    /// string.
    ///
    /// The control function should be determined from the private marker, final
    /// character, and execute with a parameter list. A handler should be
    /// selected for remaining characters in the string; the handler
    /// function should subsequently be called by `put` for every character in
    /// the control string.
    ///
    /// The `ignore` flag indicates that more than two intermediates arrived and
    /// subsequent characters were ignored.
    fn hook(&mut self, _params: &Params, _intermediates: &[u8], _ignore: bool, _action: char) {}

    /// Pass bytes as part of a device control string to the handle chosen in
    /// `hook`. C0 controls will also be passed to the handler.
    fn put(&mut self, _byte: u8) {}

    /// Called when a device control string is terminated.
    ///
    /// The previously selected handler should be notified that the DCS has
    /// terminated.
    fn unhook(&mut self) {}

    /// Dispatch an operating system command.
    fn osc_dispatch(&mut self, _params: &[&[u8]], _bell_terminated: bool) {}

    /// A final character has arrived for a CSI sequence
    ///
    /// The `ignore` flag indicates that either more than two intermediates
    /// arrived or the number of parameters exceeded the maximum supported
    /// length, and subsequent characters were ignored.
    fn csi_dispatch(
        &mut self,
        _params: &Params,
        _intermediates: &[u8],
        _ignore: bool,
        _action: char,
    ) {
    }

    /// The final character of an escape sequence has arrived.
    ///
    /// The `ignore` flag indicates that more than two intermediates arrived and
    /// subsequent characters were ignored.
    fn esc_dispatch(&mut self, _intermediates: &[u8], _ignore: bool, _byte: u8) {}

    /// Whether the parser should terminate prematurely.
    ///
    /// This can be used in conjunction with
    /// [`Parser::advance_until_terminated`] to terminate the parser after
    /// receiving certain escape sequences like synchronized updates.
    ///
    /// This is checked after every parsed byte, so no expensive computation
    /// should take place in this function.
    #[inline(always)]
    fn terminated(&self) -> bool {
        false
    }
}

/// termic: the run dispatch hands a `Perform` that keeps the defaults the
/// same calls as one `print` per character.
#[cfg(test)]
mod run_tests {
    use super::*;
    use alloc::vec::Vec;

    #[derive(Default)]
    struct Record(Vec<(char, bool)>);

    impl Perform for Record {
        fn print(&mut self, c: char) {
            self.0.push((c, true));
        }

        fn execute(&mut self, byte: u8) {
            self.0.push((char::from(byte), false));
        }
    }

    #[test]
    fn runs_reach_print_one_character_at_a_time() {
        let text = "ab r\u{e9}sum\u{e9} \u{2713}\u{65e5}\u{672c}\r\n\u{85}\u{a0}\u{ad}\u{9f}x\u{7f}\u{fffd}\u{301}\u{2588}";
        let mut parser = Parser::new();
        let mut record = Record::default();
        parser.advance(&mut record, text.as_bytes());
        let want: Vec<(char, bool)> = text
            .chars()
            .map(|c| (c, !matches!(c, '\0'..='\x1f' | '\u{80}'..='\u{9f}')))
            .collect();
        assert_eq!(record.0, want);
    }

    /// Every action, as text, for comparing two ways of parsing.
    #[derive(Default)]
    struct Log(Vec<alloc::string::String>);

    impl Perform for Log {
        fn print(&mut self, c: char) {
            self.0.push(alloc::format!("print {c:?}"));
        }

        fn execute(&mut self, byte: u8) {
            self.0.push(alloc::format!("execute {byte}"));
        }

        fn csi_dispatch(&mut self, params: &Params, intermediates: &[u8], ignore: bool, c: char) {
            self.0.push(alloc::format!("csi {params:?} {intermediates:?} {ignore} {c}"));
        }

        fn esc_dispatch(&mut self, intermediates: &[u8], ignore: bool, byte: u8) {
            self.0.push(alloc::format!("esc {intermediates:?} {ignore} {byte}"));
        }
    }

    /// The CSI parameter loop (`advance_csi_params`) takes the same actions
    /// as the state machine fed one byte at a time (upstream's `advance`),
    /// on random sequences of parameter bytes, separators, private markers,
    /// intermediates, controls, finals and nested escapes, cut anywhere.
    #[test]
    fn csi_parameters_in_one_loop_match_the_state_machine() {
        const PIECES: &[&[u8]] = &[
            b"0", b"1", b"38", b"5", b"65535", b"99999", b";", b":", b"?", b">", b" ", b"!",
            b"m", b"H", b"\x1b", b"\x1b[", b"[", b"\x18", b"\x07", b"\r", b"a", b"\x7f",
            b";;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;",
        ];
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for _ in 0..2000 {
            let mut bytes = b"\x1b[".to_vec();
            for _ in 0..next(40) {
                bytes.extend_from_slice(PIECES[next(PIECES.len())]);
            }
            let cut = 1 + next(16);
            let mut fast = (Parser::new(), Log::default());
            for chunk in bytes.chunks(cut) {
                fast.0.advance(&mut fast.1, chunk);
            }
            let mut slow = (Parser::new(), Log::default());
            for &byte in &bytes {
                match slow.0.state {
                    State::Ground => {
                        slow.0.advance_ground(&mut slow.1, &[byte]);
                    },
                    _ => slow.0.change_state(&mut slow.1, byte),
                }
            }
            assert_eq!(fast.1 .0, slow.1 .0, "{bytes:?}");
            assert_eq!(fast.0.state, slow.0.state, "{bytes:?}");
        }
    }

    /// A [`Log`] that does not want text, or CSI sequences either.
    #[derive(Default)]
    struct NoText(Log, bool);

    impl Perform for NoText {
        fn wants_text(&self) -> bool {
            false
        }

        fn wants_csi(&self) -> bool {
            self.1
        }

        fn print(&mut self, c: char) {
            self.0.print(c);
        }

        fn execute(&mut self, byte: u8) {
            self.0.execute(byte);
        }

        fn csi_dispatch(&mut self, params: &Params, intermediates: &[u8], ignore: bool, c: char) {
            self.0.csi_dispatch(params, intermediates, ignore, c);
        }

        fn esc_dispatch(&mut self, intermediates: &[u8], ignore: bool, byte: u8) {
            self.0.esc_dispatch(intermediates, ignore, byte);
        }
    }

    /// A performer that does not want text sees every other action it
    /// would see with the text: the same C0 controls, sequences and state,
    /// on random text (ASCII, non-ASCII, invalid and cut UTF-8, C0 and C1
    /// controls) mixed with sequences, cut anywhere.
    #[test]
    fn skipped_text_keeps_every_other_action() {
        const PIECES: &[&[u8]] = &[
            b"abc", b"\xc3\xa9", b"\xe2\x96\x88", b"\xe2\x96", b"\xff", b"\xc2\x85", b"\x85",
            b"\x07", b"\n", b"\r", b"\x18", b"\x1b", b"\x1b[", b"\x1b[1;31m", b"\x1b[?25h",
            b"\x1b(B", b"\x1b]0;t\x07", b"\x1bP1q\x1b\\", b"\x7f", b"m", b";", b"5",
            b"\x1b[38;2;1;2;3m", b"\x1b[?", b" ", b"$", b"\x1b[1 q", b":", b"\x1a",
        ];
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for round in 0..4000 {
            let wants_csi = round % 2 == 0;
            let mut bytes = Vec::new();
            for _ in 0..next(40) {
                bytes.extend_from_slice(PIECES[next(PIECES.len())]);
            }
            let cut = 1 + next(16);
            let mut with_text = (Parser::new(), Log::default());
            let mut without = (Parser::new(), NoText(Log::default(), wants_csi));
            for chunk in bytes.chunks(cut) {
                with_text.0.advance(&mut with_text.1, chunk);
                without.0.advance(&mut without.1, chunk);
            }
            let want: Vec<_> = with_text
                .1
                 .0
                .into_iter()
                .filter(|action| {
                    let c1 = action
                        .strip_prefix("execute ")
                        .and_then(|n| n.parse::<u8>().ok())
                        .is_some_and(|n| n >= 0x80);
                    let csi = !wants_csi && action.starts_with("csi ");
                    !action.starts_with("print ") && !c1 && !csi
                })
                .collect();
            assert_eq!(without.1 .0 .0, want, "{bytes:?}");
            let in_csi = |state| {
                matches!(
                    state,
                    State::CsiEntry | State::CsiParam | State::CsiIntermediate | State::CsiIgnore
                )
            };
            if wants_csi || !in_csi(without.0.state) {
                assert_eq!(without.0.state, with_text.0.state, "{bytes:?}");
            } else {
                assert!(in_csi(with_text.0.state), "{bytes:?}");
            }
        }
    }

    /// termic: `lead_char` says what `str::from_utf8` says of the first
    /// character, for every lead byte from 0xC2 to 0xF4, every second byte,
    /// the third and fourth bytes at every range edge, and every cut.
    #[test]
    fn lead_char_agrees_with_from_utf8() {
        let edges = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xF4, 0xFF];
        for lead in 0xC2..=0xF4u8 {
            for second in 0..=0xFFu8 {
                for third in edges {
                    for fourth in edges {
                        let seq = [lead, second, third, fourth];
                        for cut in 1..=4 {
                            let bytes = &seq[..cut];
                            let expected = match core::str::from_utf8(bytes) {
                                Err(e) if e.valid_up_to() == 0 => e.error_len(),
                                _ => None,
                            };
                            let got = match lead_char(bytes) {
                                LeadChar::Invalid(len) => Some(len),
                                LeadChar::ValidOrCut => None,
                            };
                            assert_eq!(got, expected, "{bytes:02x?}");
                        }
                    }
                }
            }
        }
    }

    /// A character cut by a read, then a control and another cut
    /// character in the next read: every byte after the first character
    /// is still parsed (upstream dropped the `\n`).
    #[test]
    fn a_cut_character_keeps_the_bytes_after_it() {
        let mut parser = Parser::new();
        let mut log = Log::default();
        parser.advance(&mut log, b"\xc3");
        parser.advance(&mut log, b"\xa9\n\xc3");
        parser.advance(&mut log, b"\xa9x");
        assert_eq!(log.0, ["print '\u{e9}'", "execute 10", "print '\u{e9}'", "print 'x'"]);
    }

    #[test]
    fn a_non_ascii_run_ends_before_a_c1_control_and_ascii() {
        assert_eq!(non_ascii_run_len("\u{e9}\u{2588}\u{85}".as_bytes()), 5);
        assert_eq!(non_ascii_run_len("\u{a0}a".as_bytes()), 2);
        assert_eq!(non_ascii_run_len("\u{9f}".as_bytes()), 0);
        assert_eq!(non_ascii_run_len(b""), 0);
    }
}
