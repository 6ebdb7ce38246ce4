// termic-sim's stand-in for opencode's plugin runtime. It imports every
// plugin file named on the command line, calls each exported plugin function
// with a context shaped like opencode's, and delivers the hooks and bus
// events it reads as JSON lines on stdin. Plugins run in this process, as
// they do in opencode, and a throw or rejection in one never stops the host.
// Each input line gets one output line: {"ack": id, "errors": [...]}.

import { pathToFileURL } from "node:url";
import readline from "node:readline";

const out = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");
const errors = [];
process.on("uncaughtException", (e) => errors.push("uncaught: " + String(e)));
process.on("unhandledRejection", (e) => errors.push("unhandled: " + String(e)));

// Sessions the "server" knows, for client.session.get.
const sessions = new Map();

// Any client call opencode's SDK offers resolves to { data: undefined },
// except the ones a plugin can use to learn about sessions.
function stub(path) {
  const fn = async () => ({ data: undefined });
  return new Proxy(fn, {
    get: (_t, key) => (key === "then" ? undefined : stub(path + "." + String(key))),
  });
}
const client = new Proxy(
  {
    session: new Proxy(
      {
        get: async (req) => {
          const id = req && req.path && req.path.id;
          return { data: sessions.get(id) };
        },
      },
      { get: (t, k) => (k in t ? t[k] : stub("session." + String(k))) },
    ),
  },
  { get: (t, k) => (k in t ? t[k] : stub(String(k))) },
);
const shell = stub("$");

const directory = process.cwd();
const context = {
  client,
  project: { id: "sim-project", worktree: directory, vcs: "git" },
  directory,
  worktree: directory,
  serverUrl: new URL("http://127.0.0.1:4096"),
  $: shell,
};

const hooks = [];
let loadedPlugins = 0;
for (const file of process.argv.slice(2)) {
  let mod;
  try {
    mod = await import(pathToFileURL(file).href);
  } catch (e) {
    errors.push(`load ${file}: ${e}`);
    continue;
  }
  const seen = new Set();
  for (const fn of Object.values(mod)) {
    if (typeof fn !== "function" || seen.has(fn)) continue;
    seen.add(fn);
    try {
      const h = await fn(context);
      loadedPlugins += 1;
      if (h && typeof h === "object") hooks.push(h);
    } catch (e) {
      errors.push(`init ${file}: ${e}`);
    }
  }
}
out({ ready: true, plugins: loadedPlugins, hooks: hooks.length, errors: errors.splice(0) });

async function call(fn, args) {
  try {
    await fn(...args);
  } catch (e) {
    errors.push(String(e));
  }
}

const lines = readline.createInterface({ input: process.stdin });
for await (const line of lines) {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    continue;
  }
  if (msg.type === "event") {
    const ev = msg.event || {};
    const info = ev.properties && ev.properties.info;
    if ((ev.type === "session.created" || ev.type === "session.updated") && info) sessions.set(info.id, info);
    for (const h of hooks) if (typeof h.event === "function") await call(h.event, [{ event: ev }]);
  } else if (msg.type === "hook") {
    for (const h of hooks) if (typeof h[msg.name] === "function") await call(h[msg.name], [msg.input, msg.output]);
  }
  // Let a plugin's un-awaited work run before acknowledging.
  await new Promise((r) => setImmediate(r));
  out({ ack: msg.id, errors: errors.splice(0) });
}
