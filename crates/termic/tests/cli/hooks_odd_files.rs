//! Odd files where a config should be (issue 11): a FIFO, a directory, a
//! link to /dev/zero, a 20 MiB file and a dangling link at each agent's
//! config path, at the manifest, at a hook script and at config.toml. The
//! real binary, against a fixture HOME: every command returns at once with
//! a message naming the path, and nothing is written.

use crate::cli_fixture;

use std::collections::BTreeMap;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use cli_fixture::{termic_command, text};
use std::time::{Duration, Instant};

/// What a hang would look like is "forever"; a debug binary under CI load
/// answers in milliseconds (the worst case seen is printed by the test).
const BOUND: Duration = Duration::from_secs(3);

#[derive(Clone, Copy, Debug)]
enum Odd {
    Fifo,
    Dir,
    DevZeroLink,
    Huge,
    Dangling,
}

const ODDS: [Odd; 5] = [
    Odd::Fifo,
    Odd::Dir,
    Odd::DevZeroLink,
    Odd::Huge,
    Odd::Dangling,
];

fn place(path: &Path, odd: Odd) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    match odd {
        Odd::Fifo => {
            let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
            assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        }
        Odd::Dir => std::fs::create_dir(path).unwrap(),
        Odd::DevZeroLink => std::os::unix::fs::symlink("/dev/zero", path).unwrap(),
        Odd::Huge => std::fs::write(path, vec![b' '; 20 << 20]).unwrap(),
        Odd::Dangling => std::os::unix::fs::symlink("nowhere/gone.json", path).unwrap(),
    }
}

/// Every entry under `root` by type, without opening anything that is not
/// a regular file (reading the FIFO or /dev/zero would hang the test).
fn tree(root: &Path) -> BTreeMap<PathBuf, String> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            let m = std::fs::symlink_metadata(&p).unwrap();
            let rel = p.strip_prefix(root).unwrap().to_path_buf();
            let t = m.file_type();
            let what = if t.is_symlink() {
                format!("link {}", std::fs::read_link(&p).unwrap().display())
            } else if t.is_dir() {
                walk(root, &p, out);
                "dir".into()
            } else if t.is_fifo() {
                "fifo".into()
            } else {
                let bytes = std::fs::read(&p).unwrap();
                format!(
                    "file {} {:o} {:x}",
                    bytes.len(),
                    m.permissions().mode(),
                    fnv(&bytes)
                )
            };
            out.insert(rel, what);
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf29ce484222325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x100000001b3)
    })
}

struct Fx {
    root: cli_fixture::Root,
}

impl Fx {
    fn new() -> Fx {
        Fx {
            root: cli_fixture::Root::new(),
        }
    }
    fn root(&self) -> PathBuf {
        self.root.path()
    }
    /// Runs termic with stdin closed; returns the output and how long it took.
    fn termic(&self, args: &[&str]) -> (Output, Duration) {
        let start = Instant::now();
        let mut child = termic_command(&self.root(), &self.root())
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Never wait forever on a regression: kill it past the bound.
        loop {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            if start.elapsed() > BOUND * 4 {
                child.kill().unwrap();
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let out = child.wait_with_output().unwrap();
        (out, start.elapsed())
    }
}

/// (agent to install, path of the odd file relative to the fixture root).
const PLACES: [(&str, &str); 7] = [
    ("claude", "home/.claude/settings.json"),
    ("claude", "home/.claude/termic-hooks/manifest.json"),
    ("claude", "home/.claude/termic-hooks/stop.sh"),
    ("grok", "home/.grok/hooks/termic.json"),
    ("grok", "home/.grok/termic-hooks/notification.sh"),
    ("agy", "home/.gemini/config/hooks.json"),
    ("opencode", "home/.config/opencode/plugins/termic.js"),
];

#[test]
fn an_odd_file_at_any_agent_path_is_refused_at_once_and_nothing_is_written() {
    let mut worst = Duration::ZERO;
    for (agent, rel) in PLACES {
        for odd in ODDS {
            let fx = Fx::new();
            let path = fx.root().join(rel);
            place(&path, odd);
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let before = tree(&fx.root());
            for args in [
                vec!["hooks", "status"],
                vec!["hooks", "install", agent, "--dry-run"],
                vec!["hooks", "install", agent, "--yes"],
                vec!["hooks", "remove", agent, "--yes"],
            ] {
                let (out, took) = fx.termic(&args);
                worst = worst.max(took);
                let what = format!("{odd:?} at {rel}, termic {}", args.join(" "));
                assert!(took < BOUND, "{what}: took {took:?}");
                let all = text(&out.stdout) + &text(&out.stderr);
                assert!(out.status.code().is_some(), "{what}: killed (hung)");
                assert!(
                    all.contains(&name),
                    "{what}: the message does not name {name}:\n{all}"
                );
                if args[1] != "status" {
                    assert_ne!(out.status.code(), Some(0), "{what}: succeeded:\n{all}");
                }
                assert!(!all.contains("Os {"), "{what}: Debug output:\n{all}");
                assert_eq!(tree(&fx.root()), before, "{what}: wrote something");
            }
        }
    }
    eprintln!("worst refusal: {worst:?}");
}

#[test]
fn an_odd_config_toml_is_refused_at_once_naming_the_file() {
    for odd in ODDS {
        let fx = Fx::new();
        let path = fx.root().join("config/config.toml");
        place(&path, odd);
        let before = tree(&fx.root());
        let (out, took) = fx.termic(&["hooks", "status"]);
        let all = text(&out.stdout) + &text(&out.stderr);
        assert!(took < BOUND, "{odd:?}: took {took:?}");
        assert!(out.status.code().is_some(), "{odd:?}: hung");
        assert!(all.contains("config.toml"), "{odd:?}:\n{all}");
        assert_eq!(tree(&fx.root()), before, "{odd:?}: wrote something");
    }
}
