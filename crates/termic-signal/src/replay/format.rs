//! The recording format: asciicast v2 with termic's facts.
//!
//! Line 1 is the header, a JSON object:
//! `{"version":2,"width":W,"height":H,"timestamp":T,"termic":{"agent":"claude","task_id":"..","hooks_wired":true}}`.
//! Every other line is one event, `[seconds, code, data]`:
//!
//! | code | data | meaning |
//! |---|---|---|
//! | `o` | text | PTY output |
//! | `i` | text | keys the user sent to the task (only with `--record-input`) |
//! | `r` | `COLSxROWS` | resize |
//! | `m` | `termic:focus=1` / `termic:focus=0` | the user started / stopped watching the task |
//! | `m` | `termic:hooks_wired=1` / `=0` | the agent's hooks became wired / unwired |
//! | `m` | `termic:exit=CODE` (empty CODE: no code) | the process exited |
//! | `m` | `termic:screen=HASH/LINES` | the runtime's screen facts (hash in hex) |
//! | `m` | `termic:foreground=PROFILE/WIRED` (empty PROFILE: the task's own) | another program took the task's foreground (an agent started in a shell) |
//! | `m` | `termic:probe_answered` | termic answered the task's OSC 7501 probe (Claude Code's native status counts from here) |
//! | `m` | `termic:keys=KINDS` | what the user's keys meant to the engine, without them (no `--record-input`): one letter per key, `E` Enter, `x` Escape, `c` Ctrl-C, `k` any other key (a run of them is one `k`) |
//! | `m` | `termic:rows=TEXT` | the screen's last non-blank rows, split by `\n`, for the profile's screen rules (only when they changed, only for a profile that has rules) |
//! | `m` | `termic:end` | the recorder closed the recording: nothing happened after this time (a recording without it was cut off, e.g. termic was killed) |
//!
//! Unknown codes and markers without the `termic:` prefix are skipped, so a
//! plain asciinema recording replays too.

use serde::Deserialize;

use crate::engine::{Key, ScreenFacts};
use crate::profile::ScreenRows;

/// termic's facts about the recorded task (the header's `termic` object).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, serde::Serialize)]
pub struct TaskFacts {
    #[serde(default = "generic")]
    pub agent: String,
    #[serde(default)]
    pub task_id: String,
    #[serde(default)]
    pub hooks_wired: bool,
}

fn generic() -> String {
    "generic".to_string()
}

impl Default for TaskFacts {
    fn default() -> Self {
        TaskFacts {
            agent: generic(),
            task_id: String::new(),
            hooks_wired: false,
        }
    }
}

/// The header line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordingHeader {
    pub width: u16,
    pub height: u16,
    /// Unix seconds when recording began, if known.
    pub timestamp: Option<u64>,
    pub termic: TaskFacts,
}

/// A fact that is not bytes, carried as an asciicast marker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Marker {
    Focus(bool),
    HooksWired(bool),
    Exit(Option<i32>),
    Screen(ScreenFacts),
    /// The foreground program's profile (`None`: the task's own) and
    /// whether its hooks are wired.
    Foreground {
        profile: Option<String>,
        wired: bool,
    },
    /// termic answered the task's OSC 7501 probe.
    ProbeAnswered,
    /// Keys the user typed, as the engine reads them, without the bytes
    /// (a recording made without `--record-input` holds no keystrokes).
    Keys(Vec<Key>),
    /// The screen's last rows, for the profile's screen rules.
    Rows(ScreenRows),
    /// The recorder closed the recording at this time.
    End,
}

impl Marker {
    pub const PREFIX: &'static str = "termic:";

