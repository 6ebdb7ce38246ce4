//! Generates the POSIX sh hook scripts every command-hook agent runs.
//!
//! Each script reports one agent event as one wire message
//! (`termic_signal::wire`), built from the wire constants so the two sides
//! cannot drift. Properties every script has, pinned by `tests/hooks/scripts.rs`:
//! exit 0 on every path, silent unless `TERMIC_TASK_ID` is a valid task id,
//! bounded time (stdin is read only when the payload matters, at most 8 MiB
//! and at most 2 s), no network, no files other than `$TERMIC_PTY`, and no
//! raw control byte in the file (escapes are JSON `\u001b` or printf `\033`).

use termic_signal::stop::StopReason;
use termic_signal::wire::{self, HookEvent};

/// How the script gets the sequence onto the agent's terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// Print `{"terminalSequence": ...}` on stdout; Claude writes it to its
    /// own PTY. Needs a synchronous hook (measured: `async` drops it).
    TerminalSequence,
    /// Open `$TERMIC_PTY` by name and write the raw sequence. Hooks run with
    /// no controlling terminal, so `/dev/tty` would fail (measured on grok).
    PtyByName,
}

/// What the script reads from the payload before it speaks.
#[derive(Debug, Clone, Copy)]
pub enum PayloadRule {
    /// Ignore stdin entirely.
    None,
    /// Shell that reads the payload (the pipeline in `flat`, the payload
    /// on one line) and sets `extra` (fields after the fixed ones), or
    /// exits 0 to stay silent. Written in the agent's file.
    Shell {
        /// The logic, given the `flat` pipeline.
        logic: fn(flat: &str) -> String,
        /// The logic may set `mode=error`: then the script sends an
        /// `error` message (with no static fields) instead.
        may_send_error: bool,
    },
}

/// One generated script.
#[derive(Debug, Clone, Copy)]
pub struct ScriptSpec {
    /// Agent name for the header, e.g. `claude`.
    pub agent: &'static str,
    /// The agent event that runs the script, e.g. `PermissionRequest`.
    pub hook: &'static str,
    /// What the script tells termic, for the header.
    pub purpose: &'static str,
    pub event: HookEvent,
    /// Fields always sent after `hook=`, e.g. `kind=permission` for grok.
    pub static_fields: &'static [(&'static str, &'static str)],
    pub payload: PayloadRule,
    pub transport: Transport,
    /// A shell line that exits 0 early when the script runs somewhere it
    /// must stay silent (e.g. under another agent that runs these hooks too).
    pub silent_if: Option<&'static str>,
}

/// File mode of every generated script.
pub const SCRIPT_MODE: u32 = 0o755;
/// Most bytes of payload a script reads from stdin.
pub const PAYLOAD_MAX_BYTES: u64 = 8 * 1024 * 1024;
/// Longest a script waits for its payload when stdin never closes.
pub const PAYLOAD_MAX_SECONDS: u32 = 2;

/// Longest the write to `$TERMIC_PTY` may take (`sleep` with a fraction:
/// GNU, busybox, BSD and macOS all accept it) before the writer is killed.
pub const PTY_WRITE_MAX_SECONDS: &str = "0.1";

/// Every byte a task id may contain, spelled out so the shell's `case`
/// pattern does not depend on the locale's idea of a range.
const TASK_ID_CHARS: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-";

impl ScriptSpec {
    /// A script that writes to `$TERMIC_PTY` by name and is never silenced
    /// (the shape of most agents' scripts).
    pub const fn pty(
        agent: &'static str,
        hook: &'static str,
        purpose: &'static str,
        event: HookEvent,
        static_fields: &'static [(&'static str, &'static str)],
        payload: PayloadRule,
    ) -> ScriptSpec {
        ScriptSpec {
            agent,
            hook,
            purpose,
            event,
            static_fields,
            payload,
            transport: Transport::PtyByName,
            silent_if: None,
        }
    }

    /// The wire message this script sends for `task_id` with the
    /// payload-derived fields `extra` (what a test expects to read back).
    pub fn message(&self, task_id: &str, extra: &[(&str, &str)]) -> wire::HookMessage {
        let mut msg =
            wire::HookMessage::new(self.event, task_id).with(wire::field::HOOK, self.hook);
        for (k, v) in self.static_fields.iter().chain(extra) {
            msg = msg.with(k, v);
        }
        msg
    }

