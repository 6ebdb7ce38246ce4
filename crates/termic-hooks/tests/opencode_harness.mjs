// Loads termic's opencode plugin the way opencode does (import the module,
// call each exported function with a context, keep the returned hooks) and
// drives it with a fake event bus. Bytes go to $TERMIC_PTY (a real pty the
// Rust test reads); a JSON summary goes to stdout.
//
// usage: node opencode_harness.mjs <plugin.js> <scenario>

import fs from "node:fs";
import { pathToFileURL } from "node:url";

const [pluginPath, scenario] = process.argv.slice(2);
const url = pathToFileURL(pluginPath).href;

const summary = { scenario, threw: [], hookKeys: [], secondHookKeys: null };

async function load(copy, client) {
  const mod = await import(`${url}?copy=${copy}`);
  const hooks = [];
  for (const fn of Object.values(mod)) {
    if (typeof fn !== "function") continue;
    const input = { directory: "/x", worktree: "/x" };
    if (scenario === "throwing-input") {
      // A host whose getters throw (input.client and everything under it).
      Object.defineProperty(input, "client", {
        get() {
          throw new Error("client getter");
        },
      });
    } else {
      input.client = client;
    }
    try {
      hooks.push(await fn(input));
    } catch (e) {
      summary.threw.push(`setup: ${e && e.message}`);
    }
  }
  return hooks;
}

// Calls a hook the way opencode does and records whether anything escaped.
async function call(hooks, name, ...args) {
  for (const h of hooks) {
    if (typeof h[name] !== "function") continue;
    try {
      await h[name](...args);
    } catch (e) {
      summary.threw.push(`${name}: ${e && e.message}`);
    }
  }
}

const ev = (type, properties) => ({ event: { type, properties } });
const created = (id, parentID) => ev("session.created", { info: { id, parentID, title: "t" } });
const status = (sessionID, type) => ev("session.status", { sessionID, status: { type } });

