// Pairing: the token is in the link's fragment (#...), which the browser
// never sends to a server or puts in a Referer. It is taken out of the
// address bar at once, then POSTed; the answer sets the device's cookie.
"use strict";
(function () {
  const token = location.hash.slice(1);
  history.replaceState(null, "", "/pair");
  const message = document.getElementById("message");
  const open = document.getElementById("open");
  if (!token) {
    message.textContent = "This link has no pairing code. Run `termic web pair` on the computer and open the link it prints.";
    return;
  }
  fetch("/api/pair", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ token: token }),
    credentials: "same-origin",
    cache: "no-store",
  })
    .then(function (r) {
      return r.json().then(function (body) { return { ok: r.ok, body: body }; });
    })
    .then(function (res) {
      if (res.ok && typeof res.body.key === "string") {
        // The page's half of the device credential (the cookie is the
        // other): localStorage is this origin's alone, port included.
        localStorage.setItem("termic_key", res.body.key);
        message.textContent = "Paired" + (res.body.read_only ? " (read-only)" : "") + ". Opening termic...";
        open.hidden = false;
        location.replace("/");
      } else {
        message.textContent = String(res.body.error || "Pairing failed.");
      }
    })
    .catch(function () {
      message.textContent = "termic web cannot be reached.";
    });
})();
