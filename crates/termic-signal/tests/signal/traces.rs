//! The trace corpus: every measured case of the plan's appendix and of the
//! real-agent measurements, as a scripted timeline with its expected
//! transitions (tests/traces/*.trace; format in tests/common/script.rs), plus
//! asciicast recordings replayed through `replay` (*.cast with a sibling
//! *.expect holding `expect` lines).

use crate::common;

use std::path::{Path, PathBuf};

use common::script;
use termic_signal::replay::{read_recording_file, replay_recording, ReplayOptions};

fn corpus(ext: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/traces");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    files.sort();
    files
}

#[test]
fn every_trace_gives_its_expected_transitions() {
    let traces = corpus("trace");
    assert!(traces.len() >= 20, "corpus shrank: {}", traces.len());
    for path in traces {
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy();
        assert!(text.contains("\nexpect "), "{name} expects nothing");
        script::check(&name, &text);
    }
}

/// Every reason and Inspector line the corpus produces writes lengths of
/// time the way the log's time column does (seconds: "5s", "0.3s", "1m30s"),
/// never as raw milliseconds or as a deadline on the caller's clock.
#[test]
fn reasons_and_log_lines_write_times_as_seconds() {
    let mut lines = Vec::new();
    for path in corpus("trace") {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let mut outcome = script::run(&script::parse(&std::fs::read_to_string(&path).unwrap()));
        lines.extend(
            outcome
                .transitions
                .iter()
                .map(|t| (name.clone(), t.reason.to_string())),
        );
        lines.extend(
            outcome
                .engine
                .drain_log()
                .into_iter()
                .map(|e| (name.clone(), e.text)),
        );
    }
    for path in corpus("cast") {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let outcome = replay_recording(
            &read_recording_file(&path).unwrap(),
            &ReplayOptions::default(),
        );
        lines.extend(outcome.log.into_iter().map(|e| (name.clone(), e.text)));
    }
    let timed: Vec<_> = lines
        .iter()
        .filter(|(_, l)| l.contains("armed") || l.contains(" for ") || l.contains(" later"))
        .collect();
    assert!(
        timed.len() > 50,
        "the corpus logs too few timed lines: {}",
        timed.len()
    );
    assert!(
        timed.iter().any(|(_, l)| l.ends_with("armed, fires in 5s")),
        "no settle arming in the corpus"
    );
    for (name, line) in &lines {
        let words: Vec<&str> = line.split(' ').collect();
        let raw_ms = words.windows(2).any(|w| {
            w[1].trim_end_matches([',', ';', ')']) == "ms"
                && w[0].chars().all(|c| c.is_ascii_digit())
        });
        assert!(!raw_ms, "{name}: raw milliseconds in {line:?}");
        assert!(
            !line.contains("due at"),
            "{name}: a deadline on the caller's clock in {line:?}"
        );
    }
}

#[test]
fn every_recording_replays_to_its_expected_transitions() {
    let casts = corpus("cast");
    assert!(!casts.is_empty());
    for path in casts {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let expect = std::fs::read_to_string(path.with_extension("expect"))
            .unwrap_or_else(|_| panic!("{name} has no .expect file"));
        let wanted = script::parse(&expect).expected;
        assert!(!wanted.is_empty(), "{name}: .expect lists nothing");
        let recording = read_recording_file(&path).unwrap();
        let outcome = replay_recording(&recording, &ReplayOptions::default());
        let actual: Vec<_> = outcome
            .transitions
            .iter()
            .map(|t| (t.at, t.from, t.to, t.reason.rule))
            .collect();
        let wanted: Vec<_> = wanted
            .iter()
            .map(|e| (e.at, e.from, e.to, e.rule))
            .collect();
        assert_eq!(actual, wanted, "{name}");
    }
}

#[test]
fn a_foreign_hook_message_in_a_recording_is_logged_not_obeyed() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/traces/claude-permission-hooks.cast");
    let outcome = replay_recording(
        &read_recording_file(&path).unwrap(),
        &ReplayOptions::default(),
    );
    assert!(outcome
        .log
        .iter()
        .any(|e| e.text.contains("\"someone-else\"") && e.text.contains("not obeyed")));
}

