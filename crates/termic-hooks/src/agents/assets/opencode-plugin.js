// The body of termic's opencode plugin; `opencode.rs` prepends the header
// and the WIRE constants generated from termic_signal::wire.
//
// It runs IN-PROCESS inside opencode, with no timeout and no exit code, so
// every handler is wrapped on its own: a throw here must never reach
// opencode (in tool.execute.before it would block the tool).

import fs from "node:fs";

const GUARD = Symbol.for("termic.opencode.plugin");
const TASK_ID = /^[A-Za-z0-9-]+$/;

function taskId() {
  const id = process.env.TERMIC_TASK_ID;
  if (typeof id !== "string" || id.length > WIRE.maxTaskIdLen || !TASK_ID.test(id)) return null;
  return id;
}

// Opens $TERMIC_PTY by name (the controlling terminal is not the route),
// writes one sequence, closes it. The open can neither create nor truncate
// (no O_CREAT, no O_TRUNC), follows no symlink at the last component
// (O_NOFOLLOW), never blocks (O_NONBLOCK: a FIFO, a full pty) and takes no
// controlling terminal (O_NOCTTY); then the OPENED file must be a character
// device, so a path swapped after any check (a regular file, a FIFO) is
// never written. Every error is swallowed.
function emit(event, fields) {
  try {
    const id = taskId();
    const pty = process.env.TERMIC_PTY;
    if (!id || !pty) return;
    let body = `${WIRE.prefix};${event};${id}`;
    for (const [key, value] of fields) body += `;${key}=${value}`;
    const c = fs.constants;
    const flags = c.O_WRONLY | (c.O_NOCTTY || 0) | (c.O_NONBLOCK || 0) | (c.O_NOFOLLOW || 0);
    const fd = fs.openSync(pty, flags);
    try {
      if (fs.fstatSync(fd).isCharacterDevice()) fs.writeSync(fd, `\u001b]${body}\u0007`);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // Reporting is best effort; opencode must never see our failure.
  }
}

// The root session's id as the wire's `session=` field (a restore runs
// `opencode --session ID`); none for an id the wire would refuse.
const SESSION_ID = /^[A-Za-z0-9._:][A-Za-z0-9._:-]*$/;
function sessionField(sessionID) {
  if (typeof sessionID !== "string" || sessionID.length > WIRE.maxFieldLen) return [];
  return SESSION_ID.test(sessionID) ? [[WIRE.session, sessionID]] : [];
}

// The assistant's last text of a turn goes with its done as the wire's
// `message=` (opencode 1.18.33, measured 2026-12-06 with termic-fakemodel:
// `message.updated` names a message's role before any of its parts, and
// each `message.part.updated` of a text part carries its whole text so
// far). Kept in memory only, bounded: the roles of the last MAX_KEPT
// messages, one text per session for at most MAX_KEPT sessions, each cut
// to MAX_KEPT_CHARS; a session's text is dropped at its idle and at its
// next turn.
const MAX_KEPT = 16;
const MAX_KEPT_CHARS = 4 * WIRE.maxTextLen;

function keep(map, key, value) {
  map.delete(key);
  map.set(key, value);
  while (map.size > MAX_KEPT) map.delete(map.keys().next().value);
}

function utf8Len(code) {
  if (code < 0x80) return 1;
  if (code < 0x800) return 2;
  return code < 0x10000 ? 3 : 4;
}

// `text` as the wire's one free-text value, as the hook scripts make it:
// `%`, `;`, `"` and `\` as %XX (upper-case hex); a line break or tab as a
// space; any other control character (C0, DEL, C1) dropped; cut to
// WIRE.maxTextLen bytes of UTF-8 on a character boundary, never inside an
// escape. None for a text with nothing to show.
function messageField(text) {
  if (typeof text !== "string") return [];
  const whole = typeof text.toWellFormed === "function" ? text.toWellFormed() : text;
  let out = "";
  let bytes = 0;
  for (const ch of whole) {
    const code = ch.codePointAt(0);
    let piece = ch;
    if (WIRE.textEscaped.includes(ch)) piece = `%${code.toString(16).toUpperCase().padStart(2, "0")}`;
    else if (ch === "\n" || ch === "\r" || ch === "\t") piece = " ";
    else if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) continue;
    const len = piece === ch ? utf8Len(code) : piece.length; // an escape or a space is ASCII
    if (bytes + len > WIRE.maxTextLen) break;
    out += piece;
    bytes += len;
  }
  return out.trim() ? [[WIRE.message, out]] : [];
}

