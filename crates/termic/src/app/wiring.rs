//! When to re-verify an agent's hooks while its tasks run. Pure: the app
//! stats the files and passes the time in.
//!
//! Agents rewrite their own configs, so "wired" can stop being true in the
//! middle of a task, and the engine would go on trusting hooks that no
//! longer fire. Re-reading the status costs a read and parse of every hook
//! file, so the watch compares cheap file stamps (`stat`) first and asks
//! for a full re-verification only when they changed. A stamp is taken:
//!
//! - soon after a moment that already happens for a task of the agent (a
//!   state transition, a submitted prompt), at most one per
//!   [`MOMENT_GAP_MS`];
//! - every [`WORKING_RECHECK_MS`] while some task of the agent is working,
//!   because a turn whose Stop hook was dropped has no moment left to give.
//!
//! With nothing working and no moment, there is no deadline at all, so
//! idle tasks cost no wake-up.

use std::collections::BTreeMap;
use std::path::PathBuf;

/// While a task of the agent is working, its hook files are stamped this
/// often. A dropped Stop hook is noticed at most this late (then the
/// heuristics need their own time, e.g. the 5 s settle).
pub const WORKING_RECHECK_MS: u64 = 5_000;

/// Moments closer than this to the last stamp are folded into one stamp
/// at the end of the gap (Enter, then the transition to working 20 ms
/// later, cost one stat, and the later moment is still covered).
pub const MOMENT_GAP_MS: u64 = 250;

/// One file's identity and last change, as `stat` reports it. Writes move
/// mtime (and size), a rename over the file (how agents and termic write
/// configs) changes the inode, and chmod moves ctime.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStamp {
    pub dev: u64,
    pub ino: u64,
    pub size: u64,
    pub mtime_ns: i128,
    pub ctime_ns: i128,
}

/// Every file an agent's hooks status reads, with its stamp (`None`: the
/// file is absent or cannot be stat'ed).
pub type WiringStamp = Vec<(PathBuf, Option<FileStamp>)>;

#[derive(Debug, Default)]
struct AgentWatch {
    /// When the files were last stamped.
    last_stamp_ms: Option<u64>,
    /// A moment arrived since the last stamp.
    moment_pending: bool,
    /// The stamp the last verification was judged against.
    stamp: Option<WiringStamp>,
}

impl AgentWatch {
    fn deadline(&self, working: bool) -> Option<u64> {
        let after = |gap: u64| self.last_stamp_ms.map_or(0, |at| at + gap);
        let moment = self.moment_pending.then(|| after(MOMENT_GAP_MS));
        let working = working.then(|| after(WORKING_RECHECK_MS));
        moment.into_iter().chain(working).min()
    }
}

/// Per agent id: when its hook files are due for a stamp, and whether the
/// last stamp differs from the one before.
#[derive(Debug, Default)]
pub struct WiringWatch {
    agents: BTreeMap<String, AgentWatch>,
}

impl WiringWatch {
    /// Something happened to a task of `agent` (a transition, a prompt
    /// submitted): stamp its files soon.
    pub fn moment(&mut self, agent: &str) {
        self.agents
            .entry(agent.to_owned())
            .or_default()
            .moment_pending = true;
    }

    /// The earliest time a stamp falls due. `working` lists the agents with
    /// a working task. `None`: nothing until the next moment.
    pub fn next_deadline(&self, working: &[&str]) -> Option<u64> {
        self.deadlines(working).map(|(_, at)| at).min()
    }

    /// The agents whose files should be stamped at `now`.
    pub fn due(&self, now: u64, working: &[&str]) -> Vec<String> {
        self.deadlines(working)
            .filter(|&(_, at)| at <= now)
            .map(|(agent, _)| agent.to_owned())
            .collect()
    }

    /// Records `agent`'s files as stamped at `now`. True when the stamp
    /// differs from the last one (or is the first): re-verify the wiring.
    pub fn observe(&mut self, agent: &str, now: u64, stamp: WiringStamp) -> bool {
        let watch = self.agents.entry(agent.to_owned()).or_default();
        watch.last_stamp_ms = Some(now);
        watch.moment_pending = false;
        let changed = watch.stamp.as_ref() != Some(&stamp);
        watch.stamp = Some(stamp);
        changed
    }