#[test]
fn a_recording_written_by_the_writer_replays_identically_to_live_feeding() {
    use termic_signal::engine::{Engine, EngineConfig, Key};
    use termic_signal::replay::{Marker, RecordingHeader, RecordingWriter, TaskFacts};

    let header = RecordingHeader {
        width: 80,
        height: 24,
        timestamp: None,
        termic: TaskFacts {
            agent: "codex".into(),
            task_id: "t-1".into(),
            hooks_wired: false,
        },
    };
    let start = 5_000_000; // the caller's monotonic clock at time zero
    let status = |s: &str| format!("\x1b]7501;state={s}:app=codex\x1b\\");
    let steps: Vec<(u64, &str, Vec<u8>)> = vec![
        (0, "m", b"focus".to_vec()),
        (0, "o", status("idle").into_bytes()),
        (1000, "i", b"go\r".to_vec()),
        (1020, "o", status("working").into_bytes()),
        // a multi-byte title split across two reads
        (1030, "o", b"\x1b]0;\xe2\xa0".to_vec()),
        (1031, "o", b"\x8b x | proj\x07".to_vec()),
        (1090, "o", status("blocked").into_bytes()),
        (6000, "i", b"y".to_vec()),
        (6040, "o", status("working").into_bytes()),
        (8000, "i", b"\x1b".to_vec()),
        (8040, "o", status("idle").into_bytes()),
        (9000, "m", b"exit".to_vec()),
    ];
    let mut live = Engine::new(EngineConfig::new("codex", "t-1", false));
    let mut live_out = Vec::new();
    let mut writer = RecordingWriter::new(Vec::new(), &header, start).unwrap();
    for (at, code, bytes) in &steps {
        let now = start + at;
        match *code {
            "o" => {
                writer.output(now, bytes).unwrap();
                live_out.extend(live.feed_output(*at, bytes));
            }
            "i" => {
                writer.input(now, bytes).unwrap();
                for key in Key::from_input_bytes(bytes) {
                    live_out.extend(live.key(*at, key));
                }
            }
            _ if bytes == b"focus" => {
                writer.marker(now, &Marker::Focus(true)).unwrap();
                live.focus(*at, true);
            }
            _ => {
                writer.marker(now, &Marker::Exit(Some(0))).unwrap();
                live_out.extend(live.exited(*at, Some(0)));
            }
        }
    }
    let bytes = writer.into_inner();
    let recording = termic_signal::replay::read_recording(&bytes[..], "mem").unwrap();
    assert_eq!(recording.header, header);
    let replayed = replay_recording(&recording, &ReplayOptions::default()).transitions;
    assert_eq!(replayed, live_out);
    let rules: Vec<_> = replayed.iter().map(|t| t.reason.rule.as_str()).collect();
    assert_eq!(
        rules,
        [
            "native_working",
            "native_blocked",
            "native_working",
            "native_idle",
            "exit"
        ]
    );
}

#[test]
fn replay_errors_name_the_source_and_line() {
    use termic_signal::replay::read_recording;
    let cases = [
        ("", "empty"),
        ("{\"version\":1}\n", ":1: asciicast version 1"),
        (
            "{\"version\":2}\n[0.5, \"o\", \"x\"]\nnot json\n",
            ":3: event is not",
        ),
        ("{\"version\":2}\n[0.5, \"r\", \"80by24\"]\n", ":2: resize"),
        ("{\"version\":2}\n[-1, \"o\", \"x\"]\n", ":2: event time"),
        (
            "{\"version\":2}\n[1, \"m\", \"termic:focus=yes\"]\n",
            ":2: marker",
        ),
    ];
    for (text, wanted) in cases {
        let err = read_recording(text.as_bytes(), "rec.cast").unwrap_err();
        let shown = err.to_string();
        assert!(shown.starts_with("rec.cast"), "{shown}");
        assert!(shown.contains(wanted), "{shown} should contain {wanted}");
    }
}

#[test]
fn unknown_events_and_foreign_markers_are_skipped() {
    let text = "{\"version\":2,\"width\":80,\"height\":24}\n\
                [0.1, \"x\", \"future event\"]\n\
                [0.2, \"m\", \"chapter 1\"]\n\
                [0.3, \"m\", \"termic:newfact=1\"]\n\
                [0.4, \"o\", \"hello\"]\n";
    let rec = termic_signal::replay::read_recording(text.as_bytes(), "x").unwrap();
    assert_eq!(rec.header.termic.agent, "generic");
    assert_eq!(rec.events.len(), 1);
    assert_eq!(rec.events[0].0, 400);
}

