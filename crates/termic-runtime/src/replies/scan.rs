//! Finding terminal queries in an output stream, across read boundaries.
//!
//! A small byte state machine (ESC, CSI, OSC, DCS and other strings) that
//! reports only what termic answers or tracks, each with the offset just past
//! its final byte so the caller can bring the screen model up to exactly that
//! point before answering (a cursor report must see the bytes before it and
//! none after). Buffers are bounded: a query is short, so a long OSC or DCS
//! is skipped, never stored.

/// A sequence the responder cares about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Query {
    /// `CSI c` / `CSI 0 c`.
    PrimaryDa,
    /// `CSI > c` / `CSI > 0 c`.
    SecondaryDa,
    /// `CSI 5 n`.
    Status,
    /// `CSI 6 n` (`private` for the DEC form `CSI ? 6 n`).
    CursorPosition { private: bool },
    /// `CSI > q` / `CSI > 0 q`.
    XtVersion,
    /// `CSI ? n $ p` (private) or `CSI n $ p` (ANSI).
    ModeReport { mode: u16, private: bool },
    /// `CSI ? u`: kitty keyboard flags. Not supported: no reply, so the DA1
    /// that every prober sends after it says so.
    KittyKeyboard,
    /// `OSC 10 ; ?`, `OSC 11 ; ?`, `OSC 12 ; ?` (fg, bg, cursor).
    DynamicColor { which: u16, st: bool },
    /// `OSC 4 ; n ; ?` (one per index asked, several may share one OSC).
    Palette { index: u8, st: bool },
    /// `OSC 7501 ; ?...`: the program-status probe (Claude Code).
    NativeProbe,
    /// `OSC 99 ; ...p=? ; ...`: kitty notification capability query. Not
    /// supported: no reply (opentui follows it with DA1).
    KittyNotifyQuery,
    /// `DCS + q <names> ST` (XTGETTCAP) whose names pass [`termcap_names_ok`].
    /// The names are not kept: termic answers no capability, and a reply
    /// must never carry bytes of the query (a printed query would type them
    /// into the task).
    TermcapQuery,
    /// `CSI ? n h` / `CSI ? n l` for a mode the screen model does not track.
    SetMode { mode: u16, on: bool },
}

/// A query and where it ends in the chunk it was found in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// Offset of the ESC that began the query in the chunk passed to `scan`
    /// (0 when it began in an earlier chunk).
    pub start: usize,
    /// Offset just past the query's last byte in that chunk.
    pub end: usize,
    pub query: Query,
}

/// Whether `found` (in stream order) covers all `len` bytes of its chunk:
/// the chunk was nothing but queries, so the screen cannot have changed
/// (Claude Code sends a lone `CSI ? 6 n` five times a second).
pub fn only_queries(found: &[Found], len: usize) -> bool {
    let mut covered = 0;
    for f in found {
        if f.start > covered {
            return false;
        }
        covered = covered.max(f.end);
    }
    len > 0 && covered == len
}

/// Private modes tracked here because the vt100 screen model ignores them.
pub const TRACKED_MODES: [u16; 4] = [1004, 1007, 2026, 2031];

const MAX_CSI: usize = 32;
const MAX_STRING: usize = 256;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Ground,
    Escape,
    Csi,
    Osc,
    OscEsc,
    Dcs,
    DcsEsc,
    /// SOS, PM, APC: skipped to ST.
    Skip,
    SkipEsc,
}

/// The incremental scanner. Feed every output chunk in order.
#[derive(Debug)]
pub struct ReplyScanner {
    state: State,
    buf: Vec<u8>,
    overflow: bool,
}

impl Default for ReplyScanner {
    fn default() -> Self {
        Self::new()
    }
}

impl ReplyScanner {
    pub fn new() -> Self {
        ReplyScanner {
            state: State::Ground,
            buf: Vec::with_capacity(MAX_STRING),
            overflow: false,
        }
    }

