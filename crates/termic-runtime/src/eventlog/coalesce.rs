//! Keeping the event log small under a flood (pure: time comes in as
//! values, nothing is written here).
//!
//! A program can print status sequences as fast as the PTY carries them
//! (68 MB of tiny OSCs once wrote 796,361 lines). Each task may write
//! [`BURST_LINES`] lines at once and one more every [`REFILL_MS`]; past
//! that, transitions are held and counted, and the held run becomes one
//! `repeated` record at its deadline ([`SUMMARY_AFTER_MS`] after the first
//! held one), even when nothing follows. The record carries the burst's
//! final state, so a reader following `to` never loses the task's state.
//! An exit is never held: it writes the pending record, then its own line.
//!
//! Worst case per task: `BURST_LINES` lines, then at most one line and one
//! record per second.

use termic_signal::engine::{Attention, Rule, State, Transition};

/// Lines a quiet task may write at once (a real agent's busiest minute
/// is a few dozen transitions; a flood is thousands a second).
pub const BURST_LINES: u32 = 16;
/// One more line is allowed this often.
pub const REFILL_MS: u64 = 1_000;
/// A held burst is written as one record this long after its first entry.
pub const SUMMARY_AFTER_MS: u64 = 1_000;
/// Distinct kinds of transition a record counts exactly (more: "8 or more").
const KINDS_COUNTED: usize = 8;

/// What makes two transitions "the same" in a burst: everything but the
/// time and the free-text detail.
type Kind = (State, State, Rule, Option<Attention>);

fn kind(t: &Transition) -> Kind {
    (t.from, t.to, t.reason.rule, t.attention.clone())
}

/// A held run of transitions, written as one record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repeated {
    /// How many transitions were held (none of them has its own line).
    pub count: u64,
    /// How many distinct kinds among them (capped at 8).
    pub kinds: usize,
    /// When the first one happened (the caller's clock).
    pub first_at: u64,
    /// The state before the burst (the last written line's `to`).
    pub from: State,
    /// The last held transition: its `to` is the task's state after the burst.
    pub last: Transition,
}

/// What to write, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    Line(Transition),
    Repeated(Repeated),
}

#[derive(Debug)]
struct Burst {
    flush_at: u64,
    repeated: Repeated,
    kinds: Vec<Kind>,
}

impl Burst {
    fn start(t: Transition) -> Burst {
        Burst {
            flush_at: t.at.saturating_add(SUMMARY_AFTER_MS),
            kinds: vec![kind(&t)],
            repeated: Repeated {
                count: 1,
                kinds: 1,
                first_at: t.at,
                from: t.from,
                last: t,
            },
        }
    }

    fn add(&mut self, t: Transition) {
        let k = kind(&t);
        if self.kinds.len() < KINDS_COUNTED && !self.kinds.contains(&k) {
            self.kinds.push(k);
        }
        self.repeated.count += 1;
        self.repeated.kinds = self.kinds.len();
        self.repeated.last = t;
    }
}

/// One task's flood guard.
#[derive(Debug)]
pub struct Coalescer {
    tokens: u32,
    refilled_at: u64,
    burst: Option<Burst>,
}

impl Coalescer {
    /// A task starting at `now` may write [`BURST_LINES`] lines at once.
    pub fn new(now: u64) -> Coalescer {
        Coalescer {
            tokens: BURST_LINES,
            refilled_at: now,
            burst: None,
        }
    }

    fn refill(&mut self, now: u64) {
        let earned = now.saturating_sub(self.refilled_at) / REFILL_MS;
        if earned > 0 {
            let earned = u32::try_from(earned).unwrap_or(u32::MAX);
            self.tokens = self.tokens.saturating_add(earned).min(BURST_LINES);
            self.refilled_at += u64::from(earned) * REFILL_MS;
        }
        if self.tokens == BURST_LINES {
            self.refilled_at = now;
        }
    }

    /// A transition happened (at `t.at`): what to write now, in order.
    pub fn offer(&mut self, t: Transition) -> Vec<Entry> {
        let now = t.at;
        let mut out: Vec<Entry> = self.due(now).into_iter().collect();
        if t.to == State::Exited {
            // The last word on a task is always written, after the burst.
            out.extend(self.flush());
            out.push(Entry::Line(t));
            return out;
        }
        if let Some(burst) = self.burst.as_mut() {
            burst.add(t);
            return out;
        }
        self.refill(now);
        if self.tokens > 0 {
            self.tokens -= 1;
            out.push(Entry::Line(t));
        } else {
            self.burst = Some(Burst::start(t));
        }
        out
    }

    /// The held burst's record once its deadline has passed.
    pub fn due(&mut self, now: u64) -> Option<Entry> {
        if self.burst.as_ref().is_some_and(|b| now >= b.flush_at) {
            return self.flush();
        }
        None
    }

    /// The held burst's record now (at exit, or when termic quits).
    pub fn flush(&mut self) -> Option<Entry> {
        self.burst.take().map(|b| Entry::Repeated(b.repeated))
    }