    /// The marker's label, e.g. `termic:focus=1`.
    pub fn label(&self) -> String {
        let flag = |b: bool| if b { "1" } else { "0" };
        match self {
            Marker::Focus(w) => format!("{}focus={}", Self::PREFIX, flag(*w)),
            Marker::HooksWired(w) => format!("{}hooks_wired={}", Self::PREFIX, flag(*w)),
            Marker::Exit(code) => match code {
                Some(c) => format!("{}exit={c}", Self::PREFIX),
                None => format!("{}exit=", Self::PREFIX),
            },
            Marker::Screen(f) => {
                format!("{}screen={:x}/{}", Self::PREFIX, f.hash, f.scrollback_lines)
            }
            Marker::Foreground { profile, wired } => format!(
                "{}foreground={}/{}",
                Self::PREFIX,
                profile.as_deref().unwrap_or_default(),
                flag(*wired)
            ),
            Marker::ProbeAnswered => format!("{}probe_answered", Self::PREFIX),
            Marker::Keys(keys) => {
                let kinds: String = keys.iter().map(|k| key_letter(*k)).collect();
                format!("{}keys={kinds}", Self::PREFIX)
            }
            Marker::Rows(rows) => format!("{}rows={}", Self::PREFIX, rows.joined()),
            Marker::End => format!("{}end", Self::PREFIX),
        }
    }

    /// Parse a marker label: `Ok(None)` for a marker that is not termic's.
    pub fn parse(label: &str) -> Result<Option<Marker>, String> {
        let Some(rest) = label.strip_prefix(Self::PREFIX) else {
            return Ok(None);
        };
        match rest {
            "end" => return Ok(Some(Marker::End)),
            "probe_answered" => return Ok(Some(Marker::ProbeAnswered)),
            _ => {}
        }
        let (key, value) = rest
            .split_once('=')
            .ok_or_else(|| format!("marker {label:?} has no '='"))?;
        let flag = |v: &str| match v {
            "1" => Ok(true),
            "0" => Ok(false),
            _ => Err(format!("marker {label:?}: expected 1 or 0")),
        };
        let marker = match key {
            "focus" => Marker::Focus(flag(value)?),
            "hooks_wired" => Marker::HooksWired(flag(value)?),
            "exit" if value.is_empty() => Marker::Exit(None),
            "exit" => {
                Marker::Exit(Some(value.parse().map_err(|_| {
                    format!("marker {label:?}: exit code is not a number")
                })?))
            }
            "screen" => {
                let bad = || format!("marker {label:?}: expected screen=HEXHASH/LINES");
                let (hash, lines) = value.split_once('/').ok_or_else(bad)?;
                Marker::Screen(ScreenFacts {
                    hash: u64::from_str_radix(hash, 16).map_err(|_| bad())?,
                    scrollback_lines: lines.parse().map_err(|_| bad())?,
                })
            }
            "foreground" => {
                let (profile, wired) = value.rsplit_once('/').ok_or_else(|| {
                    format!("marker {label:?}: expected foreground=PROFILE/WIRED")
                })?;
                Marker::Foreground {
                    profile: (!profile.is_empty()).then(|| profile.to_string()),
                    wired: flag(wired)?,
                }
            }
            "keys" => Marker::Keys(
                value
                    .chars()
                    .map(|c| {
                        letter_key(c).ok_or_else(|| {
                            format!("marker {label:?}: {c:?} is not one of E, x, c, k")
                        })
                    })
                    .collect::<Result<_, _>>()?,
            ),
            "rows" => Marker::Rows(ScreenRows::from_joined(value)),
            // A newer termic's fact: skip it rather than refuse the file.
            _ => return Ok(None),
        };
        Ok(Some(marker))
    }
}

fn key_letter(key: Key) -> char {
    match key {
        Key::Submit => 'E',
        Key::Escape => 'x',
        Key::CtrlC => 'c',
        Key::Other => 'k',
    }
}

fn letter_key(c: char) -> Option<Key> {
    [Key::Submit, Key::Escape, Key::CtrlC, Key::Other]
        .into_iter()
        .find(|k| key_letter(*k) == c)
}

/// One recorded event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordedEvent {
    Output(Vec<u8>),
    Input(Vec<u8>),
    Resize { cols: u16, rows: u16 },
    Marker(Marker),
}

/// A whole recording, times in milliseconds from its start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recording {
    pub header: RecordingHeader,
    pub events: Vec<(u64, RecordedEvent)>,
    /// Where the whole part ends: the line after the last whole one and
    /// its first byte (the file's length when nothing was torn).
    pub ends_at: CutAt,
    /// The file ended in a torn frame (at `ends_at`), left out: the
    /// recording holds what came before it.
    pub cut: Option<CutAt>,
}