    /// Queries in `bytes`, in stream order.
    ///
    /// Text, whole SGRs, the parameters of a CSI sequence and the body
    /// of a string (OSC, DCS, or one skipped) are taken a run at a time;
    /// every other byte goes through [`Self::step`], which alone decides
    /// what a byte does.
    pub fn scan(&mut self, bytes: &[u8]) -> Vec<Found> {
        let mut found = Vec::new();
        let mut start = 0;
        let mut i = 0;
        while i < bytes.len() {
            match self.state {
                State::Ground => {
                    // Plain text up to the next ESC.
                    match memchr::memchr(0x1b, &bytes[i..]) {
                        Some(skip) => i += skip,
                        None => break,
                    }
                    start = i;
                    // Most sequences of coloured output are whole SGRs.
                    if let Some(len) = quiet_csi(&bytes[i..]) {
                        i += len;
                        continue;
                    }
                }
                State::Csi => {
                    // Parameter and intermediate bytes up to the final byte
                    // (or whatever else ends or interrupts the sequence).
                    let rest = &bytes[i..];
                    let run = rest
                        .iter()
                        .position(|b| !(0x20..=0x3f).contains(b))
                        .unwrap_or(rest.len());
                    self.push_run(&rest[..run], MAX_CSI);
                    i += run;
                    if i == bytes.len() {
                        break;
                    }
                }
                State::Osc | State::Dcs | State::Skip => {
                    // A string's body up to the byte that ends or
                    // interrupts it: kept (bounded) or, skipped, dropped.
                    let rest = &bytes[i..];
                    let run = if self.state == State::Osc {
                        rest.iter()
                            .position(|b| matches!(b, 0x07 | 0x1b | 0x18 | 0x1a))
                    } else {
                        memchr::memchr3(0x1b, 0x18, 0x1a, rest)
                    }
                    .unwrap_or(rest.len());
                    if self.state != State::Skip {
                        self.push_run(&rest[..run], MAX_STRING);
                    }
                    i += run;
                    if i == bytes.len() {
                        break;
                    }
                }
                _ => {}
            }
            let byte = bytes[i];
            i += 1;
            self.step(byte, |query| {
                found.push(Found {
                    start,
                    end: i,
                    query,
                })
            });
        }
        found
    }

    /// [`Self::scan`] one byte at a time through [`Self::step`] only: the
    /// reference the runs of `scan` are checked against.
    #[cfg(test)]
    pub fn scan_bytewise(&mut self, bytes: &[u8]) -> Vec<Found> {
        let mut found = Vec::new();
        let mut start = 0;
        for (i, &byte) in bytes.iter().enumerate() {
            if self.state == State::Ground {
                start = i;
            }
            self.step(byte, |query| {
                found.push(Found {
                    start,
                    end: i + 1,
                    query,
                })
            });
        }
        found
    }

    fn start(&mut self, state: State) {
        self.state = state;
        self.buf.clear();
        self.overflow = false;
    }

    fn push(&mut self, byte: u8, cap: usize) {
        if self.buf.len() < cap {
            self.buf.push(byte);
        } else {
            self.overflow = true;
        }
    }

    /// [`Self::push`] for each byte of `run`.
    fn push_run(&mut self, run: &[u8], cap: usize) {
        let room = cap.saturating_sub(self.buf.len());
        if run.len() > room {
            self.overflow = true;
        }
        self.buf.extend_from_slice(&run[..run.len().min(room)]);
    }