    /// The script text.
    pub fn render(&self) -> String {
        let mut s = String::new();
        s.push_str(&self.header());
        s.push_str(&self.gates());
        s.push_str(&self.payload_logic());
        s.push_str(&self.emit());
        s.push_str("exit 0\n");
        debug_assert!(!s.bytes().any(|b| b < 0x20 && b != b'\n'));
        s
    }

    fn header(&self) -> String {
        let how = match self.transport {
            Transport::TerminalSequence => {
                "Prints one terminalSequence that the agent writes to its own terminal."
            }
            Transport::PtyByName => "Writes one OSC sequence to the terminal named by $TERMIC_PTY.",
        };
        format!(
            "#!/bin/sh\n\
             # termic agent hook, generated by termic {version} (wire format {wire}).\n\
             # Safe to delete; `termic hooks remove {agent}` removes it and its entry.\n\
             # {agent} {hook}: {purpose}\n\
             # {how}\n\
             # No network, no other files, no arguments. Exits 0 on every path.\n",
            version = env!("CARGO_PKG_VERSION"),
            wire = wire::VERSION,
            agent = self.agent,
            hook = self.hook,
            purpose = self.purpose,
        )
    }

    fn gates(&self) -> String {
        let mut s = String::from(
            "exec 2>/dev/null\n\
             trap '' PIPE\n\
             LC_ALL=C\n\
             export LC_ALL\n",
        );
        if let Some(line) = self.silent_if {
            s.push_str(line);
        }
        s.push_str(&format!(
            "# Not a termic task (or a malformed id): stay silent.\n\
             case \"${{TERMIC_TASK_ID:-}}\" in\n  ''|*[!{TASK_ID_CHARS}]*) exit 0 ;;\nesac\n\
             [ \"${{#TERMIC_TASK_ID}}\" -le {max} ] || exit 0\n",
            max = wire::MAX_TASK_ID_LEN,
        ));
        if self.transport == Transport::PtyByName {
            s.push_str("[ -c \"${TERMIC_PTY:-}\" ] || exit 0\n");
        }
        s
    }

    fn payload_logic(&self) -> String {
        // Signals may be ignored or blocked (an agent can start its hooks
        // so, and ignored-at-entry signals cannot be trapped), so the bound
        // rests on SIGKILL alone, sent only to a process its sender has not
        // reaped. `head` is started by `sh -c` that prints its own pid first
        // (the pid `head` keeps through `exec`), so the shell that keeps the
        // time knows whom to kill. The pipe to that shell is held by `head`
        // alone (fd 5), so its EOF says `head` is done: the watcher then
        // kills the timer. When the timer ends first, the watcher is killed
        // before `head`, so it never acts on a reaped timer.
        let reader = format!(
            "# The JSON payload: at most {max} bytes, and at most {secs} s even if stdin\n\
             # never closes (then the payload is dropped and the default answer stands).\n\
             # Everything is stopped with kill -9: signals may be ignored.\n\
             payload() {{\n\
             \x20 exec 4>&1\n\
             \x20 /bin/sh -c 'echo \"$$\" >&5; exec head -c {max}' 5>&1 >&4 4>&- | {{\n\
             \x20   read -r reader || exit 0\n\
             \x20   exec 5<&0\n\
             \x20   sleep {secs} </dev/null >/dev/null &\n\
             \x20   timer=$!\n\
             \x20   {{ while read -r _; do :; done; kill -9 \"$timer\"; }} <&5 &\n\
             \x20   watcher=$!\n\
             \x20   exec 5<&- </dev/null\n\
             \x20   wait \"$timer\"\n\
             \x20   [ \"$?\" -gt 128 ] || kill -9 \"$watcher\" \"$reader\"\n\
             \x20   wait \"$watcher\"\n\
             \x20 }} >/dev/null 4>&-\n\
             }}\n",
            max = PAYLOAD_MAX_BYTES,
            secs = PAYLOAD_MAX_SECONDS,
        );
        let flat = "payload | tr '\\n\\r\\t' '   '";
        let logic = match self.payload {
            PayloadRule::None => return "extra=''\n".to_string(),
            PayloadRule::Shell { logic, .. } => logic(flat),
        };
        format!("{reader}{logic}")
    }

