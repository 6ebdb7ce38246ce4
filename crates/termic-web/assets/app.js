// The page: the task list (one WebSocket, `subscribe`) and one task's
// screen (another, `view`). Everything a task or the server says goes into
// the page as text (textContent), never as markup.
"use strict";
(function () {
  const $ = function (id) { return document.getElementById(id); };
  const wsUrl = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws";
  const ORDER = { needs_you: 0, working: 1, idle: 2, done: 3, rate_limited: 3, error: 3,
    interrupted: 4, exited: 5 };
  const LABEL = { needs_you: "needs you", working: "working", idle: "idle", done: "done",
    rate_limited: "rate limited", error: "error", interrupted: "interrupted", exited: "exited" };
  // An error's reason (protocol 10) by its wire name; any other name (a
  // newer or hostile host's) is never shown: the row says a plain error.
  const REASON = new Map([["rate_limited", "rate limited"], ["overloaded", "overloaded"],
    ["server_error", "server error"], ["auth_failed", "auth failed"], ["api_error", "API error"]]);
  // "rate limited until 15:00" when the agent named its reset (protocol 7),
  // "error: auth failed" when its server named why (protocol 10).
  function stateLabel(row) {
    const label = LABEL[row.state] || clean(row.state);
    if (row.state === "rate_limited" && typeof row.until === "string" && /^\d{1,2}:\d{2}$/.test(row.until)) {
      return label + " until " + row.until;
    }
    if (row.state === "error" && REASON.has(row.reason)) {
      return label + ": " + REASON.get(row.reason);
    }
    return label;
  }
  let device = null;
  // The page's half of the device credential (pair.js keeps it); the
  // cookie is the other half. Sent as a header, and on a WebSocket (which
  // takes no header) as a protocol the server does not echo.
  const KEY = localStorage.getItem("termic_key") || "";
  const AUTH = { "X-Termic-Key": KEY };
  function openSocket() { return new WebSocket(wsUrl, ["termic", "key." + KEY]); }
  const tasks = new Map();
  let listSocket = null;
  let view = null; // { id, socket, term, fit }
  // This device's notification choices ({ muted: [task], needs_you_only }),
  // null while it has no push subscription.
  let choices = null;

  // Control and bidi characters out of text a task chose (names, agents).
  function clean(s) {
    return String(s).replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, "");
  }

  function setConn(text) { $("conn").textContent = text; }

  function notice(text) {
    const n = $("notice");
    n.textContent = text;
    n.hidden = !text;
  }

  // The remote hosts' tasks (the `hosts` stream): [{ name, link, reason,
  // down_since, now, tasks }], in config order, shown after this computer.
  let hosts = [];
  let hostsSocket = null;

  function byNeed(a, b) {
    const d = (ORDER[a.state] ?? 9) - (ORDER[b.state] ?? 9);
    return d !== 0 ? d : a.id - b.id;
  }

  // One task's line: its number, name, agent and badge, and under it what
  // it asks. `host` is undefined for a task of this computer.
  function taskItem(row, host) {
    const li = document.createElement("li");
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.task = String(row.id);
    if (host !== undefined) b.dataset.host = host;
    const num = document.createElement("span");
    num.className = "num";
    num.textContent = String(row.id);
    const name = document.createElement("span");
    name.className = "name";
    name.textContent = clean(row.name);
    const agent = document.createElement("span");
    agent.className = "agent";
    agent.textContent = clean(row.agent);
    const badge = document.createElement("span");
    badge.className = "badge " + (ORDER[row.state] !== undefined ? row.state : "");
    badge.textContent = stateLabel(row);
    b.append(num, name, agent, badge);
    b.addEventListener("click", function () { openTask(row.id, host); });
    li.appendChild(b);
    const mute = muteButton(row.id, host);
    if (mute) li.appendChild(mute);
    const ask = askBlock(row, host);
    if (ask) li.appendChild(ask);
    const away = awayBlock(row);
    if (away) li.appendChild(away);
    return li;
  }

  // What a host's link says when it is not connected.
  function hostStatus(h) {
    if (h.link === "connecting") return "connecting";
    if (h.link !== "down") return "";
    if (h.reason && !h.tasks.length) return "unreachable: " + clean(h.reason);
    if (h.down_since) {
      const t = new Date(h.down_since);
      const hh = String(t.getHours()).padStart(2, "0");
      const mm = String(t.getMinutes()).padStart(2, "0");
      return "disconnected since " + hh + ":" + mm;
    }
    return "disconnected";
  }

  function renderList() {
    const list = $("list");
    list.replaceChildren();
    const rows = Array.from(tasks.values()).sort(byNeed);
    const h = document.createElement("h2");
    h.textContent = "This computer";
    list.appendChild(h);
    if (rows.length === 0) {
      const p = document.createElement("p");
      p.className = "notice";
      p.textContent = "No tasks. Start one with termic run.";
      list.appendChild(p);
    } else {
      const ul = document.createElement("ul");
      for (const row of rows) ul.appendChild(taskItem(row));
      list.appendChild(ul);
    }
    let waiting = rows.filter(function (r) { return r.state === "needs_you"; }).length;
    for (const host of hosts) {
      const section = document.createElement("div");
      section.className = "host";
      section.dataset.host = host.name;
      const hh = document.createElement("h2");
      hh.textContent = "@" + clean(host.name);
      const status = hostStatus(host);
      if (status) {
        const s = document.createElement("span");
        s.className = "host-status";
        s.textContent = status;
        hh.appendChild(s);
      }
      section.appendChild(hh);
      const remote = host.tasks.slice().sort(byNeed);
      waiting += remote.filter(function (r) { return r.state === "needs_you"; }).length;
      if (remote.length) {
        const ul = document.createElement("ul");
        for (const row of remote) ul.appendChild(taskItem(row, host.name));
        section.appendChild(ul);
      }
      list.appendChild(section);
    }
    document.title = waiting ? "(" + waiting + ") termic" : "termic";
  }

  // `host`: a remote host's task, muted as HOST:NUMBER.
  function isMuted(id, host) {
    if (!choices) return false;
    if (host === undefined) return choices.muted.indexOf(Number(id)) >= 0;
    return choices.muted_remote.indexOf(host + ":" + Number(id)) >= 0;
  }
  function muteChoice(id, host) {
    const c = { task: Number(id), muted: !isMuted(id, host) };
    if (host !== undefined) c.host = host;
    return c;
  }
  // A task's mute toggle: only with a push subscription, never read-only.
  function muteButton(id, host) {
    if (!choices || (device && device.read_only)) return null;
    const m = document.createElement("button");
    m.type = "button";
    m.className = "mute";
    m.dataset.mute = String(id);
    if (host !== undefined) m.dataset.host = host;
    m.textContent = isMuted(id, host) ? "Unmute" : "Mute";
    m.setAttribute("aria-pressed", isMuted(id, host) ? "true" : "false");
    m.addEventListener("click", function () { setChoices(muteChoice(id, host)); });
    return m;
  }
  function renderChoices() {
    const ro = !!(device && device.read_only);
    $("only").hidden = !choices || ro;
    $("only-box").checked = !!(choices && choices.needs_you_only);
    const m = $("mute");
    m.hidden = !choices || ro || !view;
    if (view) {
      m.textContent = isMuted(view.id, view.host) ? "Unmute" : "Mute";
      m.setAttribute("aria-pressed", isMuted(view.id, view.host) ? "true" : "false");
    }
  }
  // Sends this device's choice ({} only reads them) and shows what is now.
  function setChoices(body) {
    return fetch("/api/push/choices", {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-Termic-Key": KEY },
      body: JSON.stringify(body),
    })
      .then(function (r) {
        if (!r.ok) throw new Error("The notification choice could not be saved.");
        return r.json();
      })
      .then(function (a) {
        const c = a && a.choices;
        choices = c ? { muted: Array.isArray(c.muted) ? c.muted.map(Number) : [],
          muted_remote: Array.isArray(c.muted_remote) ? c.muted_remote.map(String) : [],
          needs_you_only: !!c.needs_you_only } : null;
        renderList();
        renderChoices();
      })
      .catch(function (e) { notice(String(e.message || e)); });
  }
  $("only-box").addEventListener("change", function () {
    setChoices({ needs_you_only: $("only-box").checked });
  });
  $("mute").addEventListener("click", function () {
    if (view) setChoices(muteChoice(view.id, view.host));
  });

  const KIND = { permission: "It asks permission.", question: "It asks a question.",
    plan: "It asks you to approve a plan." };
  const OUTCOME = {
    screen_changed: "The screen changed, nothing was sent.",
    not_needed: "It no longer needs you, nothing was sent.",
    unknown_choice: "That answer is no longer offered, nothing was sent.",
    partly_sent: "Only the first step was sent: its confirmation did not show as expected. Answer it on the screen.",
  };
  const lastOutcome = new Map(); // task key -> text of the last answer's outcome
  // A task's key: its number here, HOST:NUMBER for a remote host's.
  function outcomeKey(id, host) { return host === undefined ? String(id) : host + ":" + id; }

  // What a task that needs you is asked, and one button per choice its
  // agent's dialog offers (none when termic cannot know them).
  function askBlock(row, host) {
    if (row.state !== "needs_you") return null;
    const div = document.createElement("div");
    div.className = "ask";
    const p = document.createElement("p");
    p.className = "question";
    const a = row.attention || {};
    p.textContent = a.message ? clean(a.message) : (KIND[a.kind] || "It needs you.");
    div.appendChild(p);
    const choices = Array.isArray(row.choices) ? row.choices : [];
    if (choices.length && !(device && device.read_only)) {
      const bar = document.createElement("div");
      bar.className = "choices";
      for (const c of choices) {
        const b = document.createElement("button");
        b.type = "button";
        b.className = "choice";
        b.dataset.choice = String(c.id);
        b.textContent = clean(c.label);
        // A multi-select box (Claude's `toggle_N`): its label starts with
        // the box as painted, ticked or not.
        if (/^toggle_\d$/.test(String(c.id))) {
          b.setAttribute("aria-pressed", String(b.textContent).indexOf("[✔]") === 0 ? "true" : "false");
        }
        b.addEventListener("click", function () { answer(row.id, String(c.id), undefined, host); });
        bar.appendChild(b);
      }
      div.appendChild(bar);
    } else if (!(device && device.read_only)) {
      // termic cannot know this dialog's keys (a prose question, a
      // multi-select list, an agent whose choices it has not measured).
      const n = document.createElement("p");
      n.className = "no-choices";
      n.textContent = "No one-tap answer for this one: answer it on the screen.";
      div.appendChild(n);
    }
    const said = lastOutcome.get(outcomeKey(row.id, host));
    if (said) {
      const o = document.createElement("p");
      o.className = "outcome";
      o.textContent = said;
      div.appendChild(o);
    }
    return div;
  }

  // What a task did while no terminal was attached (the row's `away`,
  // protocol 7): its states with their times, what its last done
  // changed, and its agent's last message. Text only (textContent),
  // cleaned.
  function hhmm(ms) {
    const d = new Date(Number(ms));
    return String(d.getHours()).padStart(2, "0") + ":" + String(d.getMinutes()).padStart(2, "0");
  }
  function awayBlock(row) {
    const a = row.away;
    if (!a || !Array.isArray(a.changes) || a.changes.length === 0) return null;
    const div = document.createElement("div");
    div.className = "away";
    const h = document.createElement("p");
    h.className = "away-title";
    h.textContent = "While you were away";
    div.appendChild(h);
    const states = document.createElement("p");
    states.className = "away-states";
    const parts = a.changes.map(function (c) { return clean(c.state) + " " + hhmm(c.at); });
    if (Number(a.more) > 0) parts.unshift("...");
    states.textContent = parts.join(", ");
    div.appendChild(states);
    if (a.stat) {
      const stat = document.createElement("p");
      stat.className = "away-stat";
      stat.textContent = "Changed " + clean(a.stat);
      div.appendChild(stat);
    }
    if (a.message) {
      const said = document.createElement("p");
      said.className = "away-message";
      said.textContent = "Said: " + clean(a.message);
      div.appendChild(said);
    }
    return div;
  }

  // A notification's tap (sw.js): open that task and, for an action,
  // send that answer; the server sends its keys only if the dialog still
  // offers it, so a stale action sends nothing and says so.
  const ACTIONS = ["approve_once", "deny"];
  let pendingOpen = null; // { task, host, answer } until its list arrives
  // A host's name as config.toml spells it.
  const HOST_NAME = /^[A-Za-z0-9_-]{1,64}$/;
  // `#task=N` (this computer's task) or `#task=HOST:N` (a remote host's).
  function fromFragment(hash) {
    const p = new URLSearchParams(String(hash || "").replace(/^#/, ""));
    if (!p.has("task")) return null;
    let raw = String(p.get("task"));
    let host;
    const colon = raw.lastIndexOf(":");
    if (colon >= 0) {
      host = raw.slice(0, colon);
      raw = raw.slice(colon + 1);
      if (!HOST_NAME.test(host)) return null;
    }
    if (!/^\d{1,15}$/.test(raw)) return null;
    const a = p.get("answer");
    return { task: Number(raw), host: host, answer: ACTIONS.indexOf(a) >= 0 ? a : null };
  }
  function openFromNotification(task, choice, host) {
    if (!rowOf(task, host)) { notice("That task is gone."); return; }
    openTask(task, host);
    if (!choice) return;
    if (device && device.read_only) {
      status("This device is read-only: it cannot answer.");
      return;
    }
    answer(task, choice, function (text) { status(text || "Sent."); }, host);
  }
  // Open what a notification asked for once its list is here: this
  // computer's tasks, or its host's (which may still be connecting).
  function openWhenListed(want) {
    if (want.host === undefined) {
      if (listSocket && tasks.size) return openFromNotification(want.task, want.answer);
    } else {
      const h = hosts.find(function (x) { return x.name === want.host; });
      if (h && (rowOf(want.task, want.host) || h.link === "connected")) {
        return openFromNotification(want.task, want.answer, want.host);
      }
    }
    pendingOpen = want;
  }
  // The list a pending open waits for came: try again.
  function retryPending() {
    if (!pendingOpen) return;
    const p = pendingOpen;
    pendingOpen = null;
    setTimeout(function () { openWhenListed(p); }, 0);
  }
  function takeFragment() {
    const want = fromFragment(location.hash);
    // Gone from the address at once: a reload never answers again.
    if (location.hash) history.replaceState(null, "", location.pathname);
    if (want) openWhenListed(want);
  }
  if ("serviceWorker" in navigator) {
    navigator.serviceWorker.addEventListener("message", function (e) {
      const m = e.data || {};
      if (m.termic !== "open" || !Number.isSafeInteger(m.task)) return;
      const host = typeof m.host === "string" && HOST_NAME.test(m.host) ? m.host : undefined;
      openWhenListed({ task: m.task, host: host, answer: ACTIONS.indexOf(m.answer) >= 0 ? m.answer : null });
    });
  }
  window.addEventListener("hashchange", takeFragment);

  // One tap: `answer` on a WebSocket of its own; the server sends the
  // choice's keys only if the dialog still shows it. `told`, when given,
  // hears the outcome's text ("" when sent).
  // `host`: a remote host's name; its server gets the answer as `termic
  // answer HOST:TASK CHOICE` sends it.
  function answer(id, choice, told, host) {
    const s = openSocket();
    let done = false;
    const key = outcomeKey(id, host);
    s.onopen = function () {
      const a = { task: String(id), choice: choice };
      if (host !== undefined) a.host = host;
      s.send(JSON.stringify({ answer: a }));
    };
    s.onmessage = function (e) {
      let m;
      try { m = JSON.parse(e.data); } catch (_) { return; }
      done = true;
      let text = "";
      if (m.answered === "sent") text = "";
      else if (m.answered) text = OUTCOME[m.answered] || "Nothing was sent.";
      else if (m.error) text = clean(m.error.message);
      if (text) lastOutcome.set(key, text); else lastOutcome.delete(key);
      renderList();
      renderAsk();
      if (told) told(text);
    };
    s.onclose = function () {
      if (!done) {
        lastOutcome.set(key, "The answer could not be sent.");
        renderList();
        renderAsk();
        if (told) told("The answer could not be sent.");
      }
    };
  }

  // The open task's question and choices, above its screen.
  // A task's row: this computer's (`host` undefined) or a host's.
  function rowOf(id, host) {
    if (host === undefined) return tasks.get(id);
    const h = hosts.find(function (x) { return x.name === host; });
    return h ? h.tasks.find(function (r) { return r.id === id; }) : undefined;
  }

  function renderAsk() {
    const holder = $("ask");
    holder.replaceChildren();
    if (!view) return;
    const row = rowOf(view.id, view.host);
    const block = row ? askBlock(row, view.host) : null;
    if (block) holder.appendChild(block);
    // The screen's room changed: fit it again.
    requestAnimationFrame(refit);
  }

  function connectList() {
    const s = openSocket();
    listSocket = s;
    s.onopen = function () { s.send(JSON.stringify("subscribe")); setConn(""); };
    s.onmessage = function (e) {
      if (typeof e.data !== "string") return;
      let m;
      try { m = JSON.parse(e.data); } catch (_) { return; }
      if (m.subscribed) {
        tasks.clear();
        for (const row of m.subscribed.tasks) tasks.set(row.id, row);
        if (pendingOpen && pendingOpen.host === undefined) retryPending();
      } else if (m.task) {
        const old = tasks.get(m.task.id);
        if (!old || old.state !== m.task.state) lastOutcome.delete(outcomeKey(m.task.id));
        tasks.set(m.task.id, m.task);
      } else if (m.task_removed) {
        tasks.delete(m.task_removed.id);
      } else if (m.error) {
        notice(clean(m.error.message));
      }
      renderList();
      renderAsk();
    };
    s.onclose = function () {
      if (listSocket !== s) return;
      setConn("reconnecting");
      setTimeout(connectList, 2000);
    };
  }

  // The remote hosts' tasks: the server holds its links to them open
  // while this stream lasts and sends every host again at each change.
  function connectHosts() {
    const s = openSocket();
    hostsSocket = s;
    s.onopen = function () { s.send(JSON.stringify("hosts")); };
    s.onmessage = function (e) {
      if (typeof e.data !== "string") return;
      let m;
      try { m = JSON.parse(e.data); } catch (_) { return; }
      if (!Array.isArray(m.hosts)) return;
      const before = new Map();
      for (const h of hosts) for (const r of h.tasks) before.set(h.name + ":" + r.id, r.state);
      hosts = m.hosts.filter(function (h) { return h && typeof h.name === "string" && Array.isArray(h.tasks); });
      for (const h of hosts) {
        for (const r of h.tasks) {
          const k = h.name + ":" + r.id;
          if (before.get(k) !== r.state) lastOutcome.delete(k);
        }
      }
      renderList();
      if (view && view.host !== undefined) renderAsk();
      if (pendingOpen && pendingOpen.host !== undefined) retryPending();
    };
    s.onclose = function () {
      if (hostsSocket !== s) return;
      setTimeout(connectHosts, 2000);
    };
  }

  // xterm.js's onData bytes as termic input events.
  const NAMED = {
    "\r": "enter", "\t": "tab", "\x7f": "backspace", "\b": "backspace", "\x1b": "esc",
    "\x1b[A": "up", "\x1b[B": "down", "\x1b[C": "right", "\x1b[D": "left",
    "\x1bOA": "up", "\x1bOB": "down", "\x1bOC": "right", "\x1bOD": "left",
    "\x1b[H": "home", "\x1b[F": "end", "\x1bOH": "home", "\x1bOF": "end",
    "\x1b[5~": "page_up", "\x1b[6~": "page_down", "\x1b[2~": "insert", "\x1b[3~": "delete",
    "\x1b[Z": "back_tab",
  };
  function keyEvent(code, mods) {
    const key = { code: code };
    if (mods) key.mods = mods;
    return { input: { key: key } };
  }
  function eventsFor(data) {
    if (NAMED[data]) return [keyEvent(NAMED[data])];
    if (data.length > 1 && data[0] === "\x1b" && data.length === 2) {
      return [keyEvent({ char: data[1] }, { alt: true })];
    }
    if (data.length > 1 && data[0] !== "\x1b") return [{ input: { paste: data } }];
    const out = [];
    for (const ch of data) {
      const c = ch.codePointAt(0);
      if (NAMED[ch]) out.push(keyEvent(NAMED[ch]));
      else if (c === 0) out.push(keyEvent("null"));
      else if (c < 27) out.push(keyEvent({ char: String.fromCharCode(c + 96) }, { ctrl: true }));
      else if (c >= 32) out.push(keyEvent({ char: ch }));
    }
    return out;
  }

  function send(m) {
    if (!view || view.socket.readyState !== WebSocket.OPEN) return;
    if (device && device.read_only && !(m.input && m.input.resize)) {
      status("This device is read-only: it cannot type.");
      return;
    }
    view.socket.send(JSON.stringify(m));
  }

  function status(text) {
    const s = $("status");
    s.textContent = text || "";
    s.hidden = !text;
  }

  // OSC 8 links from a task: only http and https, after a confirm, opened
  // with no opener and no referrer. Every other scheme does nothing.
  const linkHandler = {
    activate: function (_event, text) {
      let url;
      try { url = new URL(text); } catch (_) { return; }
      if (url.protocol !== "http:" && url.protocol !== "https:") return;
      if (window.confirm("Open this link from the task?\n" + url.href)) {
        window.open(url.href, "_blank", "noopener,noreferrer");
      }
    },
    allowNonHttpProtocols: false,
  };

  // Scrollback lines a view asks for and xterm.js keeps (the server's
  // bound, docs/web.md).
  const HISTORY = 5000;

  // `host`: a remote host's task, its screen through termic web's own
  // ssh to that host (as termic attach HOST:TASK shows it).
  function openTask(id, host) {
    closeTask();
    const row = rowOf(id, host);
    const where = host === undefined ? "" : " on " + clean(host);
    $("title").textContent = (row ? clean(row.name) : "Task " + id) + where;
    $("list").hidden = true;
    $("task").hidden = false;
    $("back").hidden = false;
    status("");
    const term = new window.Terminal({
      scrollback: HISTORY,
      convertEol: false,
      cursorBlink: false,
      fontSize: window.innerWidth < 500 ? 12 : 14,
      linkHandler: linkHandler,
      theme: { background: "#15171c" },
    });
    const fit = new window.FitAddon.FitAddon();
    term.loadAddon(fit);
    term.open($("term"));
    fit.fit();
    const socket = openSocket();
    socket.binaryType = "arraybuffer";
    view = { id: id, host: host, socket: socket, term: term, fit: fit };
    renderAsk();
    renderChoices();
    socket.onopen = function () {
      // The task's scrollback (at most HISTORY lines) comes before its
      // screen, into xterm.js's own scrollback.
      const v = { task: String(id), cols: term.cols, rows: term.rows, history: HISTORY };
      if (host !== undefined) v.host = host;
      socket.send(JSON.stringify({ view: v }));
    };
    socket.onmessage = function (e) {
      if (typeof e.data !== "string") {
        term.write(new Uint8Array(e.data));
        return;
      }
      let m;
      try { m = JSON.parse(e.data); } catch (_) { return; }
      if (m.view_size) {
        if (m.view_size.cols !== term.cols || m.view_size.rows !== term.rows) {
          term.resize(m.view_size.cols, m.view_size.rows);
        }
      } else if (m.error) {
        status(clean(m.error.message));
      } else if (m.detached) {
        status("The task was closed.");
      }
    };
    socket.onclose = function () {
      if (view && view.socket === socket) status("Disconnected from the task.");
    };
    term.onData(function (data) {
      for (const ev of eventsFor(data)) send(ev);
    });
  }

  function closeTask() {
    if (!view) return;
    const v = view;
    view = null;
    v.socket.close();
    v.term.dispose();
    $("term").replaceChildren();
    $("ask").replaceChildren();
  }

  function showList() {
    closeTask();
    $("title").textContent = "termic";
    $("task").hidden = true;
    $("list").hidden = false;
    $("back").hidden = true;
    renderChoices();
  }

  function refit() {
    if (!view) return;
    const dims = view.fit.proposeDimensions();
    if (!dims || !dims.cols || !dims.rows) return;
    if (dims.cols === view.term.cols && dims.rows === view.term.rows) return;
    view.term.resize(dims.cols, dims.rows);
    send({ input: { resize: { cols: dims.cols, rows: dims.rows } } });
  }

  const KEYS = {
    esc: keyEvent("esc"), tab: keyEvent("tab"), up: keyEvent("up"), down: keyEvent("down"),
    enter: keyEvent("enter"), "ctrl-c": keyEvent({ char: "c" }, { ctrl: true }),
  };
  for (const b of document.querySelectorAll("#keys [data-key]")) {
    b.addEventListener("click", function () {
      send(KEYS[b.dataset.key]);
      if (view) view.term.focus();
    });
  }
  $("paste").addEventListener("click", function () {
    if (!navigator.clipboard || !navigator.clipboard.readText) {
      status("This browser does not let the page read the clipboard: long-press in the screen to paste.");
      return;
    }
    navigator.clipboard.readText().then(function (text) {
      if (text) send({ input: { paste: text } });
    }, function () { status("The clipboard could not be read."); });
  });
  $("copy").addEventListener("click", function () {
    if (!view) return;
    const text = view.term.getSelection();
    if (!text) { status("Select text in the screen first."); return; }
    navigator.clipboard.writeText(text).then(function () { status("Copied."); },
      function () { status("The clipboard could not be written."); });
  });
  $("back").addEventListener("click", showList);
  let resizeTimer = null;
  window.addEventListener("resize", function () {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(refit, 100);
  });

  if ("serviceWorker" in navigator) {
    navigator.serviceWorker.register("/sw.js").catch(function () {});
  }

  // Web Push: subscribe this browser with termic web's VAPID key; the
  // subscription is stored for the termic server, which sends the pushes.
  function b64url(s) {
    const pad = "=".repeat((4 - (s.length % 4)) % 4);
    const raw = atob((s + pad).replace(/-/g, "+").replace(/_/g, "/"));
    return Uint8Array.from(raw, function (c) { return c.charCodeAt(0); });
  }
  function subscribePush() {
    Notification.requestPermission()
      .then(function (p) {
        if (p !== "granted") throw new Error("Notifications are blocked for this page.");
        return fetch("/api/push/key", { credentials: "same-origin", cache: "no-store", headers: AUTH });
      })
      .then(function (r) {
        if (!r.ok) throw new Error("Notifications are not available.");
        return r.json();
      })
      .then(function (key) {
        return navigator.serviceWorker.ready.then(function (reg) {
          return reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: b64url(key.public) });
        });
      })
      .then(function (sub) {
        return fetch("/api/push/subscribe", {
          method: "POST", credentials: "same-origin",
          headers: { "Content-Type": "application/json", "X-Termic-Key": KEY },
          body: JSON.stringify(sub.toJSON()),
        });
      })
      .then(function (r) {
        if (!r.ok) throw new Error("The subscription could not be saved.");
        $("notify").hidden = true;
        setConn("notifications on");
        return setChoices({});
      })
      .catch(function (e) { notice(String(e.message || e)); });
  }
  $("notify").addEventListener("click", subscribePush);
  function offerPush() {
    if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window)) return;
    navigator.serviceWorker.ready.then(function (reg) { return reg.pushManager.getSubscription(); })
      .then(function (sub) {
        $("notify").hidden = !!sub;
        if (sub) setChoices({});
      })
      .catch(function () {});
  }

  fetch("/api/me", { credentials: "same-origin", cache: "no-store", headers: AUTH })
    .then(function (r) {
      if (r.status === 401) {
        notice("This device is not paired. On the computer, run termic web pair and open the link it prints.");
        return null;
      }
      return r.ok ? r.json() : null;
    })
    .then(function (me) {
      if (!me) return;
      device = me;
      if (me.read_only) setConn("read-only");
      takeFragment();
      connectList();
      connectHosts();
      offerPush();
      // The server's word on this device's notification choices: a
      // subscription stored for it (from this browser or an earlier
      // install of the page) shows its mute controls even when this
      // browser's push manager has none (null: nothing to show).
      if (!me.read_only) setChoices({});
    })
    .catch(function () { notice("termic web cannot be reached."); });
})();
