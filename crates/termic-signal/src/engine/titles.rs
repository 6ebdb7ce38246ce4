//! Stand-in title and notification classifier until the agent profiles land.

/// What a window title says about the agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TitleClass {
    Busy,
    Idle,
    NeedsYou,
    Unknown,
}

fn braille_spinner(c: char) -> bool {
    ('\u{2800}'..='\u{28ff}').contains(&c)
}

pub fn classify_title(agent: &str, title: &str) -> TitleClass {
    let first = title.chars().next().unwrap_or(' ');
    match agent {
        "claude" => match first {
            '\u{2733}' => TitleClass::Idle,
            '\u{25d0}' | '\u{25d1}' => TitleClass::Busy,
            _ if braille_spinner(first) => TitleClass::Busy,
            _ => TitleClass::Unknown,
        },
        "codex" | "grok" if title.contains("Action Required") => TitleClass::NeedsYou,
        "codex" | "grok" if braille_spinner(first) => TitleClass::Busy,
        "codex" | "grok" => TitleClass::Idle,
        _ => TitleClass::Unknown,
    }
}

pub fn wants_attention(agent: &str, body: &str) -> bool {
    !(agent == "claude" && body.contains("is waiting for your input"))
}

/// Stand-in scanner: every chunk is activity.
pub fn scan(_bytes: &[u8]) -> Vec<crate::signal::Signal> {
    vec![crate::signal::Signal::Activity]
}
