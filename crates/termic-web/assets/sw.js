// The service worker: makes the page installable and shows push
// notifications. It caches nothing (every answer comes from termic web).
"use strict";
self.addEventListener("install", function () { self.skipWaiting(); });
self.addEventListener("activate", function (e) { e.waitUntil(self.clients.claim()); });
self.addEventListener("fetch", function () {});
self.addEventListener("push", function (e) {
  let d = {};
  try { d = e.data ? e.data.json() : {}; } catch (_) { d = {}; }
  const title = typeof d.title === "string" ? d.title : "termic";
  const body = typeof d.body === "string" ? d.body : "";
  e.waitUntil(self.registration.showNotification(title, { body: body, data: { task: d.task } }));
});
self.addEventListener("notificationclick", function (e) {
  e.notification.close();
  e.waitUntil(self.clients.openWindow("/"));
});