    /// When [`Coalescer::due`] will have a record: tick then.
    pub fn next_deadline(&self) -> Option<u64> {
        self.burst.as_ref().map(|b| b.flush_at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use termic_signal::engine::Reason;

    fn t(at: u64, from: State, to: State) -> Transition {
        Transition {
            at,
            from,
            to,
            reason: Reason {
                rule: Rule::NativeBlocked,
                detail: format!("at {at}"),
            },
            attention: None,
        }
    }

    /// A flood alternating working and needs you, one every `gap` ms.
    fn flood(c: &mut Coalescer, start: u64, n: u64, gap: u64) -> Vec<Entry> {
        let mut out = Vec::new();
        for i in 0..n {
            let (from, to) = if i % 2 == 0 {
                (State::Idle, State::Working)
            } else {
                (State::Working, State::Idle)
            };
            out.extend(c.offer(t(start + i * gap, from, to)));
        }
        out
    }

    fn lines(entries: &[Entry]) -> usize {
        entries
            .iter()
            .filter(|e| matches!(e, Entry::Line(_)))
            .count()
    }

    #[test]
    fn a_quiet_task_writes_every_transition() {
        let mut c = Coalescer::new(0);
        // A turn every two seconds for a minute: nothing is held.
        let out = flood(&mut c, 0, 60, 2_000);
        assert_eq!(lines(&out), 60);
        assert_eq!(c.next_deadline(), None);
        // A burst of BURST_LINES at once is written too.
        let mut c = Coalescer::new(0);
        assert_eq!(lines(&flood(&mut c, 0, u64::from(BURST_LINES), 0)), 16);
        assert_eq!(c.next_deadline(), None);
    }

    #[test]
    fn a_burst_becomes_one_record_at_its_deadline_with_nothing_following() {
        let mut c = Coalescer::new(0);
        let out = flood(&mut c, 0, 100_000, 0);
        assert_eq!(out.len(), 16, "only the allowance is written at once");
        // The held rest is due one second after its first entry, and not before.
        assert_eq!(c.next_deadline(), Some(SUMMARY_AFTER_MS));
        assert_eq!(c.due(SUMMARY_AFTER_MS - 1), None);
        let Some(Entry::Repeated(r)) = c.due(SUMMARY_AFTER_MS) else {
            panic!("no record at the deadline");
        };
        assert_eq!(r.count, 100_000 - 16);
        assert_eq!(r.kinds, 2, "working and idle, alternating");
        // The 17th entry (index 16) was the first held: idle -> working.
        assert_eq!(r.from, State::Idle);
        assert_eq!(r.first_at, 0);
        // The final state: the last of the flood (index 99,999) went to idle.
        assert_eq!(r.last.to, State::Idle);
        assert_eq!(c.next_deadline(), None);
        assert_eq!(c.due(u64::MAX), None);
    }

    #[test]
    fn a_sustained_flood_writes_at_most_a_line_and_a_record_a_second() {
        let mut c = Coalescer::new(0);
        let mut out = Vec::new();
        // 60 s of a transition every millisecond, ticked at each deadline.
        for i in 0..60_000u64 {
            if let Some(d) = c.next_deadline().filter(|d| *d <= i) {
                out.extend(c.due(d));
            }
            let (from, to) = if i % 2 == 0 {
                (State::Idle, State::Working)
            } else {
                (State::Working, State::Idle)
            };
            out.extend(c.offer(t(i, from, to)));
        }
        out.extend(c.flush());
        let records = out.len() - lines(&out);
        assert!(lines(&out) <= 16 + 60, "{} lines", lines(&out));
        assert!(records <= 61, "{records} records");
        // Nothing is lost: every transition is a line or counted in a record.
        let counted: u64 = out
            .iter()
            .map(|e| match e {
                Entry::Line(_) => 1,
                Entry::Repeated(r) => r.count,
            })
            .sum();
        assert_eq!(counted, 60_000);
    }

    #[test]
    fn an_exit_is_never_held_and_writes_the_burst_first() {
        let mut c = Coalescer::new(0);
        flood(&mut c, 0, 40, 0);
        let out = c.offer(t(5, State::Idle, State::Exited));
        assert_eq!(out.len(), 2);
        assert!(matches!(&out[0], Entry::Repeated(r) if r.count == 24));
        assert!(matches!(&out[1], Entry::Line(l) if l.to == State::Exited));
        assert_eq!(c.next_deadline(), None);
    }

    #[test]
    fn the_allowance_comes_back_with_quiet() {
        let mut c = Coalescer::new(0);
        flood(&mut c, 0, 20, 0);
        assert!(c.due(SUMMARY_AFTER_MS).is_some());
        // Sixteen quiet seconds later a task may burst again.
        let out = flood(&mut c, 16 * REFILL_MS + SUMMARY_AFTER_MS, 16, 0);
        assert_eq!(lines(&out), 16);
        assert_eq!(c.next_deadline(), None);
    }
}
