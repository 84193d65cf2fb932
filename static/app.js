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

// The table clock: the server sends the seconds left and the running time as they were when
// it rendered; the phone counts on from the moment the view arrived, so every phone agrees.
(function () {
  "use strict";
  var shownAt = 0;
  var audio = null;
  var SIGNALLED = "forest-signalled";

  function soundOn() {
    try { return localStorage.getItem("forest-sound") !== "off"; } catch (e) { return true; }
  }

  function signalled(runId) {
    try { return (JSON.parse(localStorage.getItem(SIGNALLED) || "[]")).indexOf(runId) >= 0; } catch (e) { return false; }
  }

  function markSignalled(runId) {
    try {
      var list = JSON.parse(localStorage.getItem(SIGNALLED) || "[]");
      list.push(runId);
      localStorage.setItem(SIGNALLED, JSON.stringify(list.slice(-20)));
    } catch (e) { /* private mode: the phone may signal twice, no harm */ }
  }

  // Browsers allow sound only after a tap; open the audio on the first one.
  document.addEventListener("click", function () {
    var Context = window.AudioContext || window.webkitAudioContext;
    if (!audio && Context) { try { audio = new Context(); } catch (e) { audio = null; } }
    if (audio && audio.state === "suspended") audio.resume();
  }, true);

  function beep() {
    if (!audio || !soundOn()) return;
    [0, 0.35].forEach(function (offset) {
      var osc = audio.createOscillator();
      var gain = audio.createGain();
      osc.frequency.value = 880;
      gain.gain.setValueAtTime(0.25, audio.currentTime + offset);
      gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + offset + 0.25);
      osc.connect(gain).connect(audio.destination);
      osc.start(audio.currentTime + offset);
      osc.stop(audio.currentTime + offset + 0.3);
    });
  }

  function text(seconds) {
    var total = Math.max(0, Math.floor(seconds));
    var h = Math.floor(total / 3600), m = Math.floor((total % 3600) / 60), s = total % 60;
    var mm = h ? String(m).padStart(2, "0") : String(m);
    return (h ? h + ":" : "") + mm + ":" + String(s).padStart(2, "0");
  }

  function timeUp(box) {
    var runId = box.getAttribute("data-run-id");
    box.classList.add("time-up");
    var view = box.closest(".view");
    if (view) view.classList.add("time-up");
    var banner = view && view.querySelector(".time-up-banner");
    if (banner) banner.hidden = false;
    if (runId && !signalled(runId)) {
      markSignalled(runId);
      if (navigator.vibrate) navigator.vibrate([300, 150, 300]);
      beep();
    }
  }

  function tick() {
    var passed = (performance.now() - shownAt) / 1000;
    var box = document.querySelector("#view [data-countdown]");
    if (box) {
      var left = parseFloat(box.getAttribute("data-remaining"));
      if (box.getAttribute("data-running") === "1") left -= passed;
      var shown = box.querySelector(".cd-time");
      if (shown) shown.textContent = text(Math.ceil(Math.max(0, left)));
      box.classList.toggle("low", left > 0 && left <= 10);
      if (left <= 0 && box.getAttribute("data-running") === "1") timeUp(box);
      if (box.classList.contains("time-up")) timeUp(box);
    }
    var elapsed = document.querySelector("#view [data-elapsed]");
    if (elapsed && elapsed.getAttribute("data-elapsed") !== "") {
      var value = parseFloat(elapsed.getAttribute("data-elapsed"));
      if (elapsed.getAttribute("data-ticking") === "1") value += passed;
      var out = elapsed.querySelector(".elapsed-time");
      if (out) out.textContent = text(value);
    }
    var toggle = document.querySelector("#view [data-sound-toggle]");
    if (toggle) toggle.textContent = soundOn() ? "🔔 Sound on" : "🔕 Sound off";
  }

  function restart() { shownAt = performance.now(); tick(); }
  document.addEventListener("DOMContentLoaded", restart);
  document.addEventListener("htmx:afterSettle", restart);
  setInterval(tick, 250);

  document.addEventListener("click", function (event) {
    if (!event.target.closest("[data-sound-toggle]")) return;
    try { localStorage.setItem("forest-sound", soundOn() ? "off" : "on"); } catch (e) { /* private mode */ }
    tick();
  });
})();

