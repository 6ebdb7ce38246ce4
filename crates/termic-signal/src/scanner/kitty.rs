//! Kitty's OSC 99 desktop notifications: `99 ; metadata ; payload`.
//!
//! Metadata is colon-separated `k=v`: `i` (id), `d` (`0` = more chunks follow,
//! `1`, the default, = done), `p` (what the payload is: `title`, the default,
//! `body`, `?` query, `close`, `alive`, `icon`, `buttons`), `e` (`1` = payload
//! is base64). Chunks with the same `i` build one notification, which is
//! reported when its `d=1` chunk arrives.
//!
//! `p=?` is a capability query, not a notification: opencode 1.18.33 sends
//! `99;i=opentui-notifications:p=?;` at start-up (measured).
//!
//! Bounded: at most [`MAX_PENDING`] unfinished notifications (the oldest is
//! dropped for a new one) of at most [`MAX_TEXT_BYTES`] of text each (the rest
//! is dropped), ids cut to [`MAX_ID_BYTES`].

use base64::Engine;

use super::native::BASE64;
use super::osc::{join_bytes, lossy};

/// Unfinished (`d=0`) notifications kept at once.
pub const MAX_PENDING: usize = 8;
/// Title plus body bytes kept per notification.
pub const MAX_TEXT_BYTES: usize = 4096;
/// Bytes of an `i=` id used as its key.
pub const MAX_ID_BYTES: usize = 64;
/// Upper bound of [`KittyAssembler::retained_heap_bytes`].
pub const MAX_RETAINED_BYTES: usize =
    MAX_PENDING * (MAX_ID_BYTES + MAX_TEXT_BYTES + std::mem::size_of::<Pending>());

/// Notifications being assembled from chunks, oldest first.
#[derive(Debug, Default)]
pub(super) struct KittyAssembler {
    pending: Vec<Pending>,
}

#[derive(Debug, Default)]
struct Pending {
    id: Vec<u8>,
    title: Vec<u8>,
    body: Vec<u8>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Payload {
    Title,
    Body,
    /// `?`, `close`, `alive`: a query or control, never a notification.
    Control,
    /// `icon`, `buttons` and unknown types: no text for us, but `d` counts.
    Other,
}

struct Metadata<'a> {
    id: &'a [u8],
    done: bool,
    payload: Payload,
    base64: bool,
}

fn parse_metadata(metadata: &[u8]) -> Metadata<'_> {
    let mut meta = Metadata {
        id: b"",
        done: true,
        payload: Payload::Title,
        base64: false,
    };
    for pair in metadata.split(|b| *b == b':') {
        let Some(eq) = pair.iter().position(|b| *b == b'=') else {
            continue;
        };
        let (key, value) = (&pair[..eq], &pair[eq + 1..]);
        match key {
            b"i" => meta.id = &value[..value.len().min(MAX_ID_BYTES)],
            b"d" => meta.done = value != b"0",
            b"e" => meta.base64 = value == b"1",
            b"p" => {
                meta.payload = match value {
                    b"title" => Payload::Title,
                    b"body" => Payload::Body,
                    b"?" | b"close" | b"alive" => Payload::Control,
                    _ => Payload::Other,
                }
            }
            _ => {}
        }
    }
    meta
}

impl KittyAssembler {
    /// Take one OSC 99 (metadata, then the payload as vte split it). Returns
    /// the notification text when this chunk completes one: the body, or the
    /// title when there is no body.
    pub(super) fn chunk(&mut self, metadata: &[u8], payload: &[&[u8]]) -> Option<String> {
        let meta = parse_metadata(metadata);
        if meta.payload == Payload::Control {
            return None;
        }
        let raw = join_bytes(payload);
        let text = if meta.base64 {
            // A chunk that is not base64 adds nothing; the rest still counts.
            BASE64.decode(&raw).unwrap_or_default()
        } else {
            raw
        };
        let existing = self.pending.iter().position(|p| p.id == meta.id);
        let Some(index) = existing.or_else(|| (!meta.done).then(|| self.insert(meta.id))) else {
            // A whole notification in one chunk: nothing to keep.
            let mut single = Pending::default();
            single.append(meta.payload, &text);
            return single.finish();
        };
        self.pending[index].append(meta.payload, &text);
        if meta.done {
            self.pending.remove(index).finish()
        } else {
            None
        }
    }

    /// Start a pending notification `id` (dropping the oldest when full).
    fn insert(&mut self, id: &[u8]) -> usize {
        if self.pending.len() == MAX_PENDING {
            self.pending.remove(0);
        }
        if self.pending.capacity() == 0 {
            self.pending.reserve_exact(MAX_PENDING);
        }
        self.pending.push(Pending {
            id: id.to_vec(),
            ..Pending::default()
        });
        self.pending.len() - 1
    }

    pub(super) fn pending_count(&self) -> usize {
        self.pending.len()
    }

    /// Heap bytes held: the table and every buffer in it.
    pub(super) fn retained_heap_bytes(&self) -> usize {
        self.pending.capacity() * std::mem::size_of::<Pending>()
            + self
                .pending
                .iter()
                .map(|p| p.id.capacity() + p.title.capacity() + p.body.capacity())
                .sum::<usize>()
    }
}

impl Pending {
    fn append(&mut self, payload: Payload, text: &[u8]) {
        let room = MAX_TEXT_BYTES.saturating_sub(self.title.len() + self.body.len());
        let target = match payload {
            Payload::Title => &mut self.title,
            Payload::Body => &mut self.body,
            Payload::Control | Payload::Other => return,
        };
        let take = &text[..text.len().min(room)];
        // Exact reservations keep capacity equal to length, so the bound on
        // retained bytes holds whatever the allocator's growth policy.
        target.reserve_exact(take.len());
        target.extend_from_slice(take);
    }

    /// The notification text: the body, or the title when there is no body.
    fn finish(self) -> Option<String> {
        let text = if self.body.is_empty() {
            self.title
        } else {
            self.body
        };
        (!text.is_empty()).then(|| lossy(text))
    }
}