    fn deadlines<'a>(&'a self, working: &'a [&str]) -> impl Iterator<Item = (&'a str, u64)> {
        let known = self.agents.iter().filter_map(|(agent, w)| {
            Some((
                agent.as_str(),
                w.deadline(working.contains(&agent.as_str()))?,
            ))
        });
        // A working agent never stamped yet is due at once.
        let unseen = working
            .iter()
            .filter(|a| !self.agents.contains_key(**a))
            .map(|a| (*a, 0));
        known.chain(unseen)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamp(mtime_ns: i128) -> WiringStamp {
        vec![(
            PathBuf::from("/h/.claude/settings.json"),
            Some(FileStamp {
                dev: 1,
                ino: 7,
                size: 120,
                mtime_ns,
                ctime_ns: mtime_ns,
            }),
        )]
    }

    #[test]
    fn nothing_is_due_without_a_moment_or_a_working_task() {
        let mut watch = WiringWatch::default();
        assert_eq!(watch.next_deadline(&[]), None);
        assert!(watch.due(1_000_000, &[]).is_empty());
        // Stamped once, then idle for an hour: still no deadline.
        watch.moment("claude");
        assert!(watch.observe("claude", 100, stamp(1)));
        assert_eq!(watch.next_deadline(&[]), None);
        assert!(watch.due(3_600_000, &[]).is_empty());
    }

    #[test]
    fn a_moment_stamps_at_once_then_folds_into_the_gap() {
        let mut watch = WiringWatch::default();
        watch.moment("claude");
        assert_eq!(watch.due(1_000, &[]), ["claude"]);
        watch.observe("claude", 1_000, stamp(1));
        // Enter, then the transition 20 ms later: one more stamp, at the end of the gap.
        watch.moment("claude");
        assert_eq!(watch.next_deadline(&[]), Some(1_000 + MOMENT_GAP_MS));
        assert!(watch.due(1_020, &[]).is_empty());
        assert_eq!(watch.due(1_000 + MOMENT_GAP_MS, &[]), ["claude"]);
        watch.observe("claude", 1_250, stamp(1));
        assert_eq!(watch.next_deadline(&[]), None);
        // A moment long after the last stamp is due at once.
        watch.moment("claude");
        assert_eq!(watch.due(9_000, &[]), ["claude"]);
    }

    #[test]
    fn a_working_agent_is_restamped_on_the_slow_deadline_only() {
        let mut watch = WiringWatch::default();
        // Working and never stamped: due at once.
        assert_eq!(watch.due(500, &["claude"]), ["claude"]);
        watch.observe("claude", 500, stamp(1));
        let next = 500 + WORKING_RECHECK_MS;
        assert_eq!(watch.next_deadline(&["claude"]), Some(next));
        assert!(watch.due(next - 1, &["claude"]).is_empty());
        assert_eq!(watch.due(next, &["claude"]), ["claude"]);
        // Only the working agent: another agent's files are not stamped.
        watch.moment("grok");
        watch.observe("grok", 600, stamp(1));
        assert_eq!(watch.due(next, &["claude"]), ["claude"]);
        // The turn ended: the slow deadline goes with it.
        assert_eq!(watch.next_deadline(&[]), None);
    }

    #[test]
    fn a_pending_moment_beats_the_slow_deadline() {
        let mut watch = WiringWatch::default();
        watch.observe("claude", 0, stamp(1));
        watch.moment("claude");
        assert_eq!(watch.next_deadline(&["claude"]), Some(MOMENT_GAP_MS));
    }

    #[test]
    fn only_a_changed_stamp_asks_for_reverification() {
        let mut watch = WiringWatch::default();
        assert!(
            watch.observe("claude", 0, stamp(1)),
            "the first stamp has no baseline"
        );
        assert!(!watch.observe("claude", 5_000, stamp(1)));
        assert!(watch.observe("claude", 10_000, stamp(2)), "mtime moved");
        assert!(!watch.observe("claude", 15_000, stamp(2)));
        let mut gone = stamp(2);
        gone[0].1 = None;
        assert!(watch.observe("claude", 20_000, gone), "the file went away");
        let mut renamed_over = stamp(2);
        if let Some(s) = renamed_over[0].1.as_mut() {
            s.ino = 8;
        }
        assert!(watch.observe("claude", 25_000, renamed_over), "new inode");
        // A file that appears (a Docker dir created) changes the list.
        let mut more = stamp(2);
        more.push((PathBuf::from("/h/.claude/termic-hooks/stop.sh"), None));
        assert!(watch.observe("claude", 30_000, more));
    }

    /// The agent drops its hooks 0.5 s into a turn that a hook started:
    /// on a virtual clock, the drop is stamped within one slow interval.
    #[test]
    fn a_drop_mid_turn_is_seen_within_one_slow_interval() {
        let mut watch = WiringWatch::default();
        // The agent rewrites settings.json at 0.5 s.
        let files_at = |now: u64| stamp(if now < 500 { 1 } else { 2 });
        let mut now = 0;
        // The hook's working transition is a moment.
        watch.moment("claude");
        let mut reverified_at = Vec::new();
        while now <= 20_000 {
            for agent in watch.due(now, &["claude"]) {
                if watch.observe(&agent, now, files_at(now)) {
                    reverified_at.push(now);
                }
            }
            now = watch
                .next_deadline(&["claude"])
                .expect("armed while working")
                .max(now + 1);
        }
        assert_eq!(reverified_at, [0, WORKING_RECHECK_MS]);
    }
}
