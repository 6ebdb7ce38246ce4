//! Every generated hook script executed for real by `/bin/sh`: exit 0 on
//! every path, the exact wire bytes when it should speak, nothing otherwise.

use crate::common;

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::Pty;
use termic_hooks::agents::script::{ScriptSpec, Transport, PAYLOAD_MAX_SECONDS};
use termic_hooks::agents::{AgentSchema, HookRegistration};
use termic_signal::wire::{self, HookEvent};

const TASK: &str = "3f9c0a1e-77b2";

struct Run {
    code: Option<i32>,
    stdout: Vec<u8>,
    pty: Vec<u8>,
    elapsed: Duration,
}

enum Stdin<'a> {
    Bytes(&'a [u8]),
    /// Write these bytes and never close stdin.
    NeverClosed(&'a [u8]),
}

struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        Fixture {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn script(&self, reg: &HookRegistration) -> PathBuf {
        let path = self.dir.path().join(reg.file_name);
        std::fs::write(&path, reg.script.render()).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    fn run(&self, script: &Path, env: &[(&str, &str)], stdin: Stdin, pty: Option<&mut Pty>) -> Run {
        let mut cmd = Command::new(script);
        cmd.env_clear()
            .env("PATH", std::env::var("PATH").unwrap())
            .current_dir(self.dir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(p) = pty.as_ref() {
            cmd.env("TERMIC_PTY", &p.slave_path);
        }
        for (k, v) in env {
            cmd.env(k, v);
        }
        let start = Instant::now();
        // A script written by one thread can be "text file busy" for a moment
        // while another thread's fork still holds the write handle; a busy
        // machine can also refuse a fork for a moment (EAGAIN).
        let mut child = loop {
            match cmd.spawn() {
                Err(e) if matches!(e.raw_os_error(), Some(libc::ETXTBSY | libc::EAGAIN)) => {
                    std::thread::sleep(Duration::from_millis(10))
                }
                other => {
                    break other.unwrap_or_else(|e| panic!("spawn {}: {e:?}", script.display()))
                }
            }
        };
        let mut input = child.stdin.take().unwrap();
        let keep_open = match stdin {
            Stdin::Bytes(b) => {
                let _ = input.write_all(b);
                drop(input);
                None
            }
            Stdin::NeverClosed(b) => {
                let _ = input.write_all(b);
                Some(input)
            }
        };
        let out = child.wait_with_output().unwrap();
        let elapsed = start.elapsed();
        drop(keep_open);
        assert!(
            out.stderr.is_empty(),
            "hook wrote to stderr: {:?}",
            String::from_utf8_lossy(&out.stderr)
        );
        Run {
            code: out.status.code(),
            stdout: out.stdout,
            pty: pty.map(|p| p.drain()).unwrap_or_default(),
            elapsed,
        }
    }
}

fn registration(schema: AgentSchema, event: &str) -> &'static HookRegistration {
    schema
        .adapter()
        .registrations()
        .iter()
        .find(|r| r.event == event)
        .unwrap()
}

fn all_registrations() -> Vec<(AgentSchema, &'static HookRegistration)> {
    AgentSchema::all()
        .into_iter()
        .flat_map(|s| s.adapter().registrations().iter().map(move |r| (s, r)))
        .collect()
}

/// What the script should have produced, in the channel its transport uses.
fn expected(spec: &ScriptSpec, extra: &[(&str, &str)]) -> Vec<u8> {
    let msg = spec.message(TASK, extra);
    match spec.transport {
        Transport::TerminalSequence => {
            serde_json::to_vec(&serde_json::json!({ "terminalSequence": msg.to_sequence() }))
                .unwrap()
        }
        Transport::PtyByName => msg.to_sequence().into_bytes(),
    }
}

/// Runs a script that should speak and returns the bytes of its channel.
fn speak(reg: &HookRegistration, env: &[(&str, &str)], payload: &[u8]) -> (Run, Vec<u8>) {
    let fx = Fixture::new();
    let script = fx.script(reg);
    let mut pty = Pty::open();
    let mut full_env = vec![("TERMIC_TASK_ID", TASK)];
    full_env.extend_from_slice(env);
    let mut run = fx.run(&script, &full_env, Stdin::Bytes(payload), Some(&mut pty));
    assert_eq!(run.code, Some(0));
    if run.pty.is_empty() {
        run.pty = pty.drain_within(Duration::from_secs(1));
    }
    let channel = match reg.script.transport {
        Transport::TerminalSequence => {
            assert!(run.pty.is_empty(), "claude's script must not touch the pty");
            run.stdout.clone()
        }
        Transport::PtyByName => {
            assert!(run.stdout.is_empty(), "pty scripts print nothing on stdout");
            run.pty.clone()
        }
    };
    (run, channel)
}

#[test]
fn every_script_speaks_the_exact_wire_message_with_a_valid_task_id() {
    for (schema, reg) in all_registrations() {
        let payload = match (schema.id(), reg.event) {
            ("grok", "Notification") => {
                br#"{"hookEventName":"notification","notificationType":"permission_prompt","message":"Tool permission requested"}"#.as_slice()
            }
            // Gemini CLI 0.61.0's payload, as measured.
            ("gemini", "Notification") => {
                br#"{"session_id":"s","hook_event_name":"Notification","notification_type":"ToolPermission","message":"Tool write_file requires editing","details":{"type":"edit"}}"#.as_slice()
            }
            _ => b"{}".as_slice(),
        };
        let (_, got) = speak(reg, &[], payload);
        // Fields the script takes from the payload (Claude's); the others'
        // kind is static.
        let extra: &[(&str, &str)] = match (schema.id(), reg.event) {
            ("claude", "PermissionRequest") => &[("kind", "permission")],
            (_, "StopFailure") => &[("reason", "api_error")],
            _ => &[],
        };
        assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(&expected(&reg.script, extra)),
            "{} {}",
            schema.id(),
            reg.event
        );
    }
}

#[test]
fn claudes_output_is_json_whose_terminal_sequence_parses_back_with_the_wire_module() {
    // StopFailure's output is ignored by Claude, so it writes to the pty
    // (claude_stop_failure_names_the_reason_from_its_error_field).
    let registrations = AgentSchema::CLAUDE.adapter().registrations();
    let by_output = registrations
        .iter()
        .filter(|r| r.script.transport == Transport::TerminalSequence);
    assert_eq!(by_output.clone().count(), registrations.len() - 1);
    for reg in by_output {
        let (_, out) = speak(reg, &[], b"{}");
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        let seq = v["terminalSequence"].as_str().unwrap();
        let body = seq
            .strip_prefix("\x1b]")
            .unwrap()
            .strip_suffix('\x07')
            .unwrap();
        let msg = wire::parse_body(body).unwrap().unwrap();
        assert_eq!(msg.task_id, TASK);
        assert_eq!(msg.event, reg.script.event);
        assert_eq!(msg.field(wire::field::HOOK), Some(reg.event));
        // The one-line regression that would silently disable the feature:
        // what the real script prints must pass termic's claude notify filter.
        assert!(
            termic_signal::profile::wants_attention("claude", body),
            "{body} is filtered out as a claude notification"
        );
        // The file itself holds JSON escapes, never the raw bytes.
        let text = reg.script.render();
        assert!(text.contains(r"\u001b]") && text.contains(r"\u0007"));
    }
}

#[test]
fn claude_permission_request_carries_the_kind_from_tool_name() {
    let reg = registration(AgentSchema::CLAUDE, "PermissionRequest");
    let cases: &[(&str, &str)] = &[
        (
            r#"{"hook_event_name":"PermissionRequest","tool_name":"AskUserQuestion","tool_input":{}}"#,
            "question",
        ),
        (
            r#"{"tool_name":"ExitPlanMode","tool_input":{"plan":"x"}}"#,
            "plan",
        ),
        (
            r#"{"tool_name":"Write","tool_input":{"file_path":"/x"}}"#,
            "permission",
        ),
        (
            "{\n  \"tool_name\"\n    :\t\"AskUserQuestion\",\r\n  \"tool_input\": {}\n}",
            "question",
        ),
        // A nested tool_name after the real one does not change the kind.
        (
            r#"{"tool_name":"Write","tool_input":{"tool_name":"AskUserQuestion"}}"#,
            "permission",
        ),
        // Escaped quotes inside a string value are never a key.
        (
            r#"{"tool_name":"Bash","tool_input":{"command":"echo \"tool_name\": \"ExitPlanMode\""}}"#,
            "permission",
        ),
        ("", "permission"),
        ("not json at all", "permission"),
    ];
    for (payload, kind) in cases {
        let (_, got) = speak(reg, &[], payload.as_bytes());
        assert_eq!(
            got,
            expected(&reg.script, &[("kind", kind)]),
            "payload {payload:?}"
        );
    }
}

#[test]
fn claude_stop_reports_background_only_for_a_non_empty_background_tasks_array() {
    let reg = registration(AgentSchema::CLAUDE, "Stop");
    let bg: &[(&str, &str)] = &[("background", "1")];
    let cases: &[(&str, &[(&str, &str)])] = &[
        (
            r#"{"stop_hook_active":false,"background_tasks":[],"session_crons":[]}"#,
            &[],
        ),
        (r#"{"background_tasks": [ ] }"#, &[]),
        (r#"{"last_assistant_message":"hi"}"#, &[("message", "hi")]),
        (
            r#"{"background_tasks":[{"id":"b1","type":"bash","status":"running"}]}"#,
            bg,
        ),
        (
            "{\n \"background_tasks\" :\n [\n  {\"id\": \"b1\"}\n ]\n}",
            bg,
        ),
        (
            r#"{"last_assistant_message":"\"background_tasks\":[{}]","background_tasks":[]}"#,
            &[("message", "%22background_tasks%22:[{}]")],
        ),
    ];
    for (payload, extra) in cases {
        let (_, got) = speak(reg, &[], payload.as_bytes());
        assert_eq!(got, expected(&reg.script, extra), "payload {payload:?}");
    }
}

#[test]
fn claude_stop_failure_names_the_reason_from_its_error_field() {
    // Payload shape measured on 2.1.332 (termic-fakemodel error-500).
    let reg = registration(AgentSchema::CLAUDE, "StopFailure");
    assert_eq!(reg.script.transport, Transport::PtyByName);
    let payload = |error: &str| {
        format!(
            r#"{{"session_id":"s","hook_event_name":"StopFailure","error":"{error}","last_assistant_message":"API Error: 500 \"error\":\"rate_limit\""}}"#
        )
    };
    for (error, reason) in [
        ("rate_limit", "rate_limited"),
        ("overloaded", "overloaded"),
        ("server_error", "server_error"),
        ("authentication_failed", "auth_failed"),
        ("oauth_org_not_allowed", "auth_failed"),
        ("billing_error", "api_error"),
        ("unknown", "api_error"),
    ] {
        let (_, got) = speak(reg, &[], payload(error).as_bytes());
        let message = "API Error: 500 %22error%22:%22rate_limit%22";
        assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(&expected(
                &reg.script,
                &[("reason", reason), ("message", message)]
            )),
            "{error}"
        );
    }
}

#[test]
fn grok_agent_error_notification_is_an_error_with_the_reason_from_its_status() {
    // Payload measured on 0.2.111 (termic-fakemodel error-429 / error-529).
    let reg = registration(AgentSchema::GROK, "Notification");
    let payload = |message: &str| {
        format!(
            r#"{{"hookEventName":"notification","sessionId":"s","notificationType":"agent_error","message":"{message}","level":"error"}}"#
        )
    };
    let error = |reason: &str| {
        wire::HookMessage::new(HookEvent::Error, TASK)
            .with("hook", "Notification")
            .with("reason", reason)
            .to_sequence()
    };
    for (message, reason) in [
        (
            "API error (status 429 Too Many Requests): rate_limit_error: slow down",
            "rate_limited",
        ),
        (
            "API error (status 529 <unknown status code>): The fake model is overloaded.",
            "overloaded",
        ),
        (
            "API error (status 500 Internal Server Error): boom",
            "server_error",
        ),
        (
            "API error (status 401 Unauthorized): invalid x-api-key",
            "auth_failed",
        ),
        ("something else went wrong", "api_error"),
    ] {
        let (_, got) = speak(reg, &[], payload(message).as_bytes());
        assert_eq!(String::from_utf8_lossy(&got), error(reason), "{message}");
    }
}

#[test]
fn grok_notification_speaks_only_for_permission_prompt() {
    let reg = registration(AgentSchema::GROK, "Notification");
    let silent = [
        r#"{"hookEventName":"notification","notificationType":"idle_prompt","message":"Turn complete"}"#,
        r#"{"notificationType":"idle_prompt","message":"permission_prompt"}"#,
        r#"{"message":"Tool permission requested"}"#,
        "",
    ];
    for payload in silent {
        let (run, got) = speak(
            reg,
            &[("GROK_HOOK_EVENT", "notification")],
            payload.as_bytes(),
        );
        assert!(
            got.is_empty() && run.stdout.is_empty(),
            "payload {payload:?} must stay silent"
        );
    }
    let (_, got) = speak(
        reg,
        &[("GROK_HOOK_EVENT", "notification")],
        b"{ \"notificationType\" : \"permission_prompt\", \"level\": \"info\" }",
    );
    assert_eq!(got, expected(&reg.script, &[]));
}

#[test]
fn every_script_is_silent_without_or_with_a_hostile_task_id() {
    let long = "a".repeat(wire::MAX_TASK_ID_LEN + 1);
    let hostile: Vec<Option<&str>> = vec![
        None,
        Some(""),
        Some("a;b"),
        Some("$(touch pwned)"),
        Some("`touch pwned`"),
        Some("a\nb"),
        Some("abc\u{e9}"),
        Some("a b"),
        Some(&long),
    ];
    for (schema, reg) in all_registrations() {
        let fx = Fixture::new();
        let script = fx.script(reg);
        for id in &hostile {
            let mut pty = Pty::open();
            let env: Vec<(&str, &str)> = id.iter().map(|v| ("TERMIC_TASK_ID", *v)).collect();
            let run = fx.run(&script, &env, Stdin::Bytes(b"{}"), Some(&mut pty));
            assert_eq!(run.code, Some(0), "{} {} id {id:?}", schema.id(), reg.event);
            assert!(
                run.stdout.is_empty() && run.pty.is_empty(),
                "{} {} spoke for {id:?}",
                schema.id(),
                reg.event
            );
        }
        assert!(
            !fx.dir.path().join("pwned").exists(),
            "a task id was executed"
        );
    }
    // The longest valid id still speaks.
    let max = "b".repeat(wire::MAX_TASK_ID_LEN);
    let reg = registration(AgentSchema::AGY, "Stop");
    let fx = Fixture::new();
    let mut pty = Pty::open();
    let run = fx.run(
        &fx.script(reg),
        &[("TERMIC_TASK_ID", &max)],
        Stdin::Bytes(b""),
        Some(&mut pty),
    );
    let got = match run.pty.is_empty() {
        true => pty.drain_within(Duration::from_secs(2)),
        false => run.pty,
    };
    assert_eq!(
        got,
        reg.script.message(&max, &[]).to_sequence().into_bytes()
    );
}

#[test]
fn gemini_notification_speaks_only_for_a_tool_permission() {
    let reg = registration(AgentSchema::GEMINI, "Notification");
    for payload in [
        br#"{"notification_type":"ToolPermission"}"#.as_slice(),
        br#"{"hook_event_name":"Notification","notification_type" : "ToolPermission","details":{}}"#,
    ] {
        let (_, got) = speak(reg, &[], payload);
        assert_eq!(got, expected(&reg.script, &[]));
    }
    for payload in [
        br#"{"notification_type":"SessionComplete"}"#.as_slice(),
        br#"{"message":"ToolPermission"}"#,
        b"{}",
        b"not json",
    ] {
        let (run, got) = speak(reg, &[], payload);
        assert_eq!(run.code, Some(0));
        assert!(got.is_empty(), "{}", String::from_utf8_lossy(payload));
    }
}

#[test]
fn claude_scripts_are_silent_under_grok_and_grok_scripts_are_not() {
    for (schema, reg) in all_registrations() {
        let payload =
            br#"{"notificationType":"permission_prompt","notification_type":"ToolPermission"}"#;
        let (run, got) = speak(reg, &[("GROK_HOOK_EVENT", "stop")], payload);
        assert_eq!(run.code, Some(0));
        match schema.id() {
            "claude" => assert!(got.is_empty(), "claude {} spoke under grok", reg.event),
            _ => assert!(
                !got.is_empty(),
                "{} {} should speak",
                schema.id(),
                reg.event
            ),
        }
    }
}

#[test]
fn pty_scripts_exit_0_silently_when_termic_pty_is_missing_or_not_a_terminal() {
    let fx = Fixture::new();
    let regular = fx.dir.path().join("regular-file");
    std::fs::write(&regular, b"untouched").unwrap();
    let fifo = fx.dir.path().join("fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid C string path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let missing = fx.dir.path().join("no-such-pty");
    let bad: Vec<Option<&str>> = vec![
        None,
        Some(""),
        Some(missing.to_str().unwrap()),
        Some(regular.to_str().unwrap()),
        Some(fifo.to_str().unwrap()),
        Some("/dev/full"), // a character device whose writes fail (ENOSPC)
    ];
    for (schema, reg) in all_registrations() {
        if reg.script.transport != Transport::PtyByName {
            continue;
        }
        let script = fx.script(reg);
        for pty in &bad {
            let mut env = vec![("TERMIC_TASK_ID", TASK)];
            env.extend(pty.iter().map(|p| ("TERMIC_PTY", *p)));
            let payload = br#"{"notificationType":"permission_prompt"}"#;
            let run = fx.run(&script, &env, Stdin::Bytes(payload), None);
            assert_eq!(
                run.code,
                Some(0),
                "{} {} with TERMIC_PTY={pty:?}",
                schema.id(),
                reg.event
            );
            assert!(run.stdout.is_empty());
            assert!(run.elapsed < Duration::from_secs(2), "blocked on {pty:?}");
        }
        assert_eq!(std::fs::read(&regular).unwrap(), b"untouched");
    }
}

#[test]
fn every_script_exits_0_with_stdout_closed() {
    for (schema, reg) in all_registrations() {
        let fx = Fixture::new();
        let script = fx.script(reg);
        let status = Command::new("/bin/sh")
            .arg("-c")
            .arg("exec \"$0\" >&- </dev/null")
            .arg(&script)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap())
            .env("TERMIC_TASK_ID", TASK)
            .status()
            .unwrap();
        assert_eq!(status.code(), Some(0), "{} {}", schema.id(), reg.event);
    }
}

#[test]
fn a_large_payload_is_read_and_still_gives_the_right_answer() {
    // Several MB: the tool_name comes first, the tool_input is huge.
    let big = format!(
        r#"{{"tool_name":"AskUserQuestion","tool_input":{{"content":"{}"}}}}"#,
        "x".repeat(6 * 1024 * 1024)
    );
    let reg = registration(AgentSchema::CLAUDE, "PermissionRequest");
    let (run, got) = speak(reg, &[], big.as_bytes());
    assert_eq!(got, expected(&reg.script, &[("kind", "question")]));
    assert!(
        run.elapsed < Duration::from_secs(5),
        "took {:?}",
        run.elapsed
    );
    // The Stop payload: background_tasks after a multi-MB last message.
    let big_stop = format!(
        r#"{{"last_assistant_message":"{}","background_tasks":[{{"id":"b"}}]}}"#,
        "y".repeat(5 * 1024 * 1024)
    );
    let stop = registration(AgentSchema::CLAUDE, "Stop");
    let (run, got) = speak(stop, &[], big_stop.as_bytes());
    let cut = "y".repeat(termic_signal::wire::MAX_TEXT_LEN);
    assert_eq!(
        got,
        expected(&stop.script, &[("background", "1"), ("message", &cut)])
    );
    assert!(
        run.elapsed < Duration::from_secs(5),
        "took {:?}",
        run.elapsed
    );
    // Scripts that ignore stdin still exit 0 when it is huge.
    for (_, reg) in all_registrations() {
        let (run, _) = speak(reg, &[], big.as_bytes());
        assert_eq!(run.code, Some(0));
    }
}

#[test]
fn stdin_that_never_closes_cannot_hold_a_script_past_its_bound() {
    let bound = Duration::from_secs(u64::from(PAYLOAD_MAX_SECONDS) + 3);
    // In parallel: each run waits out the bound.
    std::thread::scope(|s| {
        for (schema, reg) in all_registrations() {
            s.spawn(move || {
                let fx = Fixture::new();
                let script = fx.script(reg);
                let mut pty = Pty::open();
                let partial =
                    br#"{"tool_name":"ExitPlanMode","notificationType":"permission_prompt","#;
                let run = fx.run(
                    &script,
                    &[("TERMIC_TASK_ID", TASK)],
                    Stdin::NeverClosed(partial),
                    Some(&mut pty),
                );
                assert_eq!(run.code, Some(0));
                let took = run.elapsed;
                assert!(took < bound, "{} {} took {took:?}", schema.id(), reg.event);
                // A payload cut off by the bound is dropped (head's buffer dies
                // with it), so the script answers with its default.
                if (schema.id(), reg.event) == ("claude", "PermissionRequest") {
                    assert_eq!(run.stdout, expected(&reg.script, &[("kind", "permission")]));
                }
            });
        }
    });
}

#[test]
fn every_script_file_is_plain_ascii_with_the_generated_header() {
    for (schema, reg) in all_registrations() {
        let text = reg.script.render();
        assert!(text.starts_with("#!/bin/sh\n# termic agent hook, generated by termic "));
        assert!(text.contains("Safe to delete"));
        assert!(text.contains(env!("CARGO_PKG_VERSION")));
        assert!(text.is_ascii() && !text.bytes().any(|b| b < 0x20 && b != b'\n'));
        assert!(!text.contains("/dev/tty"), "{} {}", schema.id(), reg.event);
        assert!(!text.contains("curl") && !text.contains("wget"));
        // Every path ends in exit 0.
        assert!(text.ends_with("exit 0\n"));
        assert!(!text.contains("exit 1") && !text.contains("exit 2"));
    }
}

/// Pids of every process in session `sid` (field 6 of /proc/PID/stat).
fn session_members(sid: u32) -> Vec<(u32, String)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // comm is in parentheses and may hold spaces: split after the last ')'.
        let Some((head, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        // rest: state ppid pgrp session ...
        if fields.get(3).and_then(|s| s.parse::<u32>().ok()) == Some(sid) {
            let comm = head.split_once('(').map_or("", |(_, c)| c).to_string();
            out.push((pid, comm));
        }
    }
    out
}

/// Runs `script` as the leader of a new session (so every helper it starts
/// is findable by session id) and returns its exit code, how long it took,
/// and every process of its session still present right after it exited.
fn run_in_new_session(
    script: &Path,
    pty: &Pty,
    stdin_open: Option<&[u8]>,
) -> (Option<i32>, Duration, Vec<(u32, String)>) {
    use std::os::unix::process::CommandExt;
    let mut cmd = Command::new(script);
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap())
        .env("TERMIC_TASK_ID", TASK)
        .env("TERMIC_PTY", &pty.slave_path)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // SAFETY: setsid is async-signal-safe; nothing else runs in the child.
    unsafe {
        cmd.pre_exec(|| {
            libc::setsid();
            Ok(())
        });
    }
    let start = Instant::now();
    let mut child = loop {
        match cmd.spawn() {
            Err(e) if matches!(e.raw_os_error(), Some(libc::ETXTBSY | libc::EAGAIN)) => {
                std::thread::sleep(Duration::from_millis(10))
            }
            other => break other.unwrap(),
        }
    };
    let sid = child.id();
    let mut input = child.stdin.take().unwrap();
    let keep = match stdin_open {
        Some(bytes) => {
            let _ = input.write_all(bytes);
            Some(input)
        }
        None => {
            let _ =
                input.write_all(br#"{"tool_name":"Bash","notificationType":"permission_prompt"}"#);
            drop(input);
            None
        }
    };
    // Bounded wait, so a blocked script fails the test instead of hanging it.
    let code = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status.code();
        }
        if start.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let took = start.elapsed();
    // The leader is reaped; anything left in its session outlived it.
    let left = session_members(sid);
    drop(keep);
    for (pid, _) in &left {
        // SAFETY: plain kill of a pid we found in our own test session.
        unsafe { libc::kill(*pid as i32, libc::SIGKILL) };
    }
    (code, took, left)
}

#[test]
fn on_a_full_pty_every_pty_script_exits_0_within_its_bound_and_leaves_no_process() {
    // The 100 ms write bound, plus fork/exec slack on a loaded 2-core box.
    let bound = Duration::from_millis(1500);
    let mut worst = Duration::ZERO;
    for (schema, reg) in all_registrations() {
        if reg.script.transport != Transport::PtyByName {
            continue;
        }
        let fx = Fixture::new();
        let script = fx.script(reg);
        let mut pty = Pty::open();
        assert!(pty.fill() > 0, "the pty took no bytes");
        let (code, took, left) = run_in_new_session(&script, &pty, None);
        let name = format!("{} {}", schema.id(), reg.event);
        assert_eq!(code, Some(0), "{name} on a full pty");
        assert!(took < bound, "{name} took {took:?} on a full pty");
        assert!(left.is_empty(), "{name} left {left:?} behind");
        worst = worst.max(took);
        // The pty still works once read: the filler, maybe a cut message.
        assert!(!pty.drain().is_empty());
    }
    eprintln!("worst full-pty run: {worst:?}");
}

#[test]
fn no_script_leaves_a_process_behind_with_a_closed_or_a_never_closed_stdin() {
    for (schema, reg) in all_registrations() {
        let fx = Fixture::new();
        let script = fx.script(reg);
        let mut pty = Pty::open();
        let name = format!("{} {}", schema.id(), reg.event);
        let (code, took, left) = run_in_new_session(&script, &pty, None);
        assert_eq!(code, Some(0), "{name}");
        assert!(left.is_empty(), "{name} left {left:?} behind ({took:?})");
        let (code, took, left) = run_in_new_session(&script, &pty, Some(b"{"));
        assert_eq!(code, Some(0), "{name} with stdin never closed");
        assert!(
            took < Duration::from_secs(u64::from(PAYLOAD_MAX_SECONDS) + 3),
            "{name} took {took:?}"
        );
        assert!(
            left.is_empty(),
            "{name} with stdin never closed left {left:?}"
        );
        pty.drain();
    }
}

/// Claude's UserPromptSubmit, PermissionRequest and Stop carry the
/// conversation id (`session=`, the payload's top-level `session_id`) so a
/// restore can resume it; a missing, nested-only or unsafe id is left out.
#[test]
fn claude_scripts_carry_the_session_id_from_the_payload() {
    let sid = "3f0c1e2a-77b2-4c1d-9d2e-0a1b2c3d4e5f";
    for (event, fixed) in [
        ("UserPromptSubmit", &[][..]),
        ("PermissionRequest", &[("kind", "permission")][..]),
        ("Stop", &[][..]),
    ] {
        let reg = registration(AgentSchema::CLAUDE, event);
        let payload = format!(
            r#"{{"session_id":"{sid}","transcript_path":"/t.jsonl","tool_name":"Write","prompt":"say \"session_id\": \"evil\""}}"#
        );
        let (_, got) = speak(reg, &[], payload.as_bytes());
        let mut extra = fixed.to_vec();
        extra.push(("session", sid));
        assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(&expected(&reg.script, &extra)),
            "{event}"
        );
        for unsafe_payload in [
            r#"{"prompt":"x"}"#,
            r#"{"session_id":"-rf"}"#,
            r#"{"session_id":"a;b"}"#,
            r#"{"session_id":"a b"}"#,
        ] {
            let (_, got) = speak(reg, &[], unsafe_payload.as_bytes());
            assert_eq!(
                got,
                expected(&reg.script, fixed),
                "{event} {unsafe_payload}"
            );
        }
        let long = format!(r#"{{"session_id":"{}"}}"#, "a".repeat(129));
        let (_, got) = speak(reg, &[], long.as_bytes());
        assert_eq!(got, expected(&reg.script, fixed), "{event} long");
    }
}

/// Gemini CLI and Qwen Code (`session_id`), Copilot CLI and Grok
/// (`sessionId`): their turn-start and turn-end scripts send the payload's
/// conversation id as `session=` (2026-12-06, issue 31: a restore resumes
/// that conversation), and nothing for one the wire refuses.
#[test]
fn the_other_agents_turn_scripts_carry_the_session_id_from_the_payload() {
    let sid = "6e1c0b7a-3d2f-4e5a-9b8c-7d6e5f4a3b2c";
    for (schema, key, events) in [
        (
            AgentSchema::GEMINI,
            "session_id",
            ["BeforeAgent", "AfterAgent"],
        ),
        (
            AgentSchema::QWEN,
            "session_id",
            ["UserPromptSubmit", "Stop"],
        ),
        (
            AgentSchema::COPILOT,
            "sessionId",
            ["userPromptSubmitted", "agentStop"],
        ),
        (AgentSchema::GROK, "sessionId", ["UserPromptSubmit", "Stop"]),
    ] {
        for event in events {
            let reg = registration(schema, event);
            let payload =
                format!(r#"{{"{key}":"{sid}","cwd":"/p","prompt":"say \"{key}\": \"evil\""}}"#);
            let (_, got) = speak(reg, &[], payload.as_bytes());
            assert_eq!(
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&expected(&reg.script, &[("session", sid)])),
                "{} {event}",
                schema.id()
            );
            for refused in ["-rf", "a;b", "a b", &"a".repeat(129)] {
                let payload = format!(r#"{{"{key}":"{refused}"}}"#);
                let (_, got) = speak(reg, &[], payload.as_bytes());
                assert_eq!(
                    got,
                    expected(&reg.script, &[]),
                    "{} {event} {refused}",
                    schema.id()
                );
            }
            let (_, got) = speak(reg, &[], br#"{"prompt":"x"}"#);
            assert_eq!(got, expected(&reg.script, &[]), "{} {event}", schema.id());
        }
    }
}

/// A script, its payload's key of the last message, and the fields it
/// sends before it for an empty payload.
type LastMessageScript = (
    &'static HookRegistration,
    &'static str,
    &'static [(&'static str, &'static str)],
);

/// The end-of-turn scripts whose payload carries the turn's last message
/// (measured 2026-12-06: Claude Code's and Qwen Code's
/// `last_assistant_message`, Gemini CLI's `prompt_response`, Grok's
/// `lastAssistantMessage`; Copilot CLI's agentStop and opencode's idle
/// carry none), with the fields each sends before it for an empty payload.
fn last_message_scripts() -> Vec<LastMessageScript> {
    vec![
        (
            registration(AgentSchema::CLAUDE, "Stop"),
            "last_assistant_message",
            &[],
        ),
        (
            registration(AgentSchema::CLAUDE, "StopFailure"),
            "last_assistant_message",
            &[("reason", "api_error")],
        ),
        (
            registration(AgentSchema::GEMINI, "AfterAgent"),
            "prompt_response",
            &[],
        ),
        (
            registration(AgentSchema::QWEN, "Stop"),
            "last_assistant_message",
            &[],
        ),
        (
            registration(AgentSchema::GROK, "Stop"),
            "lastAssistantMessage",
            &[],
        ),
    ]
}

/// Issue 31 item 3: the last message rides the wire's one free-text
/// field, `message=`, as `wire::encode_text` would write it: hostile
/// payloads (quotes, backslashes, `;`, newlines, ESC as a JSON escape and
/// as a raw byte, C1, 4 KB of text cut on a character boundary or before
/// a split escape, invalid UTF-8) never break the message, and what is
/// not a top-level string key sends nothing.
#[test]
fn end_of_turn_scripts_carry_the_last_message_cleaned_escaped_and_cut() {
    let long_e = "\u{e9}".repeat(2000);
    let odd_e = format!("a{long_e}");
    let emoji = format!("ab{}", "\u{1f600}".repeat(1000));
    let semis = format!("a{}", ";".repeat(1000));
    // (the JSON string's body as the payload has it, the text it means)
    let cases: Vec<(String, String)> = vec![
        ("The answer is 42.".into(), "The answer is 42.".into()),
        (
            r#"say \"hi\" to C:\\dir; 100% %3B \/x"#.into(),
            r#"say "hi" to C:\dir; 100% %3B /x"#.into(),
        ),
        (r"line1\nline2\r\n\tx".into(), "line1 line2   x".into()),
        (r"a\u001b]0;pwned\u0007b\u007f".into(), "a]0;pwnedb".into()),
        ("a\x1b[2J\x07b".into(), "a[2Jb".into()),
        ("a\u{9c}b\u{85}c".into(), "abc".into()),
        (r"caf\u00e9 \\u001b".into(), r"caf? \u001b".into()),
        (long_e.clone(), long_e),
        (odd_e.clone(), odd_e),
        (emoji.clone(), emoji),
        (semis.clone(), semis),
    ];
    for (reg, key, fixed) in last_message_scripts() {
        for (body, text) in &cases {
            let payload = format!(r#"{{"hook_event_name":"x","{key}":"{body}","cwd":"/p"}}"#);
            let (_, got) = speak(reg, &[], payload.as_bytes());
            let value = wire::encode_text(text);
            assert!(value.len() <= wire::MAX_TEXT_LEN);
            let mut extra = fixed.to_vec();
            extra.push(("message", &value));
            assert_eq!(
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&expected(&reg.script, &extra)),
                "{} {key} {body:?}",
                reg.event
            );
        }
        // Invalid UTF-8 passes as bytes (the reader decodes it lossily);
        // the message still parses and ends where it should.
        let mut payload = format!(r#"{{"{key}":"x"#).into_bytes();
        payload.extend_from_slice(b"\xff\xfe;y\"}");
        let (run, got) = speak(reg, &[], &payload);
        assert_eq!(run.code, Some(0));
        let at = got
            .windows(8)
            .position(|w| w == b"message=")
            .expect("a message field");
        assert!(got[at..].starts_with(b"message=x\xff\xfe%3By"), "{got:?}");
        // Nothing to say: empty, missing, nested in another string, not a string.
        for payload in [
            format!(r#"{{"{key}":""}}"#),
            r#"{"prompt":"x"}"#.to_string(),
            format!(r#"{{"prompt":"say \"{key}\": \"evil\""}}"#),
            format!(r#"{{"{key}":null}}"#),
            String::new(),
        ] {
            let (_, got) = speak(reg, &[], payload.as_bytes());
            assert_eq!(
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&expected(&reg.script, fixed)),
                "{} {payload}",
                reg.event
            );
        }
    }
}
