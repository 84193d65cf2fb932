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

  // Someone typing in the view must not have their input wiped by a refresh.
  function editing() {
    var el = document.activeElement;
    if (!el || !view() || !view().contains(el)) return false;
    return el.tagName === "SELECT" || el.tagName === "TEXTAREA" ||
      (el.tagName === "INPUT" && ["hidden", "checkbox", "radio", "submit"].indexOf(el.type) < 0);
  }
  var deferred = false;
  document.addEventListener("focusout", function () {
    if (!deferred) return;
    setTimeout(function () {
      if (deferred && !editing()) { deferred = false; resync(); }
    }, 400);
  });

  // A refresh that was already on its way when typing began: keep what is typed.
  document.addEventListener("htmx:beforeSwap", function (event) {
    var cfg = event.detail && event.detail.requestConfig;
    if (cfg && cfg.verb === "get" && event.detail.target === view() && editing()) {
      event.detail.shouldSwap = false;
      deferred = true;
    }
  });

  document.addEventListener("htmx:confirm", function (event) {
    var trigger = event.detail && event.detail.triggeringEvent;
    if (!trigger || (trigger.type !== "sse:update" && trigger.type !== "resync")) return;
    if (editing()) {
      event.preventDefault();
      deferred = true;
      return;
    }
    // Skip the refetch when the pushed version is the one already on screen (our own action).
    if (trigger.type !== "sse:update") return;
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

// Running-sum helper: "7+3-1" typed in a sum field fills the total beside it.
document.addEventListener("input", function (event) {
  var field = event.target;
  if (!field.matches || !field.matches("[data-sum-for]")) return;
  var target = document.getElementById(field.getAttribute("data-sum-for"));
  if (!target) return;
  var parts = field.value.replace(/\s+/g, "").match(/[+-]?\d+/g);
  if (!parts) return;
  var sum = 0;
  parts.forEach(function (p) { sum += parseInt(p, 10); });
  target.value = String(Math.max(0, sum));
});
