//! The one table of config.toml keys. The parser reads every setting
//! through it ([`SETTING_KEYS`]'s `read`), the unknown-key check knows a key
//! only when it is here, and `termic config reference` (docs/config.md)
//! prints it: a key cannot exist in one and not the others. Defaults are
//! read from `Settings::default()`, so the docs cannot state a stale one.

use toml_edit::Table;

use super::{
    ConfigError, OuterFallback, Settings, Source, WindowSize, MAX_IDLE_EXIT_SECS, MAX_SCROLLBACK,
};
use crate::input::PrefixKey;
use termic_runtime::replies::{ReplyConfig, Rgb};

/// One key of a fixed section (`[terminal]`, `[ui]`, `[notifications]`).
pub struct SettingKey {
    pub section: &'static str,
    pub name: &'static str,
    /// What the value is, for the reference ("true or false", ...).
    pub kind: &'static str,
    pub doc: &'static str,
    /// A value as written in TOML, different from the default.
    pub example: &'static str,
    /// Reads the key from its section into the settings.
    read: fn(&Source<'_>, &Table, &'static str, &mut Settings) -> Result<(), ConfigError>,
    /// The setting's value as TOML (what the default is, and what a test
    /// checks `read` stored).
    pub show: fn(&Settings) -> String,
}

/// One key of an `[agents.<id>]` table (read in `agents::user`).
pub struct AgentKey {
    pub name: &'static str,
    pub kind: &'static str,
    pub doc: &'static str,
    pub default: &'static str,
    pub example: &'static str,
}

fn set<T>(value: Option<T>, slot: &mut T) -> Result<(), ConfigError> {
    if let Some(v) = value {
        *slot = v;
    }
    Ok(())
}

fn quoted(s: &str) -> String {
    toml_edit::Value::from(s).to_string().trim().to_owned()
}

fn hex(c: Rgb) -> String {
    format!("\"#{:02x}{:02x}{:02x}\"", c.0, c.1, c.2)
}

fn colour(
    src: &Source<'_>,
    table: &Table,
    key: &str,
    slot: &mut Option<Rgb>,
) -> Result<(), ConfigError> {
    let Some(text) = src.string(table, key)? else {
        return Ok(());
    };
    *slot = Some(Rgb::parse_hex(&text).ok_or_else(|| {
        src.error(
            table.get(key).and_then(|i| i.span()),
            format!("`{key}` must be a colour like \"#1e1e1e\""),
            format!("write `{key} = \"#rrggbb\"`"),
        )
    })?);
    Ok(())
}

/// A URL key: http:// or https:// only ("" is none); anything else is
/// an error naming the key and the fix.
fn url(
    src: &Source<'_>,
    table: &Table,
    key: &str,
    slot: &mut Option<String>,
) -> Result<(), ConfigError> {
    let Some(text) = src.string(table, key)? else {
        return Ok(());
    };
    if text.is_empty() {
        *slot = None;
        return Ok(());
    }
    if let Err(why) =
        termic_push::deliver::check_url(&text, termic_push::deliver::PlainHttp::Allowed)
    {
        return Err(src.error(
            table.get(key).and_then(|i| i.span()),
            format!("{key} = {} cannot be used: {why}", quoted(&text)),
            format!("write `{key} = \"https://host/path\"` (http:// or https://), or remove it"),
        ));
    }
    *slot = Some(text);
    Ok(())
}

/// The spelling of the built-in prefix key.
pub const DEFAULT_PREFIX: &str = "C-]";

