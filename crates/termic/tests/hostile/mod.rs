//! The hostile-screen corpus: output built to make a screen model slow or
//! big, generated here (no large committed files). Shared by the
//! screen-model test (hostile/screen.rs) and the end-to-end flood test
//! (hostile/tui.rs).

#![allow(dead_code)]

use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

/// Two tests time themselves: the flood test (keys and quitting against a
/// flood) and the screen model's cost test. Until 2026-12-06 the first was
/// alone in its test binary and the second shared one only with light
/// tests. They still run alone: each holds this lock for writing, and every
/// other test of the hostile binary holds it for reading, so the binary's
/// parallel tests (the replies tests cat the whole corpus through tasks)
/// never run beside them.
static TIMING: RwLock<()> = RwLock::new(());

/// For a test that times itself: no other test of the binary runs while it
/// is held.
pub fn alone() -> RwLockWriteGuard<'static, ()> {
    TIMING.write().unwrap_or_else(|e| e.into_inner())
}

/// For every other test of the binary: they run beside each other, never
/// beside a test that times itself.
pub fn not_beside_the_timed() -> RwLockReadGuard<'static, ()> {
    TIMING.read().unwrap_or_else(|e| e.into_inner())
}

/// One hostile file: a name for messages and its bytes.
pub struct Hostile {
    pub name: &'static str,
    pub bytes: Vec<u8>,
}

fn repeat(unit: &[u8], size: usize) -> Vec<u8> {
    unit.iter().copied().cycle().take(size).collect()
}

fn wrapped(open: &[u8], body: u8, size: usize, close: &[u8]) -> Vec<u8> {
    let mut v = open.to_vec();
    v.resize(open.len() + size, body);
    v.extend_from_slice(close);
    v
}

/// Every file of the corpus, each about `size` bytes.
pub fn corpus(size: usize) -> Vec<Hostile> {
    let mut rep = b"x".to_vec();
    rep.extend(repeat(b"\x1b[65535b", size));
    // 32 params is vte's most; the rest is ignored, but must cost nothing.
    let mut params = b"\x1b[".to_vec();
    params.extend(repeat(b"65535;", size / 2));
    params.extend_from_slice(b"m");
    params.extend(repeat(b"\x1b[1;2;3;4;5;6;7;8;9;10;11;12;13;14;15;16;17;18;19;20;21;22;23;24;25;26;27;28;29;30;31;32;33;34;35H", size / 2));
    vec![
        Hostile {
            name: "REP 65535 flood",
            bytes: rep,
        },
        Hostile {
            name: "unterminated OSC",
            bytes: wrapped(b"\x1b]0;", b'a', size, b"\x07"),
        },
        Hostile {
            name: "unterminated OSC with separators",
            bytes: [b"\x1b]52;c;".as_slice(), &repeat(b"a;", size), b"\x07"].concat(),
        },
        Hostile {
            name: "unterminated DCS",
            bytes: wrapped(b"\x1bP1$q", b'a', size, b"\x1b\\"),
        },
        Hostile {
            name: "unterminated APC",
            bytes: wrapped(b"\x1b_G", b'a', size, b"\x1b\\"),
        },
        Hostile {
            name: "unterminated PM",
            bytes: wrapped(b"\x1b^", b'a', size, b"\x1b\\"),
        },
        Hostile {
            name: "invalid UTF-8 (0xff)",
            bytes: vec![0xff; size],
        },
        Hostile {
            name: "mixed invalid UTF-8",
            bytes: repeat(b"\xc3\x28\xe2\x82\xff\x80\x9b\xf0\x90\x28a\xed\xa0\x80", size),
        },
        Hostile {
            name: "huge CSI parameter lists",
            bytes: params,
        },
        Hostile {
            name: "deeply nested SGR",
            bytes: repeat(
                b"\x1b[1;2;3;4;5;7;8;9;38;5;196;48;2;1;2;3;38:2::4:5:6;58:5:3;4:3;53mx\x1b[22;23;24;25;27;28;29;39;49;55m",
                size,
            ),
        },
    ]
}

/// Valid, ordinary text of about `size` bytes: the yardstick.
pub fn plain_text(size: usize) -> Vec<u8> {
    repeat(
        b"2026-12-01T22:00:00Z \x1b[32mINFO\x1b[0m worker-3 request id=0123456789ab took 42ms\r\n",
        size,
    )
}