async function main() {
  let client = {};
  if (scenario === "subagent-via-client" || scenario === "throwing-write") {
    client = {
      session: {
        get: async ({ path }) => {
          if (scenario === "throwing-write") throw new Error("client down");
          return { data: { id: path.id, parentID: path.id === "child" ? "root" : undefined } };
        },
      },
    };
  }
  if (scenario === "throwing-write") {
    fs.writeSync = () => {
      throw new Error("write failed");
    };
  }
  const hooks = await load(1, client);
  summary.hookKeys = Object.keys(hooks[0] || {}).sort();

  switch (scenario) {
    case "map":
    case "throwing-input":
    case "no-task-id":
    case "throwing-write": {
      await call(hooks, "event", created("root"));
      await call(hooks, "chat.message", { sessionID: "root" }, { message: {}, parts: [] });
      await call(hooks, "event", status("root", "busy"));
      await call(hooks, "event", ev("permission.asked", { id: "p1", sessionID: "root", permission: "edit" }));
      await call(hooks, "event", ev("permission.replied", { sessionID: "root", requestID: "p1", reply: "once" }));
      await call(hooks, "event", ev("permission.updated", { id: "p2", sessionID: "root" }));
      await call(hooks, "event", status("root", "idle"));
      await call(hooks, "event", ev("session.idle", { sessionID: "root" }));
      await call(hooks, "chat.message", { sessionID: "root" }, { message: {}, parts: [] });
      await call(hooks, "event", ev("session.idle", { sessionID: "root" }));
      // Malformed input must not throw either.
      await call(hooks, "event", { event: null });
      await call(hooks, "event", {});
      await call(hooks, "event", ev("session.status", undefined));
      await call(hooks, "chat.message", undefined, undefined);
      break;
    }
    case "subagent": {
      await call(hooks, "event", created("root"));
      await call(hooks, "chat.message", { sessionID: "root" });
      await call(hooks, "event", created("child", "root"));
      await call(hooks, "chat.message", { sessionID: "child" });
      await call(hooks, "event", ev("session.error", { sessionID: "child", error: { name: "x" } }));
      await call(hooks, "event", status("child", "idle"));
      await call(hooks, "event", ev("session.idle", { sessionID: "child" }));
      await call(hooks, "event", ev("session.idle", { sessionID: "root" }));
      break;
    }
    case "subagent-via-client": {
      // No session.created seen: the plugin asks the client for the parent.
      await call(hooks, "chat.message", { sessionID: "root" });
      await call(hooks, "event", ev("session.idle", { sessionID: "child" }));
      await call(hooks, "event", ev("session.idle", { sessionID: "root" }));
      break;
    }
    case "error-then-idle": {
      await call(hooks, "event", created("root"));
      await call(hooks, "chat.message", { sessionID: "root" });
      await call(hooks, "event", ev("session.error", { sessionID: "root", error: { name: "MessageAbortedError" } }));
      await call(hooks, "event", ev("session.idle", { sessionID: "root" }));
      await call(hooks, "event", status("root", "idle"));
      await call(hooks, "chat.message", { sessionID: "root" });
      await call(hooks, "event", ev("session.idle", { sessionID: "root" }));
      break;
    }
    case "api-error-then-idle": {
      // Measured opencode 1.18.33 on a 429: retries, then session.error
      // APIError, status idle, session.idle.
      await call(hooks, "event", created("root"));
      await call(hooks, "chat.message", { sessionID: "root" });
      const apiError = (statusCode) => ({ name: "APIError", data: { message: "x", statusCode, isRetryable: true } });
      await call(hooks, "event", ev("session.error", { sessionID: "root", error: apiError(429) }));
      await call(hooks, "event", status("root", "idle"));
      await call(hooks, "event", ev("session.idle", { sessionID: "root" }));
      await call(hooks, "chat.message", { sessionID: "root" });
      await call(hooks, "event", ev("session.error", { sessionID: "root", error: apiError(401) }));
      await call(hooks, "event", ev("session.idle", { sessionID: "root" }));
      await call(hooks, "chat.message", { sessionID: "root" });
      await call(hooks, "event", ev("session.error", { sessionID: "root", error: apiError(503) }));
      await call(hooks, "event", ev("session.idle", { sessionID: "root" }));
      break;
    }
    case "limit-retry": {
      // Measured opencode 1.18.33 on a 429 with retry-after 3600: one
      // `retry` status whose `next` is an hour away, busy when it sends
      // again, idle at the end. A short backoff is not a limit.
      await call(hooks, "event", created("root"));
      await call(hooks, "event", created("child", "root"));
      await call(hooks, "chat.message", { sessionID: "root" });
      const retry = (sessionID, next) => ev("session.status", { sessionID, status: { type: "retry", attempt: 1, message: "Usage limit reached", next } });
      await call(hooks, "event", retry("root", Date.now() + 2000));
      await call(hooks, "event", retry("root", "soon"));
      await call(hooks, "event", retry("root", Date.now() + 3 * 86400000));
      await call(hooks, "event", retry("child", Date.now() + 3600000));
      summary.next = Date.now() + 3600000;
      await call(hooks, "event", retry("root", summary.next));
      await call(hooks, "event", status("root", "busy"));
      await call(hooks, "event", status("root", "busy"));
      await call(hooks, "event", status("root", "idle"));
      // The next turn hits the limit again and the wait is stopped
      // (Escape twice): idle with no send and no session.error.
      await call(hooks, "chat.message", { sessionID: "root" });
      await call(hooks, "event", retry("root", summary.next));
      await call(hooks, "event", status("root", "idle"));
      await call(hooks, "event", ev("session.idle", { sessionID: "root" }));
      break;
    }
    case "double-load": {
      const second = await load(2, client);
      summary.secondHookKeys = Object.keys(second[0] || {}).sort();
      const both = hooks.concat(second);
      await call(both, "event", created("root"));
      await call(both, "chat.message", { sessionID: "root" });
      await call(both, "event", ev("permission.asked", { id: "p1", sessionID: "root" }));
      await call(both, "event", ev("session.idle", { sessionID: "root" }));
      break;
    }
    case "session-ids": {
      // Ids the wire refuses are left out; the turn is still reported.
      for (const id of ["ses_4f2a.b:9", "-rf", "a;b", "a b", "x".repeat(129), 42]) {
        await call(hooks, "chat.message", { sessionID: id });
        await call(hooks, "event", ev("session.idle", { sessionID: id }));
      }
      break;
    }
    case "last-message": {
      // As opencode 1.18.33 sent them (measured 2026-12-06): the user's
      // message and its text part, the assistant's message, then its text
      // part growing (empty first), a step-finish part, idle.
      const message = (id, role, sessionID = "root") => ev("message.updated", { sessionID, info: { id, role, sessionID } });
      const part = (messageID, text, sessionID = "root", type = "text") =>
        ev("message.part.updated", { sessionID, part: { id: `p-${messageID}`, messageID, sessionID, type, text } });
      const turn = async (user, assistant, texts, sessionID = "root") => {
        await call(hooks, "chat.message", { sessionID });
        await call(hooks, "event", message(user, "user", sessionID));
        await call(hooks, "event", part(user, "the user's prompt", sessionID));
        await call(hooks, "event", message(assistant, "assistant", sessionID));
        for (const text of texts) await call(hooks, "event", part(assistant, text, sessionID));
        await call(hooks, "event", part(assistant, undefined, sessionID, "step-finish"));
      };
      await call(hooks, "event", created("root"));
      await call(hooks, "event", created("child", "root"));
      // 1: the last text, escaped, a line break as a space, ESC dropped.
      await turn("u1", "a1", ["", "Hello fro", 'Hello; "fake" 100%\nmodel\\ \u001b[31mdone\u0085.']);
      await call(hooks, "event", status("root", "idle"));
      await call(hooks, "event", ev("session.idle", { sessionID: "root" }));
      // 2: cut to 300 bytes of UTF-8, on a character boundary.
      await turn("u2", "a2", ["a" + "\u00e9".repeat(200)]);
      await call(hooks, "event", ev("session.idle", { sessionID: "root" }));
      // 3: never inside an escape.
      await turn("u3", "a3", ["x".repeat(298) + ";;"]);
      await call(hooks, "event", ev("session.idle", { sessionID: "root" }));
      // 4: no text this turn (a tool only): no message, not the last turn's;
      // a subagent's text is not the root's; a text part of a message
      // whose role was never seen is not taken.
      await turn("u4", "a4", []);
      await turn("cu", "ca", ["the subagent's answer"], "child");
      await call(hooks, "event", ev("session.idle", { sessionID: "child" }));
      await call(hooks, "event", part("unknown", "who said this"));
      await call(hooks, "event", ev("session.idle", { sessionID: "root" }));
      // 5: only blanks say nothing; 6: a text then an error is no done.
      await turn("u5", "a5", ["  \n "]);
      await call(hooks, "event", ev("session.idle", { sessionID: "root" }));
      await turn("u6", "a6", ["half an answer"]);
      await call(hooks, "event", ev("session.error", { sessionID: "root", error: { name: "MessageAbortedError" } }));
      await call(hooks, "event", ev("session.idle", { sessionID: "root" }));
      break;
    }
    default:
      throw new Error(`unknown scenario ${scenario}`);
  }
  process.stdout.write(JSON.stringify(summary));
}

main();
