// A phone's voice: the steps said aloud as they come (off by default; the switch is in
// More), from the same public lines as the table screen, in the page's language, with the
// browser's own speech synthesis (nothing is sent anywhere; silent where it has none). A
// speaker button beside an instruction (The Mysterious Forest) reads that one aloud.
(function () {
  "use strict";
  var KEY = "forest-voice";
  var heard = {}, checked = -1, asking = false, ready = false;

  function on() {
    try { return localStorage.getItem(KEY) === "on"; } catch (e) { return false; }
  }
  var pageLang = document.documentElement.lang || "en";
  var spokenLang = pageLang;  // the say answer's tag (de-DE): the browser picks a voice of it
  function speak(text, lang) {
    var synth = window.speechSynthesis;
    if (!text || !synth || !window.SpeechSynthesisUtterance) return;
    var line = new window.SpeechSynthesisUtterance(text);
    line.lang = lang || spokenLang;
    synth.speak(line);
  }
  // The switch's two captions come from the page, in its language (data-voice-on/-off),
  // and its ready mark from here: both again after a swapped view, which brings the page's.
  function labels() {
    document.querySelectorAll("[data-voice-toggle]").forEach(function (button) {
      var text = button.getAttribute(on() ? "data-voice-on" : "data-voice-off");
      if (text && button.textContent !== text) button.textContent = text;
      if (ready && !button.hasAttribute("data-voice-ready")) button.setAttribute("data-voice-ready", "");
    });
  }
  function sayUrl() {
    var live = document.getElementById("live");
    var url = live && live.getAttribute("data-view-url");
    return url ? url.replace(/\/view$/, "/screen/say") + "?lang=" + encodeURIComponent(pageLang) : null;
  }
  function shownVersion() {
    var el = document.querySelector("#view [data-version]");
    return el ? parseInt(el.getAttribute("data-version"), 10) || 0 : 0;
  }

  // The lines of the table's moment not said yet; `silent`: only note them (the voice just
  // switched on, or the page just opened: it speaks of what happens from then on).
  function check(silent) {
    var url = sayUrl(), version = shownVersion();
    if (!url || !on() || asking || version === checked) return;
    asking = true;
    fetch(url, { cache: "no-store", credentials: "same-origin" })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (found) {
        asking = false;
        if (!found) return;
        checked = found.version;
        if (found.lang) spokenLang = found.lang;
        found.lines.forEach(function (line) {
          if (heard[line.key]) return;
          heard[line.key] = true;
          if (!silent) speak(line.text);
        });
        // Ready: from here on each new line is said (the switch shows it, for the tests too).
        ready = true;
        labels();
        if (shownVersion() > checked) check(false);
      }, function () { asking = false; });
  }

  // Loaded when first wanted (app.js): the tap that asked for it is handled here too.
  function tapped(target) {
    var toggle = target.closest && target.closest("[data-voice-toggle]");
    if (toggle) {
      try { localStorage.setItem(KEY, on() ? "off" : "on"); } catch (e) { /* private mode */ }
      labels();
      checked = -1;
      check(true);
      return;
    }
    var button = target.closest && target.closest("[data-speak]");
    if (!button) return;
    var lang = button.getAttribute("data-speech-lang");
    if (button.hasAttribute("data-speak-text")) { speak(button.getAttribute("data-speak-text"), lang); return; }
    var said = button.parentNode.cloneNode(true);
    said.querySelectorAll("[data-speak]").forEach(function (el) { el.remove(); });
    speak(said.textContent.replace(/\s+/g, " ").trim(), lang);
  }
  document.addEventListener("click", function (event) { tapped(event.target); });
  document.addEventListener("htmx:afterSettle", function () { labels(); check(false); });
  // A view shown without a settle event (or while a check was on its way) is caught up with
  // here; nothing is fetched while the version on the screen stays the same.
  setInterval(function () { check(false); }, 1000);
  window.forestVoice = { tapped: tapped };
  labels();
  check(true);
})();
