//! The hostile-output corpus (tests/fixtures/hostile/queries) through real
//! tasks in real PTYs: printed queries, each with CR/LF/ESC/BEL/C1 bytes and
//! over-long payloads inside, never type a command into the task, and every
//! byte termic writes into the task's input is a reply of documented form.

use crate::reply_grammar;
use crate::runtime_support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use runtime_support::*;
use termic_runtime::TaskSpec;

const T: Duration = Duration::from_secs(10);

/// A query every file is followed by: its reply is the last one, so the
/// capturing child knows when to stop reading (no fixed read window).
const SENTINEL_QUERY: &str = r"\033[?31337$p";
const SENTINEL_REPLY: &[u8] = b"\x1b[?31337;0$y";

fn corpus() -> Vec<PathBuf> {
    corpus_in("queries")
}

/// The files of `tests/fixtures/hostile/<kind>`, sorted.
fn corpus_in(kind: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/hostile")
        .join(kind);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() >= 4, "corpus missing in {}", dir.display());
    files
}

fn in_dir(mut spec: TaskSpec, dir: &Path) -> TaskSpec {
    spec.cwd = dir.to_owned();
    spec
}

/// The exact bytes termic wrote into a raw-mode task after it printed `file`.
fn captured_replies(file: &Path) -> Vec<u8> {
    let scratch = tempfile::tempdir().unwrap();
    let (rt, events) = runtime();
    let script = format!(
        "stty raw -echo; cat '{file}'; printf '{SENTINEL_QUERY}'; \
         S=$(printf '\\033[?31337;0$y'); \
         while :; do dd bs=4096 count=1 2>/dev/null >> replies.bin; \
         grep -qF \"$S\" replies.bin && break; done",
        file = file.display()
    );
    let id = rt
        .spawn(in_dir(sh("capture", &script), scratch.path()))
        .unwrap();
    assert_eq!(
        wait_exit(&rt, &events, id, T),
        Some(0),
        "{}",
        file.display()
    );
    std::fs::read(scratch.path().join("replies.bin")).unwrap()
}

#[test]
fn every_reply_to_the_corpus_matches_its_grammar() {
    let _timing = crate::hostile::not_beside_the_timed();
    for file in corpus() {
        let bytes = captured_replies(&file);
        let replies = reply_grammar::check_all(&bytes)
            .unwrap_or_else(|e| panic!("{}: {e}\nall: {bytes:?}", file.display()));
        assert_eq!(replies.last().copied(), Some(SENTINEL_REPLY));
        let kinds: Vec<&str> = replies
            .iter()
            .map(|r| reply_grammar::check(r).unwrap())
            .collect();
        let name = file.file_name().unwrap().to_str().unwrap();
        let expected: &[&str] = match name {
            // Only the last, well-formed query is answered, without names.
            "xtgettcap.txt" => &["XTGETTCAP not valid"],
            // `CSI CR c` and `CSI 6 CR LF n` count for the same reason; the
            // C1 forms (0x9b) and the over-long CSI get nothing.
            "csi-reports.txt" => &[
                "DA1",
                "DA1",
                "DA1",
                "DA2",
                "DSR status",
                "cursor position",
                "cursor position",
                "cursor position",
            ],
            // A C0 byte inside a CSI executes and does not end it (as in
            // xterm and vte), so `CSI > CR q` is still XTVERSION.
            "csi-modes-version.txt" => &[
                "XTVERSION",
                "XTVERSION",
                "XTVERSION",
                "DECRPM",
                "DECRPM",
                "DECRPM",
                "DECRPM",
            ],
            // `OSC 10 ; ? ESC [` counts (an ESC ends an OSC, as in vte);
            // a CR or text inside, index 300, the over-long OSC and the C1
            // form get nothing.
            "osc-colours.txt" => &[
                "dynamic colour",
                "dynamic colour",
                "dynamic colour",
                "dynamic colour",
                "dynamic colour",
                "dynamic colour",
                "palette colour",
                "palette colour",
                "palette colour",
            ],
            // `?`, `?<text>` and `? ESC ]` are the probe (a fixed reply, no
            // echo); `CR ?` and the kitty queries get nothing.
            "osc-probes.txt" => &[
                "native status probe",
                "native status probe",
                "native status probe",
            ],
            other => panic!("add the expected replies for {other}"),
        };
        assert_eq!(&kinds[..kinds.len() - 1], expected, "{name}: {bytes:?}");
    }
}

/// Both corpora: the queries and the status sequences
/// (e2e_specs/hostile_status.rs checks the status files' transitions).
#[test]
fn catting_the_corpus_in_a_shell_runs_nothing() {
    let _timing = crate::hostile::not_beside_the_timed();
    for file in corpus().into_iter().chain(corpus_in("status")) {
        let scratch = tempfile::tempdir().unwrap();
        let (rt, _events) = runtime();
        let mut spec = in_dir(sh("shell", ""), scratch.path());
        spec.argv = vec!["sh".into(), "-i".into()];
        spec.env = vec![
            ("PS1".into(), "$ ".into()),
            ("ENV".into(), "/dev/null".into()),
            ("HOME".into(), scratch.path().into()),
        ];
        let id = rt.spawn(spec).unwrap();
        wait_screen(&rt, id, T, |s| s.contains("$ "));
        let cmd = format!("cat '{}'; printf '{SENTINEL_QUERY}'\r", file.display());
        rt.write_input(id, cmd.as_bytes()).unwrap();
        // The tty echoes what termic writes (ESC as ^[): once the sentinel's
        // reply shows, every reply before it is in the shell's input.
        // A marker means a reply ran a command: fail on that, not on a wait.
        let marker = scratch.path().join("marker");
        wait_screen(&rt, id, T, |s| {
            assert!(
                !marker.exists(),
                "{}: a reply ran a command",
                file.display()
            );
            s.contains("^[[?31337;0$y")
        });
        // Drop the replies typed at the prompt, then prove the shell works:
        // any line a reply had ended would have run before this one.
        rt.write_input(id, b"\x15echo ALIVE-$((6*7))\r").unwrap();
        wait_screen(&rt, id, T, |s| s.contains("ALIVE-42"));
        let left: Vec<_> = std::fs::read_dir(scratch.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert!(
            left.is_empty(),
            "{}: files appeared: {left:?}",
            file.display()
        );
        rt.kill(id).unwrap();
    }
}
