//! Hook payloads: the session ids every agent's payload carries. Each
//! agent's payload shape lives in its own module.

use serde_json::Value;

/// Ids that stay fixed for one simulated session.
#[derive(Debug, Clone)]
pub struct Session {
    pub id: String,
    pub cwd: String,
    pub transcript: String,
    /// Counts turns, for `prompt_id` / `executionNum`.
    pub turn: u32,
}

impl Session {
    pub fn new(seed: u64, cwd: &str, home: &str) -> Session {
        let id = format!(
            "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
            (seed >> 32) as u32,
            (seed >> 16) as u16,
            seed as u16 & 0xfff,
            (seed >> 8) as u16 & 0xfff,
            seed & 0xffff_ffff_ffff
        );
        let slug = cwd.replace('/', "-");
        Session {
            transcript: format!("{home}/.claude/projects/{slug}/{id}.jsonl"),
            id,
            cwd: cwd.to_string(),
            turn: 0,
        }
    }

    pub fn prompt_id(&self) -> String {
        format!("{}-p{}", &self.id[..8], self.turn)
    }
}

/// `base` with `extra`'s fields added (both objects; otherwise `base`).
pub fn merge(mut base: Value, extra: Value) -> Value {
    if let (Value::Object(b), Value::Object(e)) = (&mut base, extra) {
        b.extend(e);
    }
    base
}

/// A fixed session in its first turn, for payload tests.
#[cfg(test)]
pub fn test_session() -> Session {
    let mut s = Session::new(0x1234_5678_9abc_def0, "/w/proj", "/h");
    s.turn = 1;
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_ids_are_uuid_shaped() {
        let s = test_session();
        assert_eq!(s.id.len(), 36);
        assert_eq!(s.id.matches('-').count(), 4);
    }
}
