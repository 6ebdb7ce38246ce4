//! Command and shell tasks (rules/plain.rs): output and silence, OSC 133
//! marks, and the runtime switch to an agent's profile and back.

use termic_signal::engine::{Engine, EngineConfig, Rule, State};

use crate::common::script::check;

#[test]
fn a_command_is_working_while_it_prints_and_idle_after_forever() {
    check(
        "command output",
        "agent command
         horizon 3600000
         0 bytes hi\\r\\n
         +500 bytes more\\r\\n
         +10000 bytes again\\r\\n
         expect 0 idle -> working output_flowing
         expect 2500 working -> idle output_quiet
         expect 10500 idle -> working output_flowing
         expect 12500 working -> idle output_quiet",
    );
}

#[test]
fn a_command_obeys_no_printed_state() {
    // Titles, notifications, OSC 7501, OSC 133 and a termic hook message
    // with the right task id, all printed by a command: only output counts.
    check(
        "command ignores printed states",
        "agent command
         task t1
         horizon 600000
         0 bytes \\e]0;[ ! ] Action Required | x\\a
         +10 bytes \\e]9;Claude needs your permission\\a
         +10 bytes \\e]7501;state=done:app=codex\\e\\\\
         +10 bytes \\e]133;C\\a\\e]133;D;0\\a
         +10 bytes \\e]777;termic;v1;done;t1\\a
         +10 bytes x
         expect 50 idle -> working output_flowing
         expect 2050 working -> idle output_quiet",
    );
}

#[test]
fn a_shell_command_is_working_then_done_and_the_prompt_never_needs_you() {
    check(
        "shell marks",
        "agent shell
         horizon 7200000
         0 bytes \\e]133;A\\a$ \\e]133;B\\a
         +1000 key other
         +1 bytes s
         +1000 key enter
         +5 bytes \\r\\n\\e]133;C\\a
         +1000 bytes \\e]133;D;0\\a\\e]133;A\\a$ \\e]133;B\\a
         +5000 key enter
         +5 bytes \\r\\n\\e]133;D;0\\a\\e]133;A\\a$ \\e]133;B\\a
         expect 2006 idle -> working shell_command_start
         expect 3006 working -> done shell_command_end",
    );
}

/// The issue-35 REPL: `python3` typed at an integrated shell prints its
/// banner and `>>> `, then waits for input. Working while it prints, idle
/// once it is quiet for `output_quiet_ms` (the command still runs: no done),
/// and neither a resize's redraw nor the echo of typing makes it working.
/// Enter and an answer are work again; its exit is the `D`'s done.
#[test]
fn a_repl_at_its_prompt_in_a_shell_is_idle_and_a_resize_or_typing_does_not_wake_it() {
    check(
        "python3 at >>>",
        "agent shell
         horizon 7200000
         0 bytes \\e]133;A\\a$ \\e]133;B\\a
         +1000 key enter
         +5 bytes \\r\\n\\e]133;C\\a
         +30 bytes Python 3.12.3\\r\\n>>> 
         +60000 resize
         +20 bytes \\r\\e[K>>> 
         +30000 key other
         +2 bytes 1
         +300 key other
         +2 bytes +
         +300 key other
         +2 bytes 1
         +2000 key enter
         +3 bytes \\r\\n2\\r\\n>>> 
         +600000 resize
         +15 bytes \\r\\e[K>>> 
         +1000 key other
         +20 bytes \\r\\n\\e]133;D;0\\a\\e]133;A\\a$ \\e]133;B\\a
         expect 1005 idle -> working shell_command_start
         expect 3035 working -> idle output_quiet
         expect 93664 idle -> working output_flowing
         expect 95664 working -> idle output_quiet
         expect 694699 idle -> done shell_command_end",
    );
}

/// A command task (`termic run -- python3`, or a shell without
/// integration): the same, the quiet rule was already there; a resize's
/// redraw no longer flashes it working.
#[test]
fn a_resize_redraw_is_not_work_in_a_command_task() {
    check(
        "command resize",
        "agent command
         horizon 600000
         0 bytes >>> 
         +5000 resize
         +40 bytes \\r>>> 
         +2000 bytes late output is work again
         expect 0 idle -> working output_flowing
         expect 2000 working -> idle output_quiet
         expect 7040 idle -> working output_flowing
         expect 9040 working -> idle output_quiet",
    );
}

#[test]
fn a_shell_without_marks_reads_like_a_command() {
    check(
        "shell without integration",
        "agent shell
         horizon 600000
         0 bytes $ \\r\\n
         expect 0 idle -> working output_flowing
         expect 2000 working -> idle output_quiet",
    );
}

#[test]
fn a_prompt_without_d_ends_the_command() {
    check(
        "prompt after C",
        "agent shell
         0 bytes \\e]133;A\\a
         +10 bytes \\e]133;C\\a
         +10 bytes \\e]133;A\\a
         expect 10 idle -> working shell_command_start
         expect 20 working -> done shell_command_end",
    );
}

#[test]
fn the_exit_status_is_in_the_done() {
    let mut engine = Engine::new(EngineConfig::new("shell", "t1", false));
    engine.feed_output(0, b"\x1b]133;A\x07\x1b]133;C\x07");
    let out = engine.feed_output(50, b"\x1b]133;D;1\x07");
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].to, State::Done);
    assert_eq!(out[0].reason.rule, Rule::ShellCommandEnd);
    assert!(
        out[0].reason.detail.contains("status 1"),
        "{}",
        out[0].reason.detail
    );
}

#[test]
fn an_agent_in_the_foreground_gets_its_profile_and_hooks_then_the_shell_takes_back() {
    check(
        "claude in a shell",
        "agent shell
         task t1
         horizon 600000
         0 bytes \\e]133;A\\a$ \\e]133;B\\a
         +1000 key enter
         +5 bytes \\e]133;C\\a
         +20 bytes \\e]777;termic;v1;working;t1\\a
         +100 foreground claude wired
         +1000 key enter
         +10 bytes \\e]777;termic;v1;working;t1\\a
         +2000 bytes \\e]777;termic;v1;done;t1\\a
         +5000 key enter
         +300 foreground none
         +1 bytes \\e]133;D;0\\a\\e]133;A\\a$ \\e]133;B\\a
         +1000 bytes \\e]777;termic;v1;working;t1\\a
         expect 1005 idle -> working shell_command_start
         expect 1125 working -> idle profile_switch
         expect 2135 idle -> working hook_working
         expect 4135 working -> done hook_done",
    );
}

#[test]
fn the_shell_mark_after_the_agent_ends_reports_its_status() {
    let mut engine = Engine::new(EngineConfig::new("shell", "t1", false));
    engine.feed_output(0, b"\x1b]133;A\x07\x1b]133;C\x07");
    engine.set_foreground(10, Some("claude"), false);
    assert_eq!(engine.foreground_profile(), Some("claude"));
    assert_eq!(engine.state(), State::Idle);
    engine.set_foreground(20, None, false);
    assert_eq!(engine.foreground_profile(), None);
    assert_eq!(engine.profile_id(), "shell");
    // What the agent prints on its way out is not a command's new work.
    assert!(engine.feed_output(25, b"bye\r\n").is_empty());
    let out = engine.feed_output(30, b"\x1b]133;D;2\x07");
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0].to, State::Done);
    assert!(out[0].reason.detail.contains("status 2"));
    // The switch is in the Inspector timeline.
    let log: Vec<String> = engine.drain_log().iter().map(|e| e.text.clone()).collect();
    assert!(
        log.iter().any(|t| t.contains("profile shell -> claude")),
        "{log:?}"
    );
}
