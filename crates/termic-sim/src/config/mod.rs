//! What every simulated agent's config reader shares: the hooks it loaded
//! (`Registry`), matchers, strict JSON. Each agent's reader, with its own
//! schema rules (what it rejects, what it ignores, what it loads but never
//! runs), is `agents/<id>/config.rs`. Parsers take bytes and return values;
//! the loaders do the reading.

pub mod settings_hooks;

use std::path::PathBuf;

/// One hook command as the agent resolved it.
#[derive(Debug, Clone, PartialEq)]
pub struct Handler {
    /// Run through `sh -c`, unless `args` is set (Claude's no-shell form).
    pub command: String,
    pub args: Option<Vec<String>>,
    /// Seconds; the agent's default when absent.
    pub timeout_s: Option<f64>,
    /// Claude's `"async": true`: runs in the background, output dropped.
    pub is_async: bool,
    /// Tool-name matcher (tool events only); `None` matches everything.
    pub matcher: Option<String>,
    /// How the agent names it: grok's `GROK_HOOK_NAME`, agy's entry name.
    pub name: String,
    pub source: PathBuf,
    /// False for a hook the agent lists but never executes (agy's dead
    /// path, agy's wrapped matcher-less handler with an empty command).
    pub runs: bool,
}

/// Every hook an agent loaded, per event, in firing order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Registry {
    pub hooks: Vec<(String, Handler)>,
    /// What the agent would log: files rejected, fields ignored.
    pub notes: Vec<String>,
}

impl Registry {
    /// Owned copies of the hooks that run for `event`.
    pub fn handlers(&self, event: &str, tool: Option<&str>) -> Vec<Handler> {
        self.for_event(event, tool).into_iter().cloned().collect()
    }

    /// The hooks that actually run for `event` (and `tool`, for tool events).
    pub fn for_event(&self, event: &str, tool: Option<&str>) -> Vec<&Handler> {
        self.hooks
            .iter()
            .filter(|(e, h)| e == event && h.runs && matcher_matches(h.matcher.as_deref(), tool))
            .map(|(_, h)| h)
            .collect()
    }
}

/// Claude-style matcher: absent, empty or `*` matches all; otherwise an
/// anchored regular expression over the tool name (`Write|Edit`).
pub fn matcher_matches(matcher: Option<&str>, tool: Option<&str>) -> bool {
    let Some(m) = matcher.filter(|m| !m.is_empty() && *m != "*") else {
        return true;
    };
    let Some(tool) = tool else {
        return true;
    };
    match regex::Regex::new(&format!("^(?:{m})$")) {
        Ok(re) => re.is_match(tool),
        Err(_) => m == tool,
    }
}

/// `UserPromptSubmit` -> `user_prompt_submit` (grok's event values).
pub fn snake_case(event: &str) -> String {
    let mut out = String::new();
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Strict JSON, as Claude reads it: a UTF-8 BOM is accepted, comments and
/// trailing commas reject the whole file, the last of duplicate keys wins.
pub fn parse_strict_json(bytes: &[u8]) -> Result<serde_json::Value, String> {
    let bytes = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes);
    serde_json::from_slice(bytes).map_err(|e| format!("Invalid or malformed JSON ({e})"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matchers() {
        assert!(matcher_matches(None, Some("Write")));
        assert!(matcher_matches(Some("*"), Some("Write")));
        assert!(matcher_matches(Some(""), Some("Write")));
        assert!(matcher_matches(Some("Write|Edit"), Some("Edit")));
        assert!(!matcher_matches(Some("Write"), Some("WriteFile")));
        assert!(!matcher_matches(Some("Bash"), Some("Write")));
    }

    #[test]
    fn snake() {
        assert_eq!(snake_case("UserPromptSubmit"), "user_prompt_submit");
        assert_eq!(snake_case("StopCancelled"), "stop_cancelled");
        assert_eq!(snake_case("Stop"), "stop");
    }

    #[test]
    fn strict_json_rules() {
        assert!(parse_strict_json(b"\xef\xbb\xbf{\"a\":1}").is_ok());
        assert!(parse_strict_json(b"{\"a\":1,}").is_err());
        assert!(parse_strict_json(b"{// c\n\"a\":1}").is_err());
        assert!(parse_strict_json(b"{\r\n\t\"a\": 1\r\n}").is_ok());
        let v = parse_strict_json(br#"{"a":1,"a":2}"#).unwrap();
        assert_eq!(v["a"], 2, "the last duplicate key wins");
    }
}
