//! What the scanner reports: the vocabulary between the scanner and the engine.
//!
//! The scanner turns PTY output bytes into these values; the engine decides
//! what they mean for the task's state. Nothing here knows about time.

use crate::wire::{HookMessage, WireError};

/// Where a desktop-notification-like OSC came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NotifySource {
    /// `OSC 9 ; body` (iTerm2 / ConEmu style; not `9;4`, which is progress).
    Osc9,
    /// `OSC 777 ; notify ; title ; body` (rxvt / Ghostty / WezTerm).
    Osc777,
    /// `OSC 99 ; metadata ; payload` (kitty), after chunk reassembly and base64 decoding.
    Osc99,
}

impl NotifySource {
    /// The sequence's name as a user would look it up: `OSC 9`, `OSC 777`, `OSC 99`.
    pub fn as_str(self) -> &'static str {
        match self {
            NotifySource::Osc9 => "OSC 9",
            NotifySource::Osc777 => "OSC 777",
            NotifySource::Osc99 => "OSC 99",
        }
    }
}

/// `state=` of an OSC 7501 program-status report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NativeState {
    Working,
    Blocked,
    Done,
    Idle,
    Clear,
    /// The program stopped on an error (Claude Code 2.1.332 after it gave
    /// up on an API error; `msg=` says which).
    Error,
}

/// One OSC 7501 program-status report (`state=...:app=...[:kind=..][:msg=<b64>]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProgramStatus {
    pub state: NativeState,
    /// `app=`, e.g. `claude-code`, `codex`.
    pub app: Option<String>,
    /// `kind=`, e.g. `permission`, `question`.
    pub kind: Option<String>,
    pub id: Option<String>,
    /// `progress=` 0..=100 when present and numeric.
    pub progress: Option<u8>,
    /// `msg=` base64-decoded (lossy UTF-8).
    pub message: Option<String>,
    /// `title=` base64-decoded (lossy UTF-8).
    pub title: Option<String>,
}

/// An OSC 133 shell-integration mark (see `scanner/shell.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ShellMark {
    /// `133;A`: the shell starts drawing its prompt.
    PromptStart,
    /// `133;B`: the prompt is drawn; the user types a command.
    PromptEnd,
    /// `133;C`: the command runs (its output starts).
    CommandStart,
    /// `133;D[;status]`: the command ended, with its exit status when given.
    CommandEnd { status: Option<i32> },
}

impl ShellMark {
    /// The mark's letter on the wire.
    pub fn letter(self) -> &'static str {
        match self {
            ShellMark::PromptStart => "A",
            ShellMark::PromptEnd => "B",
            ShellMark::CommandStart => "C",
            ShellMark::CommandEnd { .. } => "D",
        }
    }
}

/// A signal found in the output stream, in stream order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Signal {
    /// Window title set (OSC 0 or 2), `;` inside the title kept.
    Title(String),
    /// A desktop notification request.
    Notify { source: NotifySource, body: String },
    /// `OSC 9 ; 4 ; state ; value` progress report (not a notification).
    Progress { state: u8, value: Option<u8> },
    /// A BEL that did not terminate an OSC.
    Bell,
    /// A well-formed termic hook message (the task id is NOT checked here:
    /// the engine compares it to its own task's id).
    Hook(HookMessage),
    /// An OSC 777 that claimed to be termic's and was malformed.
    HookRejected { raw: String, error: WireError },
    /// An OSC 7501 program-status report.
    Native(ProgramStatus),
    /// The agent asked `OSC 7501 ; ?`: the terminal should answer so the agent
    /// reports its state natively.
    NativeProbe,
    /// An OSC 133 shell-integration mark. Only a task whose profile is the
    /// shell's obeys it; anywhere else it is printed text.
    ShellMark(ShellMark),
    /// Visible output (printable characters or line feeds) was seen in this chunk.
    Activity,
}
