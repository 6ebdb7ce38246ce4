//! When the next frame may be drawn. Pure: times in, times out.
//!
//! About 60 frames a second while a person works with a task, so a key's
//! echo shows at once. When output streams without a pause (a build log, a
//! `cat` of a big file), every frame is a full repaint that nobody reads, and
//! drawing it costs the CPU the agent and the screen model need (measured on
//! 200 MiB in tmux: 2.24x the bare pump at 16 ms frames, 1.55x at 50 ms).
//! So after a quarter second of back-to-back frames the pace drops to 20 a
//! second, until output pauses or the user types.

/// Shortest time between two frames (about 60 per second).
pub const FRAME_MS: u64 = 16;

/// Time between frames while output streams (20 per second).
pub const STREAMING_FRAME_MS: u64 = 50;

/// Back-to-back frames before output counts as streaming (about 0.25 s).
const STREAMING_AFTER: u32 = 15;

/// Tracks recent frames to pick the pace of the next one.
#[derive(Debug, Default)]
pub struct FramePacer {
    last_frame: Option<u64>,
    /// Frames in a row drawn as soon as they were allowed.
    back_to_back: u32,
}

impl FramePacer {
    /// The time between frames right now.
    pub fn interval(&self) -> u64 {
        if self.back_to_back >= STREAMING_AFTER {
            STREAMING_FRAME_MS
        } else {
            FRAME_MS
        }
    }

    /// The earliest time the next frame may be drawn.
    pub fn next_frame_at(&self) -> u64 {
        self.last_frame.map_or(0, |last| last + self.interval())
    }

    /// A frame was drawn at `now`. It was back to back when it came within
    /// one short frame of the earliest allowed time: something was waiting
    /// to be drawn the whole time.
    pub fn drew(&mut self, now: u64) {
        let back_to_back = self.last_frame.is_some() && now <= self.next_frame_at() + FRAME_MS;
        self.back_to_back = if back_to_back {
            self.back_to_back.saturating_add(1)
        } else {
            0
        };
        self.last_frame = Some(now);
    }

    /// The user typed, pasted or clicked: their echo gets the full rate.
    pub fn user_input(&mut self) {
        self.back_to_back = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Draw every frame as soon as it is allowed, `n` times, from `start`.
    fn stream(p: &mut FramePacer, start: u64, n: u32) -> u64 {
        let mut now = start;
        for _ in 0..n {
            now = now.max(p.next_frame_at());
            p.drew(now);
        }
        now
    }

    #[test]
    fn the_first_frame_is_due_at_once() {
        assert_eq!(FramePacer::default().next_frame_at(), 0);
    }

    #[test]
    fn interactive_frames_come_at_the_full_rate() {
        let mut p = FramePacer::default();
        // A key's echo every 200 ms: never back to back.
        for i in 1..=50 {
            p.drew(i * 200);
            assert_eq!(p.next_frame_at(), i * 200 + FRAME_MS);
        }
    }

    #[test]
    fn streaming_output_slows_to_twenty_frames_a_second() {
        let mut p = FramePacer::default();
        let now = stream(&mut p, 1000, STREAMING_AFTER);
        assert_eq!(
            p.interval(),
            FRAME_MS,
            "not yet after {STREAMING_AFTER} frames"
        );
        let now = stream(&mut p, now, 1);
        assert_eq!(p.interval(), STREAMING_FRAME_MS);
        assert_eq!(p.next_frame_at(), now + STREAMING_FRAME_MS);
        // And stays there while the stream goes on.
        let now = stream(&mut p, now, 100);
        assert_eq!(p.next_frame_at(), now + STREAMING_FRAME_MS);
    }

    #[test]
    fn a_pause_in_output_restores_the_full_rate() {
        let mut p = FramePacer::default();
        let now = stream(&mut p, 0, 40);
        assert_eq!(p.interval(), STREAMING_FRAME_MS);
        // The next frame is wanted well after it was allowed.
        p.drew(now + STREAMING_FRAME_MS + FRAME_MS + 1);
        assert_eq!(p.interval(), FRAME_MS);
    }

    #[test]
    fn typing_during_a_stream_restores_the_full_rate() {
        let mut p = FramePacer::default();
        let now = stream(&mut p, 0, 40);
        p.user_input();
        assert_eq!(p.interval(), FRAME_MS);
        assert_eq!(p.next_frame_at(), now + FRAME_MS);
    }
}