/// Every key of the fixed sections, in the order the reference lists them.
pub const SETTING_KEYS: &[SettingKey] = &[
    SettingKey {
        section: "terminal",
        name: "term_program",
        kind: "string",
        doc: "What agents see in TERM_PROGRAM (some agents pick features by it).",
        example: "\"WezTerm\"",
        read: |src, t, k, s| set(src.string(t, k)?, &mut s.term_program),
        show: |s| quoted(&s.term_program),
    },
    SettingKey {
        section: "terminal",
        name: "scrollback",
        kind: "whole number, 0 to 1000000",
        doc: "Lines of history kept per task; a line wrapped over several rows counts once, \
              so a resize keeps every line (memory is about lines times width, at most 4 \
              rows per line).",
        example: "50000",
        read: |src, t, k, s| {
            set(
                src.uint(t, k, MAX_SCROLLBACK)?.map(|v| v as usize),
                &mut s.scrollback,
            )
        },
        show: |s| s.scrollback.to_string(),
    },
    SettingKey {
        section: "terminal",
        name: "native_probe_reply",
        kind: "true or false",
        doc: "Answer Claude Code's OSC 7501 probe, so it reports its own status.",
        example: "false",
        read: |src, t, k, s| set(src.bool(t, k)?, &mut s.native_probe_reply),
        show: |s| s.native_probe_reply.to_string(),
    },
    SettingKey {
        section: "terminal",
        name: "foreground",
        kind: "colour \"#rrggbb\"",
        doc: "The text colour reported to OSC 10 queries (agents pick a theme by it).",
        example: "\"#1e1e1e\"",
        read: |src, t, k, s| colour(src, t, k, &mut s.foreground),
        show: |s| hex(s.foreground.unwrap_or(ReplyConfig::default().foreground)),
    },
    SettingKey {
        section: "terminal",
        name: "background",
        kind: "colour \"#rrggbb\"",
        doc: "The background colour reported to OSC 11 queries.",
        example: "\"#fdf6e3\"",
        read: |src, t, k, s| colour(src, t, k, &mut s.background),
        show: |s| hex(s.background.unwrap_or(ReplyConfig::default().background)),
    },
    SettingKey {
        section: "terminal",
        name: "shell_integration",
        kind: "true or false",
        doc: "Start bash, zsh and fish tasks with termic's OSC 133 integration (see below).",
        example: "false",
        read: |src, t, k, s| set(src.bool(t, k)?, &mut s.shell_integration),
        show: |s| s.shell_integration.to_string(),
    },
    SettingKey {
        section: "ui",
        name: "prefix_key",
        kind: "ctrl and a letter (\"C-a\"), or \"C-]\"",
        doc: "The key that starts every termic command; everything else goes to the task. \
              Not C-m, C-j, C-[, C-i, C-h or C-c: they are also Enter, Escape, Tab, \
              Backspace and interrupt.",
        example: "\"C-a\"",
        read: |src, t, k, s| {
            let Some(spec) = src.string(t, k)? else {
                return Ok(());
            };
            let Some(key) = PrefixKey::parse(&spec) else {
                return Err(src.error(
                    t.get(k).and_then(|i| i.span()),
                    format!("prefix_key = {} is not a key termic knows", quoted(&spec)),
                    "write e.g. `prefix_key = \"C-a\"` (ctrl and a letter, or \"C-]\")",
                ));
            };
            if let Some(other) = key.reserved_as() {
                return Err(src.error(
                    t.get(k).and_then(|i| i.span()),
                    format!(
                        "prefix_key = {} is also {other}: as the prefix it would never reach the task",
                        quoted(&spec)
                    ),
                    "choose another, e.g. `prefix_key = \"C-a\"` or the default \"C-]\"",
                ));
            }
            s.prefix_key = Some(spec);
            Ok(())
        },
        show: |s| quoted(s.prefix_key.as_deref().unwrap_or(DEFAULT_PREFIX)),
    },
    SettingKey {
        section: "ui",
        name: "copy_keys",
        kind: "\"vi\" or \"emacs\"",
        doc: "Copy mode's keys. Unset: vi keys when $VISUAL or $EDITOR of the terminal \
              you attach from names vi or vim, emacs keys otherwise (tmux's rule).",
        example: "\"vi\"",
        read: |src, t, k, s| {
            let Some(value) = src.string(t, k)? else {
                return Ok(());
            };
            if value != "vi" && value != "emacs" {
                return Err(src.error(
                    t.get(k).and_then(|i| i.span()),
                    format!("copy_keys = {} is neither vi nor emacs", quoted(&value)),
                    "write `copy_keys = \"vi\"` or `copy_keys = \"emacs\"`, or remove it",
                ));
            }
            s.copy_keys = Some(value);
            Ok(())
        },
        show: |s| match &s.copy_keys {
            Some(v) => quoted(v),
            None => "unset".into(),
        },
    },
    SettingKey {
        section: "ui",
        name: "wizard_shown",
        kind: "true or false",
        doc: "The first-run wizard was shown (termic sets it; false shows it again).",
        example: "true",
        read: |src, t, k, s| set(src.bool(t, k)?, &mut s.wizard_shown),
        show: |s| s.wizard_shown.to_string(),
    },
    SettingKey {
        section: "ui",
        name: "diff_syntax",
        kind: "true or false",
        doc: "Syntax colours in the diff view (keywords, strings, comments); false shows only added and removed.",
        example: "false",
        read: |src, t, k, s| set(src.bool(t, k)?, &mut s.diff_syntax),
        show: |s| s.diff_syntax.to_string(),
    },
    SettingKey {
        section: "notifications",
        name: "bell",
        kind: "true or false",
        doc: "Ring the outer terminal's bell when a task needs you or is done.",
        example: "false",
        read: |src, t, k, s| set(src.bool(t, k)?, &mut s.notifications.bell),
        show: |s| s.notifications.bell.to_string(),
    },
    SettingKey {
        section: "notifications",
        name: "desktop",
        kind: "true or false",
        doc: "Send a desktop notification (D-Bus) when a task needs you or is done.",
        example: "false",
        read: |src, t, k, s| set(src.bool(t, k)?, &mut s.notifications.desktop),
        show: |s| s.notifications.desktop.to_string(),
    },
    SettingKey {
        section: "notifications",
        name: "osc_fallback",
        kind: "true or false",
        doc: "Without a desktop notification service, ask the outer terminal (OSC 777/9).",
        example: "false",
        read: |src, t, k, s| set(src.bool(t, k)?, &mut s.notifications.osc_fallback),
        show: |s| s.notifications.osc_fallback.to_string(),
    },
    SettingKey {
        section: "notifications",
        name: "ntfy",
        kind: "http:// or https:// URL",
        doc: "Also send each notification to this ntfy topic (the server sends it, attached or \
              not; none for the task a client is looking at).",
        example: "\"https://ntfy.sh/mytopic\"",
        read: |src, t, k, s| url(src, t, k, &mut s.push.ntfy),
        show: |s| quoted(s.push.ntfy.as_deref().unwrap_or("")),
    },
    SettingKey {
        section: "notifications",
        name: "ntfy_token",
        kind: "string",
        doc: "The ntfy access token (sent as a Bearer token), for a protected topic.",
        example: "\"tk_abc123\"",
        read: |src, t, k, s| {
            set(
                src.string(t, k)?.filter(|v| !v.is_empty()).map(Some),
                &mut s.push.ntfy_token,
            )
        },
        show: |s| quoted(s.push.ntfy_token.as_deref().unwrap_or("")),
    },
    SettingKey {
        section: "notifications",
        name: "webhook",
        kind: "http:// or https:// URL",
        doc: "Also POST each notification as JSON to this URL (the same JSON a browser gets: \
              docs/push.md).",
        example: "\"https://example.com/termic-hook\"",
        read: |src, t, k, s| url(src, t, k, &mut s.push.webhook),
        show: |s| quoted(s.push.webhook.as_deref().unwrap_or("")),
    },
    SettingKey {
        section: "notifications",
        name: "push_contact",
        kind: "mailto: or https: URL",
        doc: "Who runs this termic, for the push services of subscribed browsers (VAPID's \
              contact, RFC 8292).",
        example: "\"mailto:you@example.com\"",
        read: |src, t, k, s| {
            let Some(value) = src.string(t, k)? else {
                return Ok(());
            };
            let lower = value.to_ascii_lowercase();
            if !(lower.starts_with("mailto:") || lower.starts_with("https://")) || value.len() < 8 {
                return Err(src.error(
                    t.get(k).and_then(|i| i.span()),
                    format!("push_contact = {} is not a mailto: or https: URL", quoted(&value)),
                    "write `push_contact = \"mailto:you@example.com\"`, or remove it",
                ));
            }
            s.push.push_contact = value;
            Ok(())
        },
        show: |s| quoted(&s.push.push_contact),
    },
    SettingKey {
        section: "notifications",
        name: "outer_fallback",
        kind: "\"progress\", \"notify\" or \"none\"",
        doc: "How the terminal termic runs in hears the workspace's state (needs you, working, \
              done) when it does not answer termic's OSC 7501 probe: OSC 9;4 progress, an OSC 777 \
              notification when a task starts needing you, or nothing. A terminal that answers \
              is told with OSC 7501.",
        example: "\"notify\"",
        read: |src, t, k, s| {
            let Some(value) = src.string(t, k)? else {
                return Ok(());
            };
            let Some(fallback) = OuterFallback::parse(&value) else {
                return Err(src.error(
                    t.get(k).and_then(|i| i.span()),
                    format!("outer_fallback = {} is not progress, notify or none", quoted(&value)),
                    "write `outer_fallback = \"progress\"`, \"notify\" or \"none\", or remove it",
                ));
            };
            s.outer_fallback = fallback;
            Ok(())
        },
        show: |s| quoted(s.outer_fallback.name()),
    },
    SettingKey {
        section: "server",
        name: "idle_exit",
        kind: "seconds, 0 to 31536000",
        doc: "How long the server stays with no task and no client attached before it exits (0: at once).",
        example: "3600",
        read: |src, t, k, s| {
            set(
                src.uint(t, k, MAX_IDLE_EXIT_SECS)?,
                &mut s.server_idle_exit_secs,
            )
        },
        show: |s| s.server_idle_exit_secs.to_string(),
    },
    SettingKey {
        section: "server",
        name: "window_size",
        kind: "\"latest\", \"smallest\" or \"largest\"",
        doc: "With several clients attached, whose size the tasks take: the client that typed, \
              resized or attached last, or the smallest or largest width and height among them \
              (tmux's window-size). A client smaller than a task sees the part around the cursor.",
        example: "\"smallest\"",
        read: |src, t, k, s| {
            let Some(value) = src.string(t, k)? else {
                return Ok(());
            };
            let Some(policy) = WindowSize::parse(&value) else {
                return Err(src.error(
                    t.get(k).and_then(|i| i.span()),
                    format!("window_size = {} is not latest, smallest or largest", quoted(&value)),
                    "write `window_size = \"latest\"`, \"smallest\" or \"largest\", or remove it",
                ));
            };
            s.window_size = policy;
            Ok(())
        },
        show: |s| quoted(s.window_size.name()),
    },
    SettingKey {
        section: "tasks",
        name: "continue_after_limit",
        kind: "true or false",
        doc: "When an agent stopped on a usage limit with a reset time (\"rate limited until \
              15:00\"), type its continue prompt at that time, once, if the task is still rate \
              limited and nobody typed in it since.",
        example: "true",
        read: |src, t, k, s| set(src.bool(t, k)?, &mut s.continue_after_limit),
        show: |s| s.continue_after_limit.to_string(),
    },
    SettingKey {
        section: "review",
        name: "merge",
        kind: "\"ff\", \"rebase\", \"squash\" or \"pr\"",
        doc: "How `termic merge` (and the diff view's m key) brings a worktree task's branch to the \
              branch it was cut from: fast-forward only, the task's commits replayed on it, all of \
              them as one commit, or a pull request with gh.",
        example: "\"squash\"",
        read: |src, t, k, s| {
            let Some(value) = src.string(t, k)? else {
                return Ok(());
            };
            let Some(how) = termic_review::merge::How::parse(&value) else {
                return Err(src.error(
                    t.get(k).and_then(|i| i.span()),
                    format!("merge = {} is not ff, rebase, squash or pr", quoted(&value)),
                    "write `merge = \"ff\"`, \"rebase\", \"squash\" or \"pr\", or remove it",
                ));
            };
            s.review_merge = how;
            Ok(())
        },
        show: |s| quoted(s.review_merge.as_str()),
    },
];

