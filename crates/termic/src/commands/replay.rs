//! `termic replay FILE`: run a recording through the state engine offline and
//! print what the badge would have said, when, and why.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use serde_json::json;
use termic_runtime::replay_screen::ReplayScreen;
use termic_signal::engine::{LogEntry, Transition};
use termic_signal::profile::PROFILES;
use termic_signal::replay::{
    read_recording_file, replay_recording_with, ReplayOptions, ReplayOutcome, TaskFacts,
};

use crate::printed::{self, errln};

/// Replay a recording through the state engine and print the transitions.
///
/// Reads an asciicast v2 file and runs it offline through the same state
/// engine and screen model the workspace uses, so you can see when and why
/// a badge changed (working, needs you, done). Nothing is run. A recording
/// made with asciinema works too: say which agent it shows with --agent.
///
/// Examples:
///   termic --record ~/casts run claude        record, then
///   termic replay ~/casts/claude-1.cast
///   termic replay session.cast --json | jq .reason
///   termic replay session.cast --log
///   asciinema rec -c claude claude.cast       record without termic, then
///   termic replay claude.cast --agent claude
///
/// A recording cut short (termic killed, or a full disk stopped it) is
/// replayed up to its last whole frame, with a note on stderr saying where
/// it ends.
///
/// Exit codes: 0 replayed (a cut recording too), 1 error (the file cannot
/// be read or is not an asciicast v2 recording), 2 usage.
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct ReplayArgs {
    /// An asciicast v2 recording (`termic --record DIR`, or asciinema's).
    pub file: PathBuf,
    /// The agent the recording shows (claude, codex, ...), for a recording
    /// that does not say (asciinema's). Overrides the one it names.
    #[arg(long, value_name = "AGENT")]
    pub agent: Option<String>,
    /// Print one JSON object per transition instead of a table (`at` in
    /// milliseconds since the recording started).
    #[arg(long)]
    pub json: bool,
    /// Print the whole Inspector timeline (signals, keys, timers), not only transitions.
    #[arg(long, conflicts_with = "json")]
    pub log: bool,
    /// Keep timers running this many milliseconds after the last event. By
    /// default they run up to the moment the recording was closed, and a
    /// recording that was cut off (termic killed) stops at its last event.
    #[arg(long, value_name = "MS")]
    pub tail_ms: Option<u64>,
}

pub fn run(args: ReplayArgs) -> Result<ExitCode> {
    let mut recording = read_recording_file(&args.file).with_context(|| {
        format!(
            "cannot replay {}: termic replay reads asciicast v2 files (`termic --record DIR` or asciinema)",
            args.file.display()
        )
    })?;
    // Read before --agent changes the header.
    let by_termic = recording.header.termic != TaskFacts::default() || recording.has_screen_facts();
    if let Some(agent) = &args.agent {
        let Some(profile) = PROFILES
            .iter()
            .find(|p| p.id == agent.as_str() || p.aliases.contains(&agent.as_str()))
        else {
            let known: Vec<&str> = PROFILES.iter().map(|p| p.id).collect();
            errln!(
                "error: unknown agent {}: expected one of {}",
                agent,
                known.join(", ")
            );
            return Ok(ExitCode::from(2));
        };
        recording.header.termic.agent = profile.id.to_string();
    }
    let options = ReplayOptions {
        tail_ms: args.tail_ms,
        ..ReplayOptions::default()
    };
    // The live task's screen model, for a recording that carries no screen
    // facts of its own (asciinema's): its screen rules then act as live.
    let mut screen = ReplayScreen::new(recording.header.width, recording.header.height);
    let outcome = replay_recording_with(&recording, &options, Some(&mut screen));
    if let Some(note) = cut_note(&args.file, &outcome, args.tail_ms.is_some(), by_termic) {
        errln!("{note}");
    }
    // Written whole, through the cleaner: a recording's text (titles,
    // messages, hook fields) is data, not terminal control.
    let mut out = Vec::new();
    if args.json {
        for t in &outcome.transitions {
            writeln!(out, "{}", printed::json_line(&json_line(t))?)?;
        }
    } else if args.log {
        write_log(&mut out, &outcome.log)?;
    } else {
        write_table(&mut out, &outcome.transitions)?;
    }
    // `termic replay x | head` closing the pipe is not an error.
    printed::write_stdout(&String::from_utf8_lossy(&out))
        .context("cannot write to standard output")?;
    Ok(ExitCode::SUCCESS)
}