function guarded(fn) {
  return async (...args) => {
    try {
      await fn(...args);
    } catch {
      // Swallowed on purpose, see the top of the file.
    }
  };
}

// What a session.error means. opencode 1.18.33 (measured with
// termic-fakemodel): an API failure it gave up on is `{name: "APIError",
// data: {statusCode, message, isRetryable}}` (after 5 retries over ~100 s
// for 429/5xx); an Escape is MessageAbortedError. null: not an API error.
function stopReason(error) {
  const name = error && error.name;
  if (name === "ProviderAuthError") return WIRE.reasons.auth;
  if (name !== "APIError") return null;
  const status = Number(error.data && error.data.statusCode);
  if (status === 429) return WIRE.reasons.rateLimited;
  if (status === 529) return WIRE.reasons.overloaded;
  if (status === 401 || status === 403) return WIRE.reasons.auth;
  if (status >= 500 && status <= 599) return WIRE.reasons.server;
  return WIRE.reasons.other;
}

// A retry opencode waits out for longer than this is a limit, not a
// hiccup: opencode 1.18.33 honours a 429's retry-after (3600 s measured
// with termic-fakemodel's usage-limit reply: `session.status {type:
// "retry", attempt, message, next}`, `next` in Unix ms) and backs off a
// few seconds between its retries of a plain 429 or 5xx.
const LIMIT_WAIT_MS = 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

// The local `HH:MM` at which a retry due at `next` (Unix ms) goes on,
// rounded up to the minute; null for a short or unreadable wait.
function limitUntil(next, now) {
  if (typeof next !== "number" || !Number.isFinite(next)) return null;
  const wait = next - now;
  if (wait < LIMIT_WAIT_MS || wait > DAY_MS) return null;
  const at = new Date(Math.ceil(next / 60000) * 60000);
  const two = (n) => String(n).padStart(2, "0");
  return `${two(at.getHours())}:${two(at.getMinutes())}`;
}

function withTimeout(promise, ms) {
  return Promise.race([promise, new Promise((resolve) => setTimeout(resolve, ms, undefined))]);
}

