//! Containers whose termic is gone: left by a termic older than the
//! watchdog, or by one killed before its watchdog could act (the watchdog
//! itself killed, the machine's `docker` client missing at that moment).
//! At start-up, a termic that has Docker agents removes every container
//! labelled with an owner pid that no longer runs.
//!
//! Only what is certain is removed. A container whose owner pid is alive is
//! kept even when that pid may have been reused (a leftover is better than
//! another program's container killed), and one whose owner ran in another
//! pid namespace (a termic in a container sharing the engine's socket,
//! whose pids mean nothing here) is never judged by a pid from this one.
//! Containers without termic's owner label are never looked at.

use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use super::engine::output_within;
use super::{OWNER_LABEL, OWNER_PIDNS_LABEL};

/// Longest `docker ps` (and each `docker rm`) is waited for.
const SWEEP_TIMEOUT: Duration = Duration::from_secs(20);

/// One labelled container as `docker ps` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Labelled {
    pub id: String,
    pub owner_pid: Option<u32>,
    /// Empty when the container predates the namespace label.
    pub owner_pidns: String,
}

/// The `--format` that [`parse_listing`] reads: id, owner pid, pid namespace.
pub fn listing_format() -> String {
    format!("{{{{.ID}}}}\t{{{{.Label \"{OWNER_LABEL}\"}}}}\t{{{{.Label \"{OWNER_PIDNS_LABEL}\"}}}}")
}

/// `docker ps --format <listing_format>` output, one container a line.
pub fn parse_listing(text: &str) -> Vec<Labelled> {
    text.lines()
        .filter_map(|line| {
            let mut fields = line.split('\t');
            let id = fields.next()?.trim();
            if id.is_empty() || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            Some(Labelled {
                id: id.to_owned(),
                owner_pid: fields.next().and_then(|p| p.trim().parse().ok()),
                owner_pidns: fields.next().unwrap_or("").trim().to_owned(),
            })
        })
        .collect()
}

/// This process's identity as the owner labels record it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Me {
    pub pid: u32,
    pub pidns: String,
}

/// The containers to remove: their owner pid is known, is not us, ran in
/// our pid namespace (or predates the label), and is gone. Pure: liveness
/// is asked of `gone`.
pub fn orphans(listed: &[Labelled], me: &Me, gone: impl Fn(u32) -> bool) -> Vec<String> {
    listed
        .iter()
        .filter(|c| {
            let Some(pid) = c.owner_pid else { return false };
            let same_ns = c.owner_pidns.is_empty() || c.owner_pidns == me.pidns;
            pid != me.pid && pid > 1 && same_ns && gone(pid)
        })
        .map(|c| c.id.clone())
        .collect()
}

/// The link text of `/proc/self/ns/pid` (`pid:[4026531836]`), or empty.
pub fn own_pid_namespace() -> String {
    std::fs::read_link("/proc/self/ns/pid")
        .map(|p| p.display().to_string())
        .unwrap_or_default()
}

static SWEPT: OnceLock<()> = OnceLock::new();

/// Sweep once per termic, in the background: start-up never waits on the
/// engine, and an engine that is down or absent costs nothing but a
/// failed `docker ps`.
pub fn start_once() {
    SWEPT.get_or_init(|| {
        let _ = std::thread::Builder::new()
            .name("docker-sweep".into())
            .spawn(sweep);
    });
}

/// Lists termic's containers, removes the orphans; returns how many.
pub fn sweep() -> usize {
    let mut ps = Command::new("docker");
    ps.args([
        "ps",
        "-a",
        "--no-trunc",
        "--filter",
        &format!("label={OWNER_LABEL}"),
        "--format",
        &listing_format(),
    ]);
    let Some(out) = output_within(&mut ps, SWEEP_TIMEOUT) else {
        return 0;
    };
    if !out.status.success() {
        return 0;
    }
    let me = Me {
        pid: std::process::id(),
        pidns: own_pid_namespace(),
    };
    let listed = parse_listing(&String::from_utf8_lossy(&out.stdout));
    let gone = |pid: u32| i32::try_from(pid).is_ok_and(termic_runtime::session::process_gone);
    let mut removed = 0;
    for id in orphans(&listed, &me, gone) {
        // `rm -f` kills a running one and removes a stopped one alike.
        let mut rm = Command::new("docker");
        rm.args(["rm", "-f", &id]).stdout(Stdio::null());
        if output_within(&mut rm, SWEEP_TIMEOUT).is_some_and(|o| o.status.success()) {
            removed += 1;
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    const NS: &str = "pid:[4026531836]";

    fn me() -> Me {
        Me {
            pid: 100,
            pidns: NS.into(),
        }
    }

    fn c(id: &str, pid: Option<u32>, ns: &str) -> Labelled {
        Labelled {
            id: id.into(),
            owner_pid: pid,
            owner_pidns: ns.into(),
        }
    }

    #[test]
    fn the_listing_is_read_field_by_field_and_junk_is_skipped() {
        let text = format!("abc123\t4242\t{NS}\ndef456\t77\t\n\nnot an id\t1\t\n0a0b\tx\t{NS}\n");
        assert_eq!(
            parse_listing(&text),
            [
                c("abc123", Some(4242), NS),
                c("def456", Some(77), ""),
                c("0a0b", None, NS),
            ]
        );
        assert!(listing_format().contains("{{.Label \"io.termic.owner-pid\"}}"));
    }

    #[test]
    fn only_containers_of_a_gone_termic_in_this_namespace_are_orphans() {
        let listed = [
            c("a1", Some(4242), NS),                 // gone, same ns: orphan
            c("b2", Some(4243), ""),                 // gone, older termic: orphan
            c("c3", Some(4244), "pid:[4026532999]"), // another namespace: kept
            c("d4", Some(555), NS),                  // alive: kept
            c("e5", Some(100), NS),                  // ours: kept
            c("f6", None, NS),                       // no pid: kept
            c("a7", Some(1), ""),                    // init: never judged
        ];
        let gone = |pid: u32| pid != 555;
        assert_eq!(orphans(&listed, &me(), gone), ["a1", "b2"]);
        // Nothing is gone: nothing is removed.
        assert!(orphans(&listed, &me(), |_| false).is_empty());
    }

    #[test]
    fn this_process_has_a_pid_namespace() {
        assert!(
            own_pid_namespace().starts_with("pid:["),
            "{}",
            own_pid_namespace()
        );
    }
}
