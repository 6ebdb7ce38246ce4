//! A fixture whose termic server is stopped when the test ends, however it
//! ends, and the CLI calls the server tests make (the server binary's cli
//! and attach modules, and the fault suite).

#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Output;

use serde_json::Value;

use crate::harness::Fixture;

pub struct Served {
    pub f: Fixture,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.f.cli(&self.f.work, &["server", "stop"]);
    }
}

impl Served {
    /// A fixture whose agent `fake` runs `script` with sh.
    pub fn new(script: &str) -> Served {
        let f = Fixture::new();
        f.fake_sh_agent(script);
        Served { f }
    }

    pub fn termic(&self, args: &[&str]) -> Output {
        self.f.cli(&self.f.work, args)
    }

    /// Runs and expects `code`; returns stdout.
    pub fn expect(&self, args: &[&str], code: i32) -> String {
        let out = self.termic(args);
        assert_eq!(
            out.status.code(),
            Some(code),
            "termic {args:?}\nstdout: {}\nstderr: {}",
            text(&out.stdout),
            text(&out.stderr)
        );
        text(&out.stdout)
    }

    /// `termic ls --json`, parsed.
    pub fn ls(&self) -> Vec<Value> {
        let out = self.expect(&["ls", "--json"], 0);
        serde_json::from_str::<Value>(&out)
            .unwrap()
            .as_array()
            .unwrap()
            .clone()
    }

    /// The running server's pid, from the line it logs at start.
    pub fn server_pid(&self) -> i32 {
        let log = std::fs::read_to_string(self.f.data_dir.join("server.log")).unwrap();
        let after = log.rsplit("(pid ").next().unwrap();
        after.split(')').next().unwrap().parse().unwrap()
    }

    pub fn socket(&self) -> PathBuf {
        self.f.data_dir.join("run/server.sock")
    }
}

/// The port in the first line `termic web` prints (its address).
pub fn web_port(line: &str) -> u16 {
    line.trim()
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("termic web said {line:?}"))
}

pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}