/// A replay never runs timers past the instant the recording was closed, and
/// a recording that was cut off (no `termic:end`) stops at its last event
/// unless a tail is asked for: it must not invent a state that never
/// happened live (a killed termic's recording once showed a needs-you 13 s
/// after its end).
#[test]
fn timers_stop_at_the_end_marker_or_at_the_last_event_of_a_cut_off_recording() {
    use termic_signal::replay::{Marker, RecordedEvent};
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/traces/agy-escape-no-hooks.cast");
    let whole = read_recording_file(&path).unwrap();
    let states = |options: &ReplayOptions, recording| {
        let outcome = replay_recording(recording, options);
        let to: Vec<_> = outcome.transitions.iter().map(|t| (t.at, t.to)).collect();
        (to, outcome.cut_off)
    };
    let quiet_interrupt = (23_200, termic_signal::engine::State::Interrupted);

    let (to, cut_off) = states(&ReplayOptions::default(), &whole);
    assert!(!cut_off);
    assert_eq!(
        to.last(),
        Some(&quiet_interrupt),
        "closed at 30 s: the 23.2 s timer fired live"
    );

    let mut early = whole.clone();
    for (at, event) in &mut early.events {
        if *event == RecordedEvent::Marker(Marker::End) {
            *at = 20_000;
        }
    }
    let (to, _) = states(&ReplayOptions::default(), &early);
    assert!(
        !to.contains(&quiet_interrupt),
        "closed at 20 s: nothing fires after it"
    );

    let mut cut = whole.clone();
    cut.events
        .retain(|(_, e)| *e != RecordedEvent::Marker(Marker::End));
    let (to, cut_off) = states(&ReplayOptions::default(), &cut);
    assert!(cut_off);
    assert!(
        !to.contains(&quiet_interrupt),
        "cut off at 8.3 s: timers stop there"
    );

    let tail = ReplayOptions {
        tail_ms: Some(60_000),
        ..ReplayOptions::default()
    };
    let (to, _) = states(&tail, &cut);
    assert_eq!(
        to.last(),
        Some(&quiet_interrupt),
        "an explicit tail runs them on"
    );
}

/// Claude Code's native status counts only after termic answered its probe,
/// so a recording must carry that fact or its replay would ignore every
/// report the live engine obeyed.
#[test]
fn a_recorded_probe_answer_makes_the_replay_obey_native_status_as_live() {
    use termic_signal::engine::State;
    use termic_signal::replay::{
        read_recording, Marker, RecordingHeader, RecordingWriter, TaskFacts,
    };
    let record = |answered: bool| {
        let header = RecordingHeader {
            width: 80,
            height: 24,
            timestamp: None,
            termic: TaskFacts {
                agent: "claude".into(),
                task_id: "t1".into(),
                hooks_wired: false,
            },
        };
        let mut w = RecordingWriter::new(Vec::new(), &header, 0).unwrap();
        w.output(100, b"\x1b]7501;?\x1b\\").unwrap();
        if answered {
            w.marker(110, &Marker::ProbeAnswered).unwrap();
        }
        w.input(1_000, b"\r").unwrap();
        w.output(1_200, b"\x1b]7501;state=working:app=claude-code\x1b\\")
            .unwrap();
        w.output(
            2_000,
            b"\x1b]7501;state=blocked:app=claude-code:kind=permission\x1b\\",
        )
        .unwrap();
        w.marker(3_000, &Marker::End).unwrap();
        let bytes = w.into_inner();
        let recording = read_recording(bytes.as_slice(), "mem").unwrap();
        replay_recording(&recording, &ReplayOptions::default())
            .transitions
            .iter()
            .map(|t| (t.to, t.reason.rule))
            .collect::<Vec<_>>()
    };
    let answered = record(true);
    assert!(
        answered.contains(&(State::NeedsYou, termic_signal::engine::Rule::NativeBlocked)),
        "{answered:?}"
    );
    let unanswered = record(false);
    assert!(
        !unanswered
            .iter()
            .any(|(_, rule)| *rule == termic_signal::engine::Rule::NativeBlocked),
        "{unanswered:?}"
    );
}
