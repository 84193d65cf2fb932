// The table screen: follows one table live and shows its public view, says each step aloud
// (the browser's own speech synthesis: nothing is sent anywhere) and chimes at a reveal and
// at a time-up. It holds no seat and sends nothing but reads.
//
// Live: the table's stream (GET /t/<code>/events, version numbers only) says when the
// table moved; the screen then fetches its view. The browser reopens a dropped stream by
// itself (a server restart, a sleeping TV); on every reopening, on waking up and every half
// minute besides, the screen fetches its view again, so it never stays behind.
(function () {
  "use strict";
  var root = document.getElementById("screen");
  var box = document.getElementById("screen-view");
  if (!root || !box) return;
  var code = root.getAttribute("data-code") || "";
  var follow = root.getAttribute("data-follow") === "1";
  var source = null;
  var shownVersion = -1;
  var heard = {};  // keys of the lines already said (or already there when the screen opened)
  var fetching = null, again = false;
  var shownAt = performance.now();
  var signalled = {};
  var quiet = /[?&]quiet=1\b/.test(location.search);

  function fill(template, value) { return root.getAttribute(template).replace("CODE", value); }
  // The live part is fetched in the page's language (opened with ?lang=, a cookie or the
  // browser's own), so what it shows and says never changes language on the way.
  var lang = root.getAttribute("data-lang") || "";
  function viewUrl(value) { return fill("data-view-template", value) + (lang ? "?lang=" + encodeURIComponent(lang) : ""); }
  function current() { return box.querySelector(".screen-view"); }
  function offline(on) { root.querySelector(".sc-offline").hidden = !on; }

  // ---- sound and voice
  var audio = null;
  function openAudio() {
    var Context = window.AudioContext || window.webkitAudioContext;
    if (!audio && Context) { try { audio = new Context(); } catch (e) { audio = null; } }
    if (audio && audio.state === "suspended") audio.resume();
  }
  function needsTap() {
    var activation = navigator.userActivation;
    return !!(activation && !activation.hasBeenActive);
  }
  document.addEventListener("click", function () {
    openAudio();
    root.querySelector(".sc-hint").hidden = true;
  }, true);

  function tone(frequencies, step) {
    if (!audio || quiet) return;
    frequencies.forEach(function (frequency, i) {
      var osc = audio.createOscillator(), gain = audio.createGain(), at = audio.currentTime + i * step;
      osc.frequency.value = frequency;
      gain.gain.setValueAtTime(0.25, at);
      gain.gain.exponentialRampToValueAtTime(0.001, at + step * 0.9);
      osc.connect(gain).connect(audio.destination);
      osc.start(at);
      osc.stop(at + step);
    });
  }
  function chime() { tone([523, 659, 784], 0.14); }  // a reveal
  function beep() { tone([880, 880], 0.35); }  // time is up

  function speak(text) {
    var synth = window.speechSynthesis;
    if (quiet || !text || !synth || !window.SpeechSynthesisUtterance) return;
    var line = new window.SpeechSynthesisUtterance(text);
    // The page's language, with its region where it has a usual one (de-DE): the browser
    // picks a voice of that language.
    line.lang = root.getAttribute("data-speech-lang") || document.documentElement.lang || "en";
    synth.speak(line);
  }

  function lines(view) {
    var data = view && view.querySelector(".sc-say");
    try { return data ? JSON.parse(data.textContent) : []; } catch (e) { return []; }
  }

  // The lines of a view not said yet, in order; `silent` only notes them (the view the
  // screen opened with: it speaks of what happens from then on).
  function sayNew(view, silent) {
    lines(view).forEach(function (line) {
      var key = code + ":" + line.key;
      if (heard[key]) return;
      heard[key] = true;
      if (!silent) speak(line.text);
    });
    // What just appeared (a card turned face up) plays its short animation once.
    view.querySelectorAll("[data-fresh]").forEach(function (el) {
      var key = code + ":fresh:" + el.getAttribute("data-fresh");
      if (!heard[key] && !silent) el.classList.add("fresh");
      heard[key] = true;
    });
    var reveal = view.querySelector("[data-reveal]");
    if (reveal) {
      var key = code + ":shown:" + reveal.getAttribute("data-reveal");
      if (!heard[key]) {
        heard[key] = true;
        if (!silent) {
          reveal.classList.add("now");  // shown big, every pick at once
          chime();
          setTimeout(function () { reveal.classList.remove("now"); }, 6000);
        }
      }
    }
  }

  // ---- the clock: counted on from the moment the view arrived, as on the phones
  function text(seconds) {
    var total = Math.max(0, Math.floor(seconds));
    var h = Math.floor(total / 3600), m = Math.floor((total % 3600) / 60), s = total % 60;
    return (h ? h + ":" + String(m).padStart(2, "0") : String(m)) + ":" + String(s).padStart(2, "0");
  }
  function timeUp(cd) {
    cd.classList.add("time-up");
    var up = cd.querySelector(".cd-up");
    if (up) up.hidden = false;
    var run = cd.getAttribute("data-run-id");
    if (run && !signalled[run]) {
      signalled[run] = true;
      beep();
      speak(cd.getAttribute("data-say-up"));
    }
  }
  function tick() {
    var passed = (performance.now() - shownAt) / 1000;
    var cd = box.querySelector("[data-countdown]");
    if (cd) {
      var left = parseFloat(cd.getAttribute("data-remaining"));
      if (cd.getAttribute("data-running") === "1") left -= passed;
      var out = cd.querySelector(".cd-time");
      var shown = text(Math.ceil(Math.max(0, left)));
      if (out && out.textContent !== shown) out.textContent = shown;
      cd.classList.toggle("low", left > 0 && left <= 10);
      if ((left <= 0 && cd.getAttribute("data-running") === "1") || cd.classList.contains("time-up")) timeUp(cd);
    }
    var elapsed = box.querySelector("[data-elapsed]");
    if (elapsed) {
      var value = parseFloat(elapsed.getAttribute("data-elapsed"));
      if (elapsed.getAttribute("data-ticking") === "1") value += passed;
      var time = elapsed.querySelector(".elapsed-time");
      if (time && time.textContent !== text(value)) time.textContent = text(value);
    }
  }
  setInterval(tick, 250);

  // ---- live
  function show(html, silent) {
    var holder = document.createElement("div");
    holder.innerHTML = html;
    var view = holder.querySelector(".screen-view");
    if (!view || view.getAttribute("data-code") !== code) return;
    var version = parseInt(view.getAttribute("data-version"), 10) || 0;
    // Shown already, or overtaken by a newer one: the screen never steps back, and a reveal
    // being shown big stays so.
    if (version <= shownVersion) return;
    shownVersion = version;
    box.replaceChildren(view);
    shownAt = performance.now();
    tick();
    sayNew(view, silent);
    var next = view.getAttribute("data-next");
    if (next && next !== code) switchTo(next);  // the rematch, the next chapter
  }

  function refresh() {
    if (!code) return;
    if (fetching) { again = true; return; }
    var asked = code;
    fetching = fetch(viewUrl(code), { cache: "no-store", credentials: "same-origin" })
      .then(function (response) { return response.ok ? response.text() : null; })
      .then(function (html) { offline(false); if (html !== null && asked === code) show(html, false); },
            function () { offline(true); })
      .then(function () {
        fetching = null;
        if (again) { again = false; refresh(); }
      });
  }

  function connect() {
    if (source) source.close();
    source = null;
    if (!code || !window.EventSource) return;
    var opened = new EventSource(fill("data-events-template", code) + "?v=" + Math.max(0, shownVersion));
    source = opened;
    opened.addEventListener("update", refresh);
    opened.addEventListener("open", function () { offline(false); refresh(); });
    opened.addEventListener("gone", function () { opened.close(); });
    opened.addEventListener("error", function () {
      offline(true);
      // Refused (a server starting up answers with an error page): open it anew shortly.
      if (opened.readyState === EventSource.CLOSED && source === opened) setTimeout(connect, 2000);
    });
  }

  function switchTo(next) {
    code = next;
    shownVersion = -1;
    var qr = root.querySelector(".sc-qr");
    qr.src = fill("data-qr-template", next);
    qr.hidden = false;
    root.querySelector(".sc-code").hidden = false;
    root.querySelector("[data-code-text]").textContent = next;
    if (follow) history.replaceState(null, "", location.pathname + location.search);
    else history.replaceState(null, "", location.pathname.replace(/\/t\/[^/]+\//, "/t/" + next + "/"));
    connect();
    refresh();
  }

  // The evening's screen moves on to a newer table by itself.
  function lookForNewer() {
    fetch(root.getAttribute("data-now-url"), { cache: "no-store" })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (found) {
        if (found && found.code && found.code !== code) switchTo(found.code);
      }, function () {});
  }

  // Keep a TV or a laptop awake while it shows the table, where the browser allows it.
  function keepAwake() {
    if ("wakeLock" in navigator && document.visibilityState === "visible") {
      navigator.wakeLock.request("screen").catch(function () {});
    }
  }

  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState !== "visible") return;
    keepAwake();
    refresh();
  });
  window.addEventListener("online", refresh);

  var first = current();
  if (first) {
    shownVersion = parseInt(first.getAttribute("data-version"), 10) || 0;
    sayNew(first, true);
  }
  if (!quiet && needsTap() && (window.speechSynthesis || window.AudioContext)) {
    root.querySelector(".sc-hint").hidden = false;
  }
  keepAwake();
  tick();
  connect();
  setInterval(refresh, 30000);
  if (follow) setInterval(lookForNewer, 5000);
})();