    fn step(&mut self, byte: u8, mut emit: impl FnMut(Query)) {
        match self.state {
            State::Ground => {
                if byte == 0x1b {
                    self.state = State::Escape;
                }
            }
            State::Escape => match byte {
                b'[' => self.start(State::Csi),
                b']' => self.start(State::Osc),
                b'P' => self.start(State::Dcs),
                b'X' | b'^' | b'_' => self.start(State::Skip),
                0x1b => {}
                _ => self.state = State::Ground,
            },
            State::Csi => match byte {
                0x20..=0x3f => self.push(byte, MAX_CSI),
                0x40..=0x7e => {
                    self.state = State::Ground;
                    if !self.overflow {
                        csi_queries(&self.buf, byte, &mut emit);
                    }
                }
                0x1b => self.state = State::Escape,
                0x18 | 0x1a => self.state = State::Ground,
                _ => {} // C0 controls inside CSI execute and do not end it
            },
            State::Osc => match byte {
                0x07 => {
                    self.state = State::Ground;
                    self.osc_end(false, &mut emit);
                }
                0x1b => self.state = State::OscEsc,
                0x18 | 0x1a => self.state = State::Ground,
                _ => self.push(byte, MAX_STRING),
            },
            State::OscEsc => {
                // ESC ends the string whatever follows; `\` completes ST.
                self.osc_end(true, &mut emit);
                if byte == b'\\' {
                    self.state = State::Ground;
                } else {
                    self.state = State::Escape;
                    self.step(byte, emit);
                }
            }
            State::Dcs => match byte {
                0x1b => self.state = State::DcsEsc,
                0x18 | 0x1a => self.state = State::Ground,
                _ => self.push(byte, MAX_STRING),
            },
            State::DcsEsc => {
                // Only a DCS ended by ST is a query: an ESC that starts
                // another sequence cancels it.
                if byte == b'\\' && !self.overflow {
                    if let Some(names) = self.buf.strip_prefix(b"+q") {
                        if termcap_names_ok(names) {
                            emit(Query::TermcapQuery);
                        }
                    }
                }
                if byte == b'\\' {
                    self.state = State::Ground;
                } else {
                    self.state = State::Escape;
                    self.step(byte, emit);
                }
            }
            State::Skip => match byte {
                0x1b => self.state = State::SkipEsc,
                0x18 | 0x1a => self.state = State::Ground,
                _ => {}
            },
            State::SkipEsc => {
                if byte == b'\\' {
                    self.state = State::Ground;
                } else {
                    self.state = State::Escape;
                    self.step(byte, emit);
                }
            }
        }
    }

    fn osc_end(&mut self, st: bool, emit: &mut impl FnMut(Query)) {
        if self.overflow {
            return;
        }
        osc_queries(&self.buf, st, emit);
    }
}

/// At most this many names in one XTGETTCAP query, each at most this long
/// once decoded: real capability names are short (`TN`, `RGB`, `setrgbf`).
const MAX_TERMCAP_NAMES: usize = 16;
const MAX_TERMCAP_NAME: usize = 32;

/// Whether an XTGETTCAP payload is what a program sends: 1 to
/// [`MAX_TERMCAP_NAMES`] names separated by `;`, each an even number of hex
/// digits that decodes to 1 to [`MAX_TERMCAP_NAME`] printable ASCII bytes
/// (no space, no control). Anything else is printed junk and gets no reply.
pub fn termcap_names_ok(payload: &[u8]) -> bool {
    let names: Vec<&[u8]> = payload.split(|&b| b == b';').collect();
    names.len() <= MAX_TERMCAP_NAMES
        && names.iter().all(|hex| {
            hex.len() % 2 == 0
                && (2..=2 * MAX_TERMCAP_NAME).contains(&hex.len())
                && hex.chunks(2).all(|pair| {
                    std::str::from_utf8(pair)
                        .ok()
                        .filter(|s| s.bytes().all(|b| b.is_ascii_hexdigit()))
                        .and_then(|s| u8::from_str_radix(s, 16).ok())
                        .is_some_and(|b| b.is_ascii_graphic())
                })
        })
}

/// Split `?1;2$` into leader, numeric params and intermediates.
fn split_csi(buf: &[u8]) -> (Option<u8>, &[u8], &[u8]) {
    let (leader, rest) = match buf.first() {
        Some(&b @ (b'<' | b'=' | b'>' | b'?')) => (Some(b), &buf[1..]),
        _ => (None, buf),
    };
    let params_end = rest
        .iter()
        .position(|b| !(b.is_ascii_digit() || *b == b';' || *b == b':'))
        .unwrap_or(rest.len());
    (leader, &rest[..params_end], &rest[params_end..])
}

fn numbers(params: &[u8]) -> impl Iterator<Item = Option<u16>> + '_ {
    params.split(|&b| b == b';').map(|p| {
        if p.is_empty() {
            Some(0)
        } else {
            std::str::from_utf8(p).ok()?.parse().ok()
        }
    })
}

