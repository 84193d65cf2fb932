// Small helpers around htmx: theme, screen wake lock, resync after sleep, polling fallback.
(function () {
  "use strict";
  var root = document.documentElement;
  var saved = null;
  try { saved = localStorage.getItem("forest-theme"); } catch (e) { /* private mode */ }
  if (saved) root.setAttribute("data-theme", saved);

  document.addEventListener("click", function (event) {
    var toggle = event.target.closest("[data-theme-toggle]");
    if (!toggle) return;
    var next = root.getAttribute("data-theme") === "light" ? "dark" : "light";
    root.setAttribute("data-theme", next);
    try { localStorage.setItem("forest-theme", next); } catch (e) { /* private mode */ }
  });

  function view() { return document.getElementById("view"); }

  function resync() {
    var el = view();
    if (el && window.htmx) window.htmx.trigger(el, "resync");
  }

  // Keep the screen on during play where the browser allows it (secure contexts only).
  var wakeLock = null;
  function keepAwake() {
    if (!view() || !("wakeLock" in navigator) || document.visibilityState !== "visible") return;
    navigator.wakeLock.request("screen").then(function (lock) { wakeLock = lock; }).catch(function () {});
  }

  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") {
      // A phone that slept may have missed updates even if its stream looks open.
      resync();
      keepAwake();
    }
  });

  document.addEventListener("DOMContentLoaded", function () {
    keepAwake();
    if (view() && !("EventSource" in window)) {
      // No server-sent events here: ask for the view every few seconds instead.
      setInterval(resync, 3000);
    }
  });

  // A stream that reopened after a drop: fetch the whole current view.
  document.addEventListener("htmx:sseOpen", function () {
    var live = document.getElementById("live");
    if (live && live.dataset.opened) resync();
    if (live) live.dataset.opened = "1";
  });

  // Skip the refetch when the pushed version is the one already on screen (our own action).
  document.addEventListener("htmx:confirm", function (event) {
    var trigger = event.detail && event.detail.triggeringEvent;
    if (!trigger || trigger.type !== "sse:update") return;
    var message = trigger.detail;
    var shown = document.querySelector("#view [data-version]");
    if (message && shown && String(message.data) === shown.getAttribute("data-version")) {
      event.preventDefault();
    }
  });

  // The network came back, or a refresh failed on a flaky network: fetch the view again.
  window.addEventListener("online", resync);
  var retryTimer = null;
  document.addEventListener("htmx:sendError", function (event) {
    if (!view() || retryTimer) return;
    retryTimer = setTimeout(function () { retryTimer = null; resync(); }, 2000);
  });

  // After a swap, buzz briefly when the view asks for it (e.g. a reveal).
  document.addEventListener("htmx:afterSwap", function () {
    var buzz = document.querySelector("#view [data-buzz]");
    if (buzz && navigator.vibrate) navigator.vibrate(120);
  });
})();