    fn emit(&self) -> String {
        // Everything static is passed as a %s argument, so no wire constant is
        // ever interpreted by printf; the task id is the only variable part.
        let (head, tail) = split_at_task_id(&self.message("TASKID", &[]));
        let mut parts = format!("head='{head}'\ntail='{tail}'\n");
        if let PayloadRule::Shell {
            may_send_error: true,
            ..
        } = self.payload
        {
            // The error branch sends an error (no static kind field).
            let error = wire::HookMessage::new(HookEvent::Error, "TASKID")
                .with(wire::field::HOOK, self.hook);
            let (head, tail) = split_at_task_id(&error);
            parts.push_str(&format!(
                "if [ \"${{mode:-}}\" = error ]; then head='{head}'; tail='{tail}'; fi\n"
            ));
        }
        let send = match self.transport {
            Transport::TerminalSequence => "printf '%s%s%s' '{\"terminalSequence\":\"\\u001b]'\"$head\" \"$TERMIC_TASK_ID\" \"$tail$extra\"'\\u0007\"}'\n".to_string(),
            Transport::PtyByName => format!(
                "# $TERMIC_PTY is opened read-only (no O_CREAT, no O_TRUNC: nothing can be\n\
                 # created or cut), the OPENED file must be a character device, and the\n\
                 # write reopens that very file through /proc/self/fd, never the name.\n\
                 # Without /proc: opened read-write (O_CREAT, never O_TRUNC), written only\n\
                 # when the opened file is a character device. A background writer, so a\n\
                 # full pty cannot hold the script: it stops the timer when done; when the\n\
                 # timer ends first the writer is killed. kill -9: signals may be ignored.\n\
                 sleep {bound} </dev/null >/dev/null &\n\
                 timer=$!\n\
                 if [ -d /proc/self/fd ]; then\n\
                 \x20 ( [ -c /proc/self/fd/3 ] && {print} >/proc/self/fd/3; kill -9 \"$timer\" ) 3<\"$TERMIC_PTY\" </dev/null >/dev/null &\n\
                 else\n\
                 \x20 ( [ -c /dev/fd/3 ] && {print} >&3; kill -9 \"$timer\" ) 3<>\"$TERMIC_PTY\" </dev/null >/dev/null &\n\
                 fi\n\
                 writer=$!\n\
                 wait \"$timer\"\n\
                 [ \"$?\" -gt 128 ] || kill -9 \"$writer\"\n\
                 wait \"$writer\"\n",
                print = "printf '\\033]%s%s%s\\007' \"$head\" \"$TERMIC_TASK_ID\" \"$tail$extra\"",
                bound = PTY_WRITE_MAX_SECONDS,
            ),
        };
        parts + &send
    }
}

/// A `case` on `var` setting `reason` (patterns for rate limited,
/// overloaded, server error, auth failed, in that order; anything else is
/// api_error) and `extra` to the wire's `;reason=...`, indented by `pad`.
pub(crate) fn reason_case(pad: &str, var: &str, patterns: [&str; 4]) -> String {
    let reasons = [
        StopReason::RateLimited,
        StopReason::Overloaded,
        StopReason::ServerError,
        StopReason::AuthFailed,
    ];
    let mut s = format!("{pad}case \"{var}\" in\n");
    for (pattern, reason) in patterns.iter().zip(reasons) {
        s.push_str(&format!(
            "{pad}  {pattern}) reason={} ;;\n",
            reason.as_wire()
        ));
    }
    s.push_str(&format!(
        "{pad}  *) reason={} ;;\n{pad}esac\n{pad}extra=\";{}=$reason\"\n",
        StopReason::ApiError.as_wire(),
        wire::field::REASON
    ));
    s
}

