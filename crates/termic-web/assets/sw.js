// The service worker: makes the page installable and shows push
// notifications. It caches nothing (every answer comes from termic web).
// It holds no credential (the page's half is in the page's localStorage),
// so a tap on a notification's action only opens or focuses the page on
// that task and asks the page to send the answer: by a message to an open
// page, else in the new page's fragment (#task=N&answer=ID, or
// #task=HOST:N for a remote host's task), never the query, so it reaches
// no server log and no referrer.
"use strict";
const ACTIONS = ["approve_once", "deny"];
// A host's name as config.toml spells it.
const HOST = /^[A-Za-z0-9_-]{1,64}$/;
self.addEventListener("install", function () { self.skipWaiting(); });
self.addEventListener("activate", function (e) { e.waitUntil(self.clients.claim()); });
self.addEventListener("fetch", function () {});
self.addEventListener("push", function (e) {
  let d = {};
  try { d = e.data ? e.data.json() : {}; } catch (_) { d = {}; }
  const title = typeof d.title === "string" ? d.title : "termic";
  const body = typeof d.body === "string" ? d.body : "";
  const task = Number.isSafeInteger(d.task) ? d.task : null;
  // A remote host's task: that host's name (absent for this computer's).
  const host = typeof d.remote === "string" && HOST.test(d.remote) ? d.remote : null;
  const actions = (Array.isArray(d.actions) ? d.actions : [])
    .filter(function (a) {
      return a && ACTIONS.indexOf(a.action) >= 0 && typeof a.title === "string";
    })
    .slice(0, 2)
    .map(function (a) { return { action: a.action, title: a.title.slice(0, 40) }; });
  const options = { body: body, data: { task: task, host: host } };
  if (task !== null && actions.length) options.actions = actions;
  e.waitUntil(self.registration.showNotification(title, options));
});
self.addEventListener("notificationclick", function (e) {
  e.notification.close();
  const task = e.notification.data && e.notification.data.task;
  const host = e.notification.data && typeof e.notification.data.host === "string" &&
    HOST.test(e.notification.data.host) ? e.notification.data.host : null;
  const answer = ACTIONS.indexOf(e.action) >= 0 ? e.action : null;
  let hash = "";
  if (Number.isSafeInteger(task)) {
    hash = "#task=" + (host ? host + ":" : "") + task + (answer ? "&answer=" + answer : "");
  }
  e.waitUntil(self.clients.matchAll({ type: "window", includeUncontrolled: true })
    .then(function (list) {
      const page = list.find(function (c) { return new URL(c.url).origin === self.location.origin; });
      if (page) {
        page.postMessage({ termic: "open", task: Number.isSafeInteger(task) ? task : null,
          host: host, answer: answer });
        return page.focus();
      }
      return self.clients.openWindow("/" + hash);
    }));
});
