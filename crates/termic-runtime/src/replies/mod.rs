//! termic's answers to the queries agents send their terminal.
//!
//! termic IS the terminal its agents talk to, so it must answer what a real
//! terminal answers, or an agent waits for a reply that never comes. Agents
//! measured at start-up: Claude Code sends OSC 7501 `?` and XTVERSION; Codex
//! sends `CSI ? u`, DECRQM 1007, DA1, `CSI 6n`, OSC 10/11; opencode (opentui)
//! sends OSC 10/11/4, DECRQM 1016/2027/2031/1004/2004/2026, `CSI ? u`, OSC 99
//! `p=?`, XTGETTCAP and, last, DA1. Every prober ends with DA1, which is why
//! "not supported" is answered by silence for the kitty queries.
//!
//! Pure, in two steps that may run on different threads: a [`ReplyScanner`]
//! finds the queries in output bytes (the reader does this as it reads), then
//! [`apply_with_replies`] applies the bytes before each query to the screen
//! model and asks [`Responder::answer`] with that screen. No I/O here.

mod scan;

pub use scan::{only_queries, termcap_names_ok, Found, Query, ReplyScanner, TRACKED_MODES};

use vt100::{MouseProtocolEncoding, MouseProtocolMode, Screen};

/// A colour as 8-bit channels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    /// `#rrggbb`, as written in config.toml.
    pub fn parse_hex(s: &str) -> Option<Rgb> {
        let hex = s.strip_prefix('#')?;
        if hex.len() != 6 || !hex.is_ascii() {
            return None;
        }
        let channel = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).ok();
        Some(Rgb(channel(0)?, channel(2)?, channel(4)?))
    }

    /// X11 `rgb:rrrr/gggg/bbbb` (each channel doubled to 16 bits, as xterm does).
    pub fn to_x11(self) -> String {
        format!(
            "rgb:{0:02x}{0:02x}/{1:02x}{1:02x}/{2:02x}{2:02x}",
            self.0, self.1, self.2
        )
    }
}

/// What termic says about itself.
#[derive(Debug, Clone)]
pub struct ReplyConfig {
    /// For XTVERSION: `termic(<version>)`.
    pub version: String,
    pub foreground: Rgb,
    pub background: Rgb,
    /// Answer the OSC 7501 probe so Claude Code reports its state natively.
    pub native_probe: bool,
}

impl Default for ReplyConfig {
    fn default() -> Self {
        ReplyConfig {
            version: env!("CARGO_PKG_VERSION").to_owned(),
            foreground: Rgb(0xd0, 0xd0, 0xd0),
            background: Rgb(0x00, 0x00, 0x00),
            native_probe: true,
        }
    }
}

/// The little terminal state the screen model does not keep, and the
/// answers that depend on it.
#[derive(Debug, Default)]
pub struct Responder {
    /// Set/reset state of [`TRACKED_MODES`], in that order.
    tracked: [bool; TRACKED_MODES.len()],
    pub config: ReplyConfig,
}

impl Responder {
    pub fn new(config: ReplyConfig) -> Self {
        Responder {
            config,
            ..Default::default()
        }
    }

    /// Whether the program asked for focus in/out reports (`CSI ? 1004 h`).
    pub fn focus_reporting(&self) -> bool {
        self.tracked_mode(1004).unwrap_or(false)
    }

    fn tracked_mode(&self, mode: u16) -> Option<bool> {
        let i = TRACKED_MODES.iter().position(|&m| m == mode)?;
        Some(self.tracked[i])
    }

    /// The reply to `query` given the screen as it is right after the query's
    /// bytes, or `None` when a real terminal that lacks the feature stays quiet.
    pub fn answer(&mut self, query: &Query, screen: &Screen) -> Option<Vec<u8>> {
        let reply = match query {
            // VT220 with ANSI colour: what xterm-compatible terminals report.
            Query::PrimaryDa => "\x1b[?62;22c".to_owned(),
            Query::SecondaryDa => "\x1b[>0;100;0c".to_owned(),
            Query::Status => "\x1b[0n".to_owned(),
            Query::CursorPosition { private } => {
                let (row, col) = screen.cursor_position();
                let mark = if *private { "?" } else { "" };
                format!("\x1b[{mark}{};{}R", row + 1, col + 1)
            }
            Query::XtVersion => format!(
                "\x1bP>|termic({})\x1b\\",
                safe_version(&self.config.version)
            ),
            Query::ModeReport { mode, private } => {
                let value = if *private {
                    self.private_mode(*mode, screen)
                } else {
                    ModeValue::Unknown
                };
                let mark = if *private { "?" } else { "" };
                format!("\x1b[{mark}{mode};{}$y", value as u8)
            }
            Query::KittyKeyboard | Query::KittyNotifyQuery => return None,
            Query::DynamicColor { which, st } => {
                let rgb = if *which == 11 {
                    self.config.background
                } else {
                    self.config.foreground
                };
                format!("\x1b]{which};{}{}", rgb.to_x11(), terminator(*st))
            }
            Query::Palette { index, st } => format!(
                "\x1b]4;{index};{}{}",
                palette(*index).to_x11(),
                terminator(*st)
            ),
            Query::NativeProbe => {
                if !self.config.native_probe {
                    return None;
                }
                "\x1b]7501;?\x1b\\".to_owned()
            }
            // xterm's "not valid" form, without the names: termic knows no
            // capability, and echoing the query would let printed text type
            // into the task (docs/decisions.md).
            Query::TermcapQuery => "\x1bP0+r\x1b\\".to_owned(),
            Query::SetMode { mode, on } => {
                if let Some(i) = TRACKED_MODES.iter().position(|m| m == mode) {
                    self.tracked[i] = *on;
                }
                return None;
            }
        };
        Some(reply.into_bytes())
    }