/// `[hooks]`: one key per agent id, your consent to its hooks.
pub const HOOKS_SECTION: &str = "hooks";

/// `[agents.<id>]`: a user-defined agent or a clone of a built-in.
pub const AGENTS_SECTION: &str = "agents";

/// Every key of an `[agents.<id>]` table.
pub const AGENT_KEYS: &[AgentKey] = &[
    AgentKey {
        name: "base",
        kind: "string",
        doc: "The built-in it is based on: its status profile and hooks.",
        default: "the section's id, when that is a built-in",
        example: "\"claude\"",
    },
    AgentKey {
        name: "command",
        kind: "list of strings",
        doc: "The program and its first arguments.",
        default: "the base's command",
        example: "[\"claude\"]",
    },
    AgentKey {
        name: "args",
        kind: "list of strings",
        doc: "Arguments appended to the command.",
        default: "[]",
        example: "[\"--model\", \"opus\"]",
    },
    AgentKey {
        name: "env",
        kind: "table of strings",
        doc: "Environment variables set for the agent.",
        default: "{}",
        example: "{ CLAUDE_CONFIG_DIR = \"/home/me/.claude-work\" }",
    },
    AgentKey {
        name: "docker",
        kind: "true or false",
        doc: "Run the agent in a container (hooks go to its own dir).",
        default: "false",
        example: "true",
    },
    AgentKey {
        name: "image",
        kind: "string",
        doc: "The Docker image (required with docker = true).",
        default: "none",
        example: "\"ghcr.io/me/claude\"",
    },
    AgentKey {
        name: "docker_args",
        kind: "list of strings",
        doc: "Extra `docker run` options, before the image (mounts, network, user).",
        default: "[]",
        example: "[\"--network\", \"host\"]",
    },
];