// A refusal answered to an htmx request (the screen stays as it is): show it where the
// finger is, in a notice at the bottom of the screen, until the next tap.
document.addEventListener("forest-notice", function (event) {
  var message = event.detail && event.detail.message;
  if (!message) return;
  var toast = document.getElementById("toast");
  if (!toast) {
    toast = document.createElement("p");
    toast.id = "toast";
    toast.className = "notice error toast";
    toast.setAttribute("role", "alert");
    document.body.appendChild(toast);
    document.addEventListener("click", function () { toast.hidden = true; }, true);
  }
  toast.textContent = message;
  toast.hidden = false;
});

// One tap, one action. A refresh can put a new button under a finger that is about to tap
// again (an impatient double tap, or another phone's move arriving): a tap on the view
// within half a second of it changing is dropped, and so is a tap on a form whose request
// is still on its way. Keyboard activation is not a stray tap and only meets the second rule.
(function () {
  "use strict";
  var SETTLE_MS = 500;
  var changedAt = -Infinity;
  var release = null;
  var sendingCount = 0;  // this phone's own actions on their way
  var missedVersion = 0;  // a live update that came meanwhile

  function view() { return document.getElementById("view"); }
  function shownVersion() {
    var shown = document.querySelector("#view [data-version]");
    return shown ? parseInt(shown.getAttribute("data-version"), 10) : 0;
  }

  function changed(event) {
    var el = view();
    if (!el || event.target !== el) return;
    changedAt = performance.now();
    // While it settles the view takes no pointer at all, so nothing under the finger reacts.
    el.classList.add("tap-guard");
    clearTimeout(release);
    release = setTimeout(function () { el.classList.remove("tap-guard"); }, SETTLE_MS);
  }
  document.addEventListener("htmx:afterSwap", changed);
  document.addEventListener("htmx:afterSettle", changed);

  document.addEventListener("htmx:beforeRequest", function (event) {
    var form = event.detail.elt;
    if (!form || form.tagName !== "FORM" || !view() || !view().contains(form)) return;
    form.setAttribute("data-sending", "");
    sendingCount += 1;
  });
  // When the answer has replaced the form, htmx tells the view instead (the form is in
  // requestConfig then): count each request once.
  document.addEventListener("htmx:afterRequest", function (event) {
    var config = event.detail.requestConfig;
    var form = config ? config.elt : event.detail.elt;
    if (!form || !form.hasAttribute || !form.hasAttribute("data-sending")) return;
    form.removeAttribute("data-sending");
    sendingCount = Math.max(0, sendingCount - 1);
    if (sendingCount) return;
    // The answer is on screen: fetch what another phone did meanwhile, if it is not in it.
    if (missedVersion > shownVersion() && window.htmx) window.htmx.trigger(view(), "resync");
    missedVersion = 0;
  });

  // The answer to a form on its way brings the fresh view; a refresh meanwhile would only
  // swap the view twice under the finger. Remember the update and catch up afterwards.
  document.addEventListener("htmx:confirm", function (event) {
    var trigger = event.detail && event.detail.triggeringEvent;
    if (!trigger || trigger.type !== "sse:update" || !sendingCount) return;
    event.preventDefault();
    missedVersion = Math.max(missedVersion, parseInt(trigger.detail && trigger.detail.data, 10) || 0);
  });

  document.addEventListener("click", function (event) {
    var el = view();
    var target = event.target;
    var control = target && target.closest ? target.closest("button, input[type=submit], input[type=image]") : null;
    if (!el || !control || !el.contains(control)) return;
    var form = control.form;
    var tapped = event.detail > 0;  // 0: keyboard or script, not a finger
    var stray = tapped && performance.now() - changedAt < SETTLE_MS;
    if (stray || (form && form.hasAttribute("data-sending"))) {
      event.preventDefault();
      event.stopPropagation();
    }
  }, true);
})();