/// A place in a recording file: a line (from 1) and the byte it starts at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CutAt {
    pub line: usize,
    pub byte: u64,
}

#[derive(Deserialize)]
struct RawHeader {
    version: u32,
    #[serde(default)]
    width: u16,
    #[serde(default)]
    height: u16,
    #[serde(default)]
    timestamp: Option<u64>,
    #[serde(default)]
    termic: Option<TaskFacts>,
}

pub(super) fn parse_header(line: &str) -> Result<RecordingHeader, String> {
    let raw: RawHeader =
        serde_json::from_str(line).map_err(|e| format!("header is not asciicast JSON: {e}"))?;
    if raw.version != 2 {
        return Err(format!(
            "asciicast version {} is not supported (expected 2)",
            raw.version
        ));
    }
    Ok(RecordingHeader {
        width: raw.width,
        height: raw.height,
        timestamp: raw.timestamp,
        termic: raw.termic.unwrap_or_default(),
    })
}

/// One event line; `Ok(None)` for an event code termic does not use.
pub(super) fn parse_event(line: &str) -> Result<Option<(f64, RecordedEvent)>, String> {
    let (secs, code, data): (f64, String, String) = serde_json::from_str(line)
        .map_err(|e| format!("event is not [seconds, code, data]: {e}"))?;
    if !secs.is_finite() || secs < 0.0 {
        return Err(format!("event time {secs} is not a non-negative number"));
    }
    let event = match code.as_str() {
        "o" => RecordedEvent::Output(data.into_bytes()),
        "i" => RecordedEvent::Input(data.into_bytes()),
        "r" => {
            let bad = || format!("resize {data:?} is not COLSxROWS");
            let (c, r) = data.split_once('x').ok_or_else(bad)?;
            RecordedEvent::Resize {
                cols: c.parse().map_err(|_| bad())?,
                rows: r.parse().map_err(|_| bad())?,
            }
        }
        "m" => match Marker::parse(&data)? {
            Some(m) => RecordedEvent::Marker(m),
            None => return Ok(None),
        },
        _ => return Ok(None),
    };
    Ok(Some((secs, event)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_round_trip() {
        let markers = [
            Marker::Focus(true),
            Marker::Focus(false),
            Marker::HooksWired(true),
            Marker::Exit(Some(-1)),
            Marker::Exit(None),
            Marker::End,
            Marker::ProbeAnswered,
            Marker::Screen(ScreenFacts {
                hash: 0xdead_beef,
                scrollback_lines: 42,
            }),
            Marker::Foreground {
                profile: Some("claude".into()),
                wired: true,
            },
            Marker::Foreground {
                profile: None,
                wired: false,
            },
            Marker::Keys(vec![Key::Other, Key::Submit, Key::Escape, Key::CtrlC]),
            Marker::Keys(Vec::new()),
            Marker::Rows(ScreenRows::new([
                " Do you want to create a=b.txt?",
                " ❯ 1. Yes",
                "termic:end",
            ])),
        ];
        for m in markers {
            assert_eq!(
                Marker::parse(&m.label()),
                Ok(Some(m.clone())),
                "{}",
                m.label()
            );
        }
        assert_eq!(Marker::label(&Marker::Focus(true)), "termic:focus=1");
        assert_eq!(Marker::parse("chapter 2"), Ok(None));
        assert!(Marker::parse("termic:exit=x").is_err());
        assert_eq!(
            Marker::Keys(vec![Key::Other, Key::Submit]).label(),
            "termic:keys=kE"
        );
        assert!(Marker::parse("termic:keys=kQ").is_err());
    }

    #[test]
    fn events_parse_and_unknown_codes_are_skipped() {
        assert_eq!(
            parse_event(r#"[1.5, "r", "80x24"]"#),
            Ok(Some((1.5, RecordedEvent::Resize { cols: 80, rows: 24 })))
        );
        assert_eq!(parse_event(r#"[1.5, "z", "?"]"#), Ok(None));
        assert!(parse_header(r#"{"version":2}"#).is_ok());
        assert!(parse_header(r#"{"version":3}"#).is_err());
    }
}