/// The finals of the CSI sequences [`csi_queries`] looks at.
fn may_ask(fin: u8) -> bool {
    matches!(fin, b'c' | b'n' | b'q' | b'u' | b'p' | b'h' | b'l')
}

/// The length of the CSI sequence `bytes` starts with when all of it is
/// there and its final byte is none a query ends with: the state machine
/// would take it to Ground and report nothing, so it is skipped without
/// buffering its parameters (an SGR, a cursor move). `None` otherwise.
fn quiet_csi(bytes: &[u8]) -> Option<usize> {
    let params = bytes.strip_prefix(b"\x1b[")?;
    let run = params.iter().position(|b| !(0x20..=0x3f).contains(b))?;
    let fin = params[run];
    ((0x40..=0x7e).contains(&fin) && !may_ask(fin)).then_some(2 + run + 1)
}

fn csi_queries(buf: &[u8], fin: u8, emit: &mut impl FnMut(Query)) {
    // Most CSI sequences are SGR (`m`) and cursor moves: none is a query.
    // This reject saves a fifth of the scanner's time on coloured output
    // (58.4 M to 45.4 M instructions).
    if !may_ask(fin) {
        return;
    }
    let (leader, params, inter) = split_csi(buf);
    let zero = params.is_empty() || params == b"0";
    match (leader, inter, fin) {
        (None, b"", b'c') if zero => emit(Query::PrimaryDa),
        (Some(b'>'), b"", b'c') if zero => emit(Query::SecondaryDa),
        (None, b"", b'n') if params == b"5" => emit(Query::Status),
        (None, b"", b'n') if params == b"6" => emit(Query::CursorPosition { private: false }),
        (Some(b'?'), b"", b'n') if params == b"6" => emit(Query::CursorPosition { private: true }),
        (Some(b'>'), b"", b'q') if zero => emit(Query::XtVersion),
        (Some(b'?'), b"", b'u') if params.is_empty() => emit(Query::KittyKeyboard),
        (leader @ (None | Some(b'?')), b"$", b'p') => {
            if let Some(Some(mode)) = numbers(params).next() {
                emit(Query::ModeReport {
                    mode,
                    private: leader.is_some(),
                });
            }
        }
        (Some(b'?'), b"", b'h' | b'l') => {
            for mode in numbers(params).flatten() {
                if TRACKED_MODES.contains(&mode) {
                    emit(Query::SetMode {
                        mode,
                        on: fin == b'h',
                    });
                }
            }
        }
        _ => {}
    }
}

fn osc_queries(buf: &[u8], st: bool, emit: &mut impl FnMut(Query)) {
    let mut parts = buf.split(|&b| b == b';');
    let number = parts.next().unwrap_or_default();
    match number {
        b"10" | b"11" | b"12" => {
            // `OSC 10 ; ? ; ?` asks fg then bg (xterm's chained form).
            let base: u16 = if number == b"10" {
                10
            } else if number == b"11" {
                11
            } else {
                12
            };
            for (offset, part) in parts.enumerate() {
                let which = base + offset as u16;
                if part == b"?" && which <= 12 {
                    emit(Query::DynamicColor { which, st });
                }
            }
        }
        b"4" => {
            let rest: Vec<&[u8]> = parts.collect();
            for pair in rest.chunks(2) {
                if let [index, b"?"] = pair {
                    if let Some(index) = std::str::from_utf8(index)
                        .ok()
                        .and_then(|s| s.parse::<u8>().ok())
                    {
                        emit(Query::Palette { index, st });
                    }
                }
            }
        }
        b"7501" if parts.next().is_some_and(|data| data.starts_with(b"?")) => {
            emit(Query::NativeProbe);
        }
        b"99" => {
            let metadata = parts.next().unwrap_or_default();
            if metadata.split(|&b| b == b':').any(|kv| kv == b"p=?") {
                emit(Query::KittyNotifyQuery);
            }
        }
        _ => {}
    }
}