/// What to say about a recording that was not closed: where it was cut
/// (a torn last frame) or where it ends (no end marker), and that timers
/// stop at its last event unless `--tail-ms` was given. A recording termic
/// did not make (asciinema's: `by_termic` false) never has the marker.
fn cut_note(file: &Path, outcome: &ReplayOutcome, tail: bool, by_termic: bool) -> Option<String> {
    let timers = if tail {
        ""
    } else {
        " Timers stop at its last event; pass --tail-ms MS to run them on."
    };
    if let Some(cut) = outcome.cut {
        return Some(format!(
            "note: recording cut at line {} (byte {}): replayed what came before. \
             Its last frame was never finished (the disk filled up, or termic was killed).{timers}",
            cut.line, cut.byte
        ));
    }
    if !outcome.cut_off || tail {
        return None;
    }
    let end = outcome.ends_at;
    if !by_termic {
        return Some(format!(
            "note: {} was not recorded by termic, so it ends at its last event.{timers}",
            file.display()
        ));
    }
    Some(format!(
        "note: {} has no end marker: termic did not close it (it was killed, or the disk \
         filled up), so it ends at line {} (byte {}).{timers}",
        file.display(),
        end.line,
        end.byte
    ))
}

fn seconds(ms: u64) -> String {
    format!("{}.{:03}", ms / 1000, ms % 1000)
}

fn write_log(out: &mut impl Write, log: &[LogEntry]) -> std::io::Result<()> {
    writeln!(out, "{:>10}  {:<10}  entry", "at (s)", "kind")?;
    for e in log {
        writeln!(
            out,
            "{:>10}  {:<10}  {}",
            seconds(e.at),
            e.kind.as_str(),
            e.text
        )?;
    }
    Ok(())
}

fn json_line(t: &Transition) -> serde_json::Value {
    let mut line = json!({
        "at": t.at,
        "from": t.from.as_str(),
        "to": t.to.as_str(),
        "rule": t.reason.rule.as_str(),
        "reason": t.reason.to_string(),
    });
    if let Some(a) = &t.attention {
        line["attention"] = json!({ "kind": a.kind, "message": a.message });
    }
    line
}

fn write_table(out: &mut impl Write, transitions: &[Transition]) -> std::io::Result<()> {
    if transitions.is_empty() {
        return writeln!(out, "no transitions: the task stayed idle");
    }
    writeln!(
        out,
        "{:>10}  {:<11}  {:<11}  reason",
        "at (s)", "from", "to"
    )?;
    for t in transitions {
        let mut reason = t.reason.to_string();
        if let Some(message) = t.attention.as_ref().and_then(|a| a.message.as_ref()) {
            reason.push_str(&format!(" [{message}]"));
        }
        writeln!(
            out,
            "{:>10}  {:<11}  {:<11}  {reason}",
            seconds(t.at),
            t.from.as_str(),
            t.to.as_str()
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use termic_signal::engine::{Attention, Reason, Rule, State};

    fn needs_you() -> Transition {
        Transition {
            at: 30_807,
            from: State::Working,
            to: State::NeedsYou,
            reason: Reason {
                rule: Rule::NativeBlocked,
                detail: "blocked kind=permission".into(),
            },
            attention: Some(Attention::new(
                "permission",
                Some("approve Write: a.rs".into()),
            )),
        }
    }

    #[test]
    fn table_shows_seconds_states_reason_and_the_prompt_text() {
        let mut out = Vec::new();
        write_table(&mut out, &[needs_you()]).unwrap();
        let text = String::from_utf8(out).unwrap();
        let row = text.lines().nth(1).unwrap();
        assert_eq!(
            row,
            "    30.807  working      needs_you    native: blocked kind=permission [approve Write: a.rs]"
        );
        let mut empty = Vec::new();
        write_table(&mut empty, &[]).unwrap();
        assert!(String::from_utf8(empty)
            .unwrap()
            .starts_with("no transitions"));
    }

    #[test]
    fn the_log_has_a_header_and_seconds_in_its_time_column() {
        use termic_signal::engine::{Engine, EngineConfig, Key};
        let mut engine = Engine::new(EngineConfig::new("claude", "t1", false));
        engine.key(1_000, Key::Submit);
        engine.feed_output(1_040, "\x1b]0;\u{25d0} Claude Code\x07".as_bytes());
        engine.feed_output(2_500, "\x1b]0;\u{2733} Claude Code\x07".as_bytes());
        let mut out = Vec::new();
        write_log(&mut out, &engine.drain_log()).unwrap();
        let text = String::from_utf8(out).unwrap();
        let mut lines = text.lines();
        assert_eq!(lines.next().unwrap(), "    at (s)  kind        entry");
        assert!(
            text.lines()
                .any(|l| l == "     2.500  timer       settle armed, fires in 5s"),
            "{text}"
        );
    }

    #[test]
    fn json_lines_carry_at_from_to_reason_and_attention() {
        let line = json_line(&needs_you());
        assert_eq!(line["at"], 30_807);
        assert_eq!(line["from"], "working");
        assert_eq!(line["to"], "needs_you");
        assert_eq!(line["reason"], "native: blocked kind=permission");
        assert_eq!(line["attention"]["kind"], "permission");
    }
}
