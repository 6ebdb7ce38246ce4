//! Keystroke-to-echo latency: a bare PTY versus the same program through
//! termic's runtime (input write, reader thread, screen model, engine, the
//! Dirty event and a screen read, which is what a redraw needs).
//!
//! The program is `stty raw -echo; cat`, so the echo comes from the program,
//! not the line discipline. Prints median and p99 for both and the added
//! median. usage: keystroke_latency [SAMPLES=300]

use std::io::{Read, Write};
use std::sync::Arc;
use std::time::{Duration, Instant};

use portable_pty::{native_pty_system, CommandBuilder, PtySize};
use termic_runtime::clock::SystemClock;
use termic_runtime::{Runtime, RuntimeConfig, RuntimeEvent, TaskSpec, TermSize};

const PROGRAM: &str = "stty raw -echo; printf ready; exec cat";

fn stats(mut v: Vec<Duration>) -> (f64, f64) {
    v.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    (ms(v[v.len() / 2]), ms(v[(v.len() * 99) / 100]))
}

fn bare(samples: usize) -> Vec<Duration> {
    let pair = native_pty_system()
        .openpty(PtySize {
            rows: 24,
            cols: 80,
            pixel_width: 0,
            pixel_height: 0,
        })
        .unwrap();
    let mut cmd = CommandBuilder::new("sh");
    cmd.args(["-c", PROGRAM]);
    let mut child = pair.slave.spawn_command(cmd).unwrap();
    drop(pair.slave);
    let mut reader = pair.master.try_clone_reader().unwrap();
    let mut writer = pair.master.take_writer().unwrap();
    let mut buf = [0u8; 64];
    let mut seen = Vec::new();
    while !String::from_utf8_lossy(&seen).contains("ready") {
        let n = reader.read(&mut buf).unwrap();
        seen.extend_from_slice(&buf[..n]);
    }
    let mut out = Vec::with_capacity(samples);
    for i in 0..samples {
        let key = b'a' + (i % 26) as u8;
        let t = Instant::now();
        writer.write_all(&[key]).unwrap();
        loop {
            let n = reader.read(&mut buf).unwrap();
            if buf[..n].contains(&key) {
                break;
            }
        }
        out.push(t.elapsed());
        std::thread::sleep(Duration::from_millis(2));
    }
    let _ = child.kill();
    out
}

fn through_termic(samples: usize) -> Vec<Duration> {
    let (rt, events) = Runtime::new(RuntimeConfig::default(), Arc::new(SystemClock::new()));
    let id = rt
        .spawn(TaskSpec {
            name: "latency".into(),
            agent: "bench".into(),
            argv: vec!["sh".into(), "-c".into(), PROGRAM.into()],
            cwd: std::env::temp_dir(),
            env: Vec::new(),
            profile: "generic".into(),
            size: TermSize { rows: 24, cols: 80 },
            container: None,
        })
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !rt
        .with_screen(id, |s| s.contents().contains("ready"))
        .unwrap()
    {
        assert!(Instant::now() < deadline, "the program never started");
        let _ = events.recv_timeout(Duration::from_millis(20));
    }
    let mut out = Vec::with_capacity(samples);
    for i in 0..samples {
        // One line per sample keeps "is my key on screen" unambiguous.
        let key = b'a' + (i % 26) as u8;
        let marker = format!("{}{}", i, key as char);
        while events.try_recv().is_ok() {}
        let t = Instant::now();
        rt.write_input(id, format!("\r\n{marker}").as_bytes())
            .unwrap();
        loop {
            match events.recv_timeout(Duration::from_secs(5)) {
                Ok(RuntimeEvent::Dirty(got)) if got == id => {
                    if rt
                        .with_screen(id, |s| s.contents().contains(&marker))
                        .unwrap()
                    {
                        break;
                    }
                }
                Ok(_) => {}
                Err(_) => panic!("no echo for sample {i}"),
            }
        }
        out.push(t.elapsed());
        std::thread::sleep(Duration::from_millis(2));
    }
    let _ = rt.kill(id);
    out
}

fn main() {
    let samples: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    let (b50, b99) = stats(bare(samples));
    let (t50, t99) = stats(through_termic(samples));
    println!("bare PTY:        median {b50:.3} ms, p99 {b99:.3} ms ({samples} keys)");
    println!("through termic:  median {t50:.3} ms, p99 {t99:.3} ms");
    println!(
        "added by termic: median {:.3} ms, p99 {:.3} ms",
        t50 - b50,
        t99 - b99
    );
}
