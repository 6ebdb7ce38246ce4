//! Where copy mode's text goes: the outer terminal's clipboard by OSC 52
//! (works over SSH and through tmux with `set-clipboard on`), and the
//! system clipboard through `wl-copy`, `xclip`, `xsel` or `pbcopy` when
//! one is on PATH and its display is set.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use base64::Engine as _;

/// The most text one copy sends (many terminals drop a bigger OSC 52).
pub const COPY_LIMIT: usize = 1 << 20;

/// `OSC 52 ; c ; base64 ST`: sets the outer terminal's clipboard.
pub fn osc52(text: &str) -> Vec<u8> {
    let encoded = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
    format!("\x1b]52;c;{encoded}\x07").into_bytes()
}

/// The clipboard program for this session, from the environment and PATH,
/// as argv. Pure: `var` reads the environment, `found` looks a program up.
pub fn system_clipboard(
    var: impl Fn(&str) -> Option<String>,
    found: impl Fn(&str) -> Option<PathBuf>,
) -> Option<Vec<String>> {
    let set = |name: &str| var(name).is_some_and(|v| !v.is_empty());
    let candidates: &[&[&str]] = if set("WAYLAND_DISPLAY") {
        &[&["wl-copy"]]
    } else if set("DISPLAY") {
        &[
            &["xclip", "-selection", "clipboard"],
            &["xsel", "--clipboard", "--input"],
        ]
    } else if cfg!(target_os = "macos") {
        &[&["pbcopy"]]
    } else {
        &[]
    };
    candidates.iter().find_map(|argv| {
        let path = found(argv[0])?;
        let mut out = vec![path.display().to_string()];
        out.extend(argv[1..].iter().map(|s| s.to_string()));
        Some(out)
    })
}

/// `program` as found on `$PATH`.
pub fn on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    termic_runtime::program::find_on_path(
        program,
        &path,
        termic_runtime::program::is_executable_file,
    )
}

/// Hands `text` to the system clipboard program on a thread of its own,
/// so a slow or stuck clipboard never stalls the workspace. Returns the
/// program's name when one was started.
pub fn copy_to_system(text: &str) -> Option<String> {
    let argv = system_clipboard(|k| std::env::var(k).ok(), on_path)?;
    let mut child = Command::new(&argv[0])
        .args(&argv[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    let text = text.to_string();
    std::thread::Builder::new()
        .name("termic-clipboard".into())
        .spawn(move || {
            let _ = stdin.write_all(text.as_bytes());
            drop(stdin);
            // xclip and wl-copy fork to keep serving the selection; the
            // program we started exits once it has read its input.
            let _ = child.wait();
        })
        .ok()?;
    Path::new(&argv[0])
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn osc52_carries_the_text_in_base64() {
        assert_eq!(osc52("hi\n"), b"\x1b]52;c;aGkK\x07");
    }

    #[test]
    fn the_clipboard_program_follows_the_display_and_path() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(name, _)| *name == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        let all = |p: &str| Some(PathBuf::from(format!("/usr/bin/{p}")));
        let only_xsel = |p: &str| (p == "xsel").then(|| PathBuf::from("/usr/bin/xsel"));
        assert_eq!(
            system_clipboard(env(&[("WAYLAND_DISPLAY", "wayland-0")]), all),
            Some(vec!["/usr/bin/wl-copy".to_string()])
        );
        assert_eq!(
            system_clipboard(env(&[("DISPLAY", ":0")]), all).unwrap()[1..],
            ["-selection", "clipboard"]
        );
        assert_eq!(
            system_clipboard(env(&[("DISPLAY", ":0")]), only_xsel).unwrap()[0],
            "/usr/bin/xsel"
        );
        // Over SSH with no display: OSC 52 only.
        if !cfg!(target_os = "macos") {
            assert_eq!(system_clipboard(env(&[]), all), None);
        }
        assert_eq!(system_clipboard(env(&[("DISPLAY", "")]), |_| None), None);
    }
}