/// The `session=` field from the payload in `var` (its first `"KEY":
/// "VALUE"` pair for `key`: the agents write it at the top level, and a
/// quoted key inside a string value is escaped, so it cannot match),
/// appended to `extra`; nothing when it is missing or not an id
/// [`wire::is_session_id`] takes. A restore resumes that conversation
/// (`claude --resume ID`, `qwen --resume ID`, ...).
pub(crate) fn session_field(var: &str, key: &str) -> String {
    assert!(key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'));
    format!(
        "sid=$(printf '%s' \"{var}\" | grep -o '\"{key}\" *: *\"[A-Za-z0-9._:-]*\"' | head -n 1 \
         | sed 's/.*\"\\([A-Za-z0-9._:-]*\\)\"$/\\1/')\n\
         case \"$sid\" in\n\
         \x20 ''|-*) ;;\n\
         \x20 *) [ \"${{#sid}}\" -le {max} ] && extra=\"$extra;{field}=$sid\" ;;\n\
         esac\n",
        max = wire::MAX_FIELD_LEN,
        field = wire::field::SESSION,
    )
}

/// The `message=` field (the agent's last message of the turn, the wire's
/// one free text) from the payload in `var` (its first top-level `"KEY":
/// "..."` string), appended to `extra`; nothing when it is missing or empty.
/// What [`wire::encode_text`] does, in POSIX sh with `grep`, `sed`, `tr` and
/// `head` on a string already read (none can wait on anything): the JSON
/// escapes read back (`\n`, `\t` as a space, a `\u` escape of a control
/// byte dropped, any other `\u` escape as `?`), `%`, `;`, `"` and `\` as
/// `%XX`, control bytes (C0, DEL, and C1 in UTF-8) dropped, then cut to
/// [`wire::MAX_TEXT_LEN`] bytes and an escape or a UTF-8 character the cut
/// split dropped. High bytes come from `printf` octal escapes, so the file
/// stays plain ASCII.
pub(crate) fn message_field(var: &str, key: &str) -> String {
    assert!(key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'));
    assert_eq!(wire::TEXT_ESCAPED, [b'%', b';', b'"', b'\\']);
    format!(
        "# The agent's last message: cleaned, escaped and cut (docs/protocol.md).\n\
         c1=$(printf '\\302[\\200-\\237]')\n\
         cut1=$(printf '[\\300-\\377]')\n\
         cut2=$(printf '[\\340-\\377][\\200-\\277]')\n\
         cut3=$(printf '[\\360-\\377][\\200-\\277][\\200-\\277]')\n\
         msg=$(printf '%s' \"{var}\" | grep -oE '\"{key}\" *: *\"([^\"\\\\]|\\\\.)*\"' | head -n 1 \\\n\
         \x20 | sed -e 's/^\"{key}\" *: *\"//' -e 's/\"$//' -e 's/%/%25/g' -e 's/\\\\\\\\/%5C/g' \\\n\
         \x20   -e 's/\\\\\"/%22/g' -e 's/\\\\\\//\\//g' -e 's/\\\\[nrt]/ /g' -e 's/\\\\[bf]//g' \\\n\
         \x20   -e 's/\\\\u00[01][0-9A-Fa-f]//g' -e 's/\\\\u007[Ff]//g' \\\n\
         \x20   -e 's/\\\\u[0-9A-Fa-f][0-9A-Fa-f][0-9A-Fa-f][0-9A-Fa-f]/?/g' \\\n\
         \x20   -e 's/\\\\/%5C/g' -e 's/;/%3B/g' -e 's/\"/%22/g' \\\n\
         \x20 | tr -d '\\000-\\037\\177' | sed -e \"s/$c1//g\" | head -c {max} \\\n\
         \x20 | sed -e 's/%[0-9A-F]\\{{0,1\\}}$//' -e \"s/$cut3\\$//\" -e \"s/$cut2\\$//\" -e \"s/$cut1\\$//\")\n\
         [ -z \"$msg\" ] || extra=\"$extra;{field}=$msg\"\n",
        max = wire::MAX_TEXT_LEN,
        field = wire::field::MESSAGE,
    )
}

/// An end-of-turn script's logic: the conversation id from `session_key`
/// and the last message from `message_key` (each agent's file names its
/// payload's keys).
pub(crate) fn session_and_message(flat: &str, session_key: &str, message_key: &str) -> String {
    format!(
        "p=$({flat})\nextra=''\n{}{}",
        session_field("$p", session_key),
        message_field("$p", message_key)
    )
}

/// Only the conversation id, from the payload's snake_case `session_id`
/// (Claude Code, Gemini CLI, Qwen Code).
pub const SESSION_ID: PayloadRule = PayloadRule::Shell {
    logic: |flat| {
        format!(
            "p=$({flat})\nextra=''\n{}",
            session_field("$p", "session_id")
        )
    },
    may_send_error: false,
};

/// Only the conversation id, from the payload's camelCase `sessionId`
/// (Copilot CLI, Grok).
pub const SESSION_ID_CAMEL: PayloadRule = PayloadRule::Shell {
    logic: |flat| {
        format!(
            "p=$({flat})\nextra=''\n{}",
            session_field("$p", "sessionId")
        )
    },
    may_send_error: false,
};

/// A message's body split around its task id placeholder `TASKID`, each
/// part checked safe to put between single quotes in the script.
fn split_at_task_id(msg: &wire::HookMessage) -> (String, String) {
    let body = msg.body();
    let (head, tail) = body.split_once(";TASKID").expect("task id placeholder");
    let head = format!("{head};");
    for part in [head.as_str(), tail] {
        assert!(
            !part.contains(['\'', '\\', '%']) && !part.bytes().any(|b| b < 0x20),
            "wire constant unsafe in a shell script: {part:?}"
        );
    }
    (head, tail.to_string())
}