export const TermicPlugin = async (input) => {
  // Loaded twice (plugin/ and plugins/, or two copies): register once.
  if (globalThis[GUARD]) return {};
  globalThis[GUARD] = true;
  if (!taskId()) return {};

  // A host whose input getters throw must not break opencode's start-up.
  let client = null;
  try {
    client = input && input.client;
  } catch {
    client = null;
  }
  const parentOf = new Map(); // sessionID -> parentID ("" for a root session)
  // sessions whose turn ended in session.error -> the stop reason's wire
  // token for an API error, or null for anything else (an abort: Escape)
  const errored = new Map();
  const ended = new Set(); // root sessions already reported done/interrupted this turn
  const limited = new Set(); // root sessions reported rate limited while opencode waits
  const roles = new Map(); // messageID -> "user" | "assistant" (the last MAX_KEPT)
  const said = new Map(); // sessionID -> its assistant's last text this turn

  async function isSubagent(sessionID) {
    if (!sessionID) return false;
    if (!parentOf.has(sessionID) && client) {
      try {
        // Inside the try: client.session itself may be a throwing getter.
        if (!client.session || !client.session.get) return false;
        const res = await withTimeout(client.session.get({ path: { id: sessionID } }), 500);
        const info = res && (res.data || res);
        if (info && typeof info === "object") parentOf.set(sessionID, info.parentID || "");
      } catch {
        // Unknown: treat as a root session.
      }
    }
    return Boolean(parentOf.get(sessionID));
  }

  function remember(info) {
    if (info && typeof info.id === "string") parentOf.set(info.id, info.parentID || "");
  }

  async function idle(sessionID, hook) {
    const key = sessionID || "";
    const text = said.get(key);
    said.delete(key);
    if (await isSubagent(sessionID)) return;
    // Idle while it waited out a limit, with no send after the wait: the
    // wait was stopped (opencode 1.18.33: a second Escape, then idle with
    // no session.error; measured 2026-12-06).
    const waitStopped = limited.delete(key);
    if (ended.has(key)) return; // session.status idle and session.idle: one report
    ended.add(key);
    const errorKey = errored.has(key) ? key : errored.has("") ? "" : null;
    if (errorKey === null) {
      if (waitStopped) emit(WIRE.interrupted, [["hook", hook]]);
      else emit(WIRE.done, [["hook", hook], ...sessionField(sessionID), ...messageField(text)]);
      return;
    }
    const reason = errored.get(errorKey);
    errored.delete(errorKey);
    if (reason) emit(WIRE.error, [["hook", hook], ["reason", reason]]);
    else emit(WIRE.interrupted, [["hook", hook]]);
  }

  return {
    "chat.message": guarded(async (msg) => {
      if (!msg || typeof msg !== "object") return;
      const sessionID = msg.sessionID || "";
      if (await isSubagent(sessionID)) return;
      ended.delete(sessionID);
      errored.delete(sessionID);
      said.delete(sessionID);
      emit(WIRE.working, [["hook", "chat.message"], ...sessionField(sessionID)]);
    }),
    event: guarded(async ({ event }) => {
      const type = event && event.type;
      const p = (event && event.properties) || {};
      switch (type) {
        case "session.created":
        case "session.updated":
          remember(p.info);
          break;
        case "message.updated": {
          const info = p.info;
          if (info && typeof info.id === "string" && typeof info.role === "string") keep(roles, info.id, info.role);
          break;
        }
        case "message.part.updated": {
          const part = p.part;
          if (!part || part.type !== "text" || typeof part.text !== "string") break;
          if (part.synthetic || part.ignored || roles.get(part.messageID) !== "assistant") break;
          if (part.text.trim()) keep(said, part.sessionID || "", part.text.slice(0, MAX_KEPT_CHARS));
          break;
        }
        case "permission.asked":
        case "permission.updated":
          emit(WIRE.attention, [["hook", type], ["kind", "permission"]]);
          break;
        case "permission.replied":
          emit(WIRE.released, [["hook", type]]);
          break;
        case "session.error":
          if (!(await isSubagent(p.sessionID))) errored.set(p.sessionID || "", stopReason(p.error));
          break;
        case "session.status": {
          const kind = p.status && p.status.type;
          const key = p.sessionID || "";
          if (kind === "idle") {
            await idle(p.sessionID, type);
          } else if (kind === "busy") {
            ended.delete(key);
            // The wait is over and opencode sends the turn again.
            if (limited.delete(key)) emit(WIRE.working, [["hook", type], ...sessionField(p.sessionID)]);
          } else if (kind === "retry") {
            const until = limitUntil(p.status.next, Date.now());
            if (until && !(await isSubagent(p.sessionID))) {
              limited.add(key);
              emit(WIRE.error, [["hook", type], ["reason", WIRE.reasons.rateLimited], [WIRE.until, until]]);
            }
          }
          break;
        }
        case "session.idle":
          await idle(p.sessionID, type);
          break;
        default:
          break;
      }
    }),
  };
};
