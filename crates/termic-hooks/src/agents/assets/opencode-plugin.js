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
    if (await isSubagent(sessionID)) return;
    const key = sessionID || "";
    if (ended.has(key)) return; // session.status idle and session.idle: one report
    ended.add(key);
    const errorKey = errored.has(key) ? key : errored.has("") ? "" : null;
    if (errorKey === null) {
      emit(WIRE.done, [["hook", hook], ...sessionField(sessionID)]);
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
        case "session.status":
          if (p.status && p.status.type === "idle") await idle(p.sessionID, type);
          else if (p.status && p.status.type === "busy") ended.delete(p.sessionID || "");
          break;
        case "session.idle":
          await idle(p.sessionID, type);
          break;
        default:
          break;
      }
    }),
  };
};
