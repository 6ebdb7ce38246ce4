//! The process table, read from `/proc`: what a test checks after termic
//! ends tasks (nothing left, not even with ppid 1).

#![allow(dead_code)]

use std::path::Path;

/// Alive: in the process table and not a zombie.
pub fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        let state = stat
            .rfind(')')
            .and_then(|i| stat[i + 1..].split_whitespace().next())
            .unwrap_or("");
        state != "Z" && state != "X"
    })
}

/// Every live process whose environment names `data_dir` as termic's
/// (`TERMIC_DATA_DIR`): a fixture's server and everything its tasks started.
pub fn processes_of(data_dir: &Path) -> Vec<i32> {
    let needle = format!("TERMIC_DATA_DIR={}", data_dir.display()).into_bytes();
    let own = std::process::id() as i32;
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| pid != own && alive(pid))
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|env| env.split(|&b| b == 0).any(|e| e == needle.as_slice()))
        })
        .collect()
}