/// The fixed sections, in reference order.
pub fn setting_sections() -> Vec<&'static str> {
    let mut out: Vec<&str> = Vec::new();
    for k in SETTING_KEYS {
        if !out.contains(&k.section) {
            out.push(k.section);
        }
    }
    out
}

/// Reads every fixed-section key of `root` into `s` (the parser's path).
pub fn read_settings(src: &Source<'_>, root: &Table, s: &mut Settings) -> Result<(), ConfigError> {
    let mut errors = Vec::new();
    read_settings_into(src, root, s, &mut errors);
    errors.into_iter().next().map_or(Ok(()), Err)
}

/// Reads every setting it can: a key whose value is wrong keeps its
/// default and its error goes to `errors`, in the file's key order, so a
/// bad value never hides the keys around it (attach uses what is good).
pub fn read_settings_into(
    src: &Source<'_>,
    root: &Table,
    s: &mut Settings,
    errors: &mut Vec<ConfigError>,
) {
    for section in setting_sections() {
        match src.table(root, section) {
            Ok(Some(t)) => {
                for k in SETTING_KEYS.iter().filter(|k| k.section == section) {
                    if let Err(e) = (k.read)(src, t, k.name, s) {
                        errors.push(e);
                    }
                }
            }
            Ok(None) => {}
            Err(e) => errors.push(e),
        }
    }
    match src.table(root, HOOKS_SECTION) {
        Ok(Some(t)) => {
            for (agent, _) in t.iter() {
                match src.bool(t, agent) {
                    Ok(Some(v)) => {
                        s.hooks_consent.insert(agent.to_owned(), v);
                    }
                    Ok(None) => {}
                    Err(e) => errors.push(e),
                }
            }
        }
        Ok(None) => {}
        Err(e) => errors.push(e),
    }
}