    fn private_mode(&self, mode: u16, screen: &Screen) -> ModeValue {
        let known = match mode {
            1 => Some(screen.application_cursor()),
            25 => Some(!screen.hide_cursor()),
            66 => Some(screen.application_keypad()),
            47 | 1047 | 1049 => Some(screen.alternate_screen()),
            9 => Some(screen.mouse_protocol_mode() == MouseProtocolMode::Press),
            1000 => Some(screen.mouse_protocol_mode() == MouseProtocolMode::PressRelease),
            1002 => Some(screen.mouse_protocol_mode() == MouseProtocolMode::ButtonMotion),
            1003 => Some(screen.mouse_protocol_mode() == MouseProtocolMode::AnyMotion),
            1005 => Some(screen.mouse_protocol_encoding() == MouseProtocolEncoding::Utf8),
            1006 => Some(screen.mouse_protocol_encoding() == MouseProtocolEncoding::Sgr),
            2004 => Some(screen.bracketed_paste()),
            // Focus reports are forwarded by the UI, so 1004 is supported.
            1004 => self.tracked_mode(1004),
            // 1007 (alternate scroll), 2026 (synchronized output), 2031
            // (colour-scheme reports) and the rest are not implemented.
            _ => None,
        };
        match known {
            Some(true) => ModeValue::Set,
            Some(false) => ModeValue::Reset,
            None => ModeValue::Unknown,
        }
    }
}

/// Apply `chunk` to `parser` and collect the replies to `found` (what a
/// [`ReplyScanner`] found in this chunk), each computed against the screen
/// exactly as it is right after its query. This is the ordering rule:
/// `printf 'ab\033[6n'` reports column 3, never a later column. Every
/// action of the parse also goes to `also` (the signal scanner's tap, so
/// the bytes are parsed once).
pub fn apply_with_replies<CB: vt100::Callbacks, P: vte::Perform>(
    responder: &mut Responder,
    parser: &mut vt100::Parser<CB>,
    chunk: &[u8],
    found: Vec<Found>,
    also: &mut P,
) -> Applied {
    if found.is_empty() {
        parser.process_also(chunk, also);
        return Applied::default();
    }
    let only_queries = only_queries(&found, chunk.len());
    let mut replies = Vec::new();
    let mut start = 0;
    for Found { end, query, .. } in found {
        parser.process_also(&chunk[start..end], also);
        start = end;
        // the screen as it is right after the query, readable
        parser.settle();
        replies.extend(responder.answer(&query, parser.screen()));
    }
    parser.process_also(&chunk[start..], also);
    Applied {
        replies,
        only_queries,
    }
}

/// What [`apply_with_replies`] did with a chunk.
#[derive(Debug, Default)]
pub struct Applied {
    /// Replies to queue for the program's input, in order.
    pub replies: Vec<Vec<u8>>,
    /// The chunk held nothing but queries: the screen did not change.
    pub only_queries: bool,
}

/// DECRPM values.
#[derive(Debug, Clone, Copy)]
enum ModeValue {
    Unknown = 0,
    Set = 1,
    Reset = 2,
}

/// The version as XTVERSION may carry it: `[0-9A-Za-z.+-]` only, so no
/// configured or built string can end the DCS or put a control into a reply.
fn safe_version(version: &str) -> String {
    version
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '+' | '-'))
        .collect()
}

fn terminator(st: bool) -> &'static str {
    if st {
        "\x1b\\"
    } else {
        "\x07"
    }
}

/// xterm's default 256-colour palette.
pub fn palette(index: u8) -> Rgb {
    const BASE16: [(u8, u8, u8); 16] = [
        (0x00, 0x00, 0x00),
        (0xcd, 0x00, 0x00),
        (0x00, 0xcd, 0x00),
        (0xcd, 0xcd, 0x00),
        (0x00, 0x00, 0xee),
        (0xcd, 0x00, 0xcd),
        (0x00, 0xcd, 0xcd),
        (0xe5, 0xe5, 0xe5),
        (0x7f, 0x7f, 0x7f),
        (0xff, 0x00, 0x00),
        (0x00, 0xff, 0x00),
        (0xff, 0xff, 0x00),
        (0x5c, 0x5c, 0xff),
        (0xff, 0x00, 0xff),
        (0x00, 0xff, 0xff),
        (0xff, 0xff, 0xff),
    ];
    match index {
        0..=15 => {
            let (r, g, b) = BASE16[usize::from(index)];
            Rgb(r, g, b)
        }
        16..=231 => {
            let i = index - 16;
            let level = |v: u8| if v == 0 { 0 } else { 55 + 40 * v };
            Rgb(level(i / 36), level((i / 6) % 6), level(i % 6))
        }
        232..=255 => {
            let v = 8 + 10 * (index - 232);
            Rgb(v, v, v)
        }
    }
}

#[cfg(test)]
mod tests;
