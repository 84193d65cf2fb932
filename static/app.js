// The words a player reads, in the page's language: the page gives them
// (templates/_phone_words.html), "{name}" holes filled from `values`.
window.forestWord = (function () {
  var words = null;
  return function (key, values) {
    if (!words) {
      var el = document.getElementById("phone-words");
      try { words = el ? JSON.parse(el.textContent) : {}; } catch (e) { words = {}; }
    }
    var text = words[key] || "";
    Object.keys(values || {}).forEach(function (name) { text = text.split("{" + name + "}").join(values[name]); });
    return text;
  };
})();

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

  // A stream that reopened after a drop needs no fetch: it asks for the version and seats
  // the page was opened with, so it sends the whole current view at once whenever the
  // table moved on since (and starts the changes after it from there).

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
  // As if typed there: a refresh keeps it (the morph above keeps typed fields).
  target.dispatchEvent(new Event("input", { bubbles: true }));
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

  // Browsers allow sound only after a tap; open the audio on the first one at a table with
  // a countdown (the only thing that beeps): opening it costs a slowed phone some 90 ms of
  // its first tap, not spent where there is nothing to hear.
  document.addEventListener("click", function () {
    var Context = window.AudioContext || window.webkitAudioContext;
    if (!audio && Context && document.querySelector("#view [data-countdown]")) {
      try { audio = new Context(); } catch (e) { audio = null; }
    }
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
      if (shown) show(shown, text(Math.ceil(Math.max(0, left))));
      box.classList.toggle("low", left > 0 && left <= 10);
      if (left <= 0 && box.getAttribute("data-running") === "1") timeUp(box);
      if (box.classList.contains("time-up")) timeUp(box);
    }
    document.querySelectorAll("#view [data-elapsed]").forEach(function (elapsed) {
      if (elapsed.getAttribute("data-elapsed") === "") return;
      var value = parseFloat(elapsed.getAttribute("data-elapsed"));
      if (elapsed.getAttribute("data-ticking") === "1") value += passed;
      var out = elapsed.querySelector(".elapsed-time");
      if (out) show(out, text(value));
    });
    var toggle = document.querySelector("#view [data-sound-toggle]");
    if (toggle) show(toggle, toggle.getAttribute(soundOn() ? "data-on" : "data-off") || toggle.textContent);
  }

  // The clock ticks four times a second but its text changes once a second at most: an
  // unchanged text is not written again (each write costs a phone a style, layout and paint).
  function show(el, value) {
    if (el.textContent !== value) el.textContent = value;
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

// The answer to a tap, success or refusal, shows where the finger is: a toast just above
// the bottom bar, whatever part of the page is on the screen. It stays long enough to read
// (longer for a refusal), and a tap elsewhere puts it away.
(function () {
  "use strict";
  var hideTimer = null;
  var SHOW_MS = { info: 6000, error: 9000 };

  function toastBox() {
    var toast = document.getElementById("toast");
    if (!toast) {
      toast = document.createElement("p");
      toast.id = "toast";
      document.body.appendChild(toast);
    }
    return toast;
  }

  document.addEventListener("forest-notice", function (event) {
    var message = event.detail && event.detail.message;
    if (!message) return;
    var kind = event.detail.kind === "info" ? "info" : "error";
    var toast = toastBox();
    toast.className = "notice toast " + kind;
    // alert for a refusal (read out at once), status for news the player asked for
    toast.setAttribute("role", kind === "error" ? "alert" : "status");
    toast.textContent = message;
    toast.hidden = false;
    clearTimeout(hideTimer);
    hideTimer = setTimeout(putAway, SHOW_MS[kind]);
  });

  // Gone, not just hidden: an old refusal must not linger in the page.
  function putAway() {
    var toast = document.getElementById("toast");
    if (toast) toast.remove();
  }
  document.addEventListener("click", function (event) {
    var toast = document.getElementById("toast");
    if (toast && !toast.contains(event.target)) putAway();
  }, true);
})();

// Refreshes morph the new view into the old (idiomorph), and keep what the person was
// doing: a panel they opened or closed stays so, and what they typed or chose in a form
// stays until that form is sent and answered. The server renders neither.
(function () {
  "use strict";
  if (!window.Idiomorph) return;
  var FIELD_STATE = { value: true, checked: true, selected: true };

  function typed(el) {
    var field = el.tagName === "OPTION" ? el.closest("select") : el;
    return !!(field && field.forestTyped);
  }

  // A field is known across a refresh by what it says to a screen reader, or its name: a
  // board may render a field anew (a new id), and what was typed in it must follow.
  function fieldKey(field) {
    var key = field.tagName + "|" + (field.getAttribute("aria-label") || field.name || "");
    return field.type === "radio" || field.type === "checkbox" ? key + "|" + field.value : key;
  }
  var typedBefore = null;  // key -> what was typed, taken just before a swap
  function takeTyped() {
    typedBefore = {};
    var view = document.getElementById("view");
    if (!view) return;
    view.querySelectorAll("input, select, textarea").forEach(function (field) {
      if (!field.forestTyped) return;
      var key = fieldKey(field);
      if (!(key in typedBefore)) typedBefore[key] = { value: field.value, checked: field.checked };
    });
  }
  function giveTyped(node) {
    if (!typedBefore || !node.querySelectorAll) return;
    var fields = Array.prototype.slice.call(node.querySelectorAll("input, select, textarea"));
    if (node.matches("input, select, textarea")) fields.push(node);
    fields.forEach(function (field) {
      var was = typedBefore[fieldKey(field)];
      if (!was) return;
      field.forestTyped = true;
      if (field.type === "radio" || field.type === "checkbox") field.checked = was.checked;
      else field.value = was.value;
    });
  }

  // Not idiomorph's ignoreActiveValue: it leaves the whole focused element alone, and a
  // button just tapped keeps focus, so its label would never change. Typing is kept below.
  window.Idiomorph.defaults.callbacks.beforeAttributeUpdated = function (name, el) {
    if (name === "open" && el.tagName === "DETAILS") return !el.forestToggled;
    if (name === "data-sending") return false;  // the form's own request is still on its way
    if (FIELD_STATE[name]) return !typed(el);
    return true;
  };

  // A panel opened or closed by hand keeps that state through every refresh. A panel the
  // morph could not match (one without an id) comes back new: it is known by its id or its
  // summary's words, and opened or closed as it was.
  var byHand = {};
  function panelKey(details) {
    if (details.id) return "#" + details.id;
    var summary = details.querySelector(":scope > summary");
    return summary ? "summary:" + summary.textContent.trim() : null;
  }
  document.addEventListener("click", function (event) {
    var summary = event.target.closest && event.target.closest("summary");
    if (summary && summary.parentElement && summary.parentElement.tagName === "DETAILS") {
      summary.parentElement.forestToggled = true;
    }
  }, true);
  document.addEventListener("toggle", function (event) {
    var details = event.target;
    if (!details.forestToggled) return;
    var key = panelKey(details);
    if (key) byHand[key] = details.open;
  }, true);
  window.Idiomorph.defaults.callbacks.afterNodeAdded = function (node) {
    if (!node.querySelectorAll) return;
    giveTyped(node);
    var panels = Array.prototype.slice.call(node.querySelectorAll("details"));
    if (node.tagName === "DETAILS") panels.push(node);
    panels.forEach(function (details) {
      var key = panelKey(details);
      if (key && Object.prototype.hasOwnProperty.call(byHand, key)) {
        details.forestToggled = true;
        details.open = byHand[key];
      }
    });
  };

  function remember(event) {
    var field = event.target;
    if (!field || !field.matches || !field.matches("input, select, textarea") || field.type === "hidden") return;
    field.forestTyped = true;
    if (field.type === "radio" && field.form) {
      // Its group changed with it: a refresh must not check another of them.
      Array.prototype.forEach.call(field.form.elements, function (other) {
        if (other.type === "radio" && other.name === field.name) other.forestTyped = true;
      });
    }
  }
  document.addEventListener("input", remember, true);
  document.addEventListener("change", remember, true);

  // A form whose own answer comes back without a refusal was sent: what was typed in it is
  // done with, and the fresh view may empty it. A refused or stale answer keeps it.
  document.addEventListener("htmx:beforeSwap", function (event) {
    var config = event.detail.requestConfig;
    var form = config && config.elt;
    if (form && form.tagName === "FORM") {
      var trigger = event.detail.xhr && event.detail.xhr.getResponseHeader("HX-Trigger");
      var refused = trigger && /"kind":\s*"error"/.test(trigger);
      if (!refused) {
        Array.prototype.forEach.call(form.elements, function (field) { field.forestTyped = false; });
      }
    }
    takeTyped();
  });
  // A view pushed by the stream is swapped without htmx:beforeSwap: keep what was typed too.
  document.addEventListener("forest:beforePush", takeTyped);
  document.addEventListener("htmx:afterSwap", function () { typedBefore = null; });

  // The More sheet closes at a tap outside it, as a sheet does.
  document.addEventListener("click", function (event) {
    var more = document.getElementById("more");
    if (more && more.open && !more.contains(event.target)) {
      more.open = false;
      more.forestToggled = true;
    }
  });
})();

// A new view is morphed part by part. Each part at the view's top (the main card, the
// numbers, each panel, the bottom bar) that comes back as it is on screen is left alone, and
// a part that changed keeps its elements where its new text has the same ones (same tags in
// the same order): only the attributes and words that differ are written. Below the first
// element whose children differ in kind, and at fields, idiomorph takes over (it keeps what
// was typed and matches moved elements). A morph of the whole view, htmx's processing of it
// and its style work cost a slowed phone hundreds of milliseconds a tap; a move changes a
// few numbers. A view of another shape (a first view, another phase) is morphed whole.
(function () {
  var M = window.Idiomorph;
  if (!window.htmx || !M) return;
  var FIELD = /^(INPUT|SELECT|TEXTAREA)$/;
  function list(x) { return Array.prototype.slice.call(x); }
  function kept(node) { return node.nodeType === 1 && node.hasAttribute("hx-preserve"); }
  function parts(view) { return list(view.children).filter(function (el) { return !kept(el); }); }
  function key(el) { return el.tagName + el.id + "|" + el.classList[0]; }
  // The same child nodes as `kids` (the new ones, kept elements left out), of the same kinds
  // and tags. (Between a view's parts there are only blanks: the templates put no words there.)
  function same(a, kids) {
    var now = a.childNodes;
    return now.length === kids.length && kids.every(function (m, i) {
      return now[i].nodeType === m.nodeType && now[i].tagName === m.tagName;
    });
  }
  // An element kept across swaps (hx-preserve: what was typed in it stays) waits outside the
  // page while htmx swaps; it is moved back into its place at once (moveBefore keeps its
  // focus), the new one's place given by the part on screen that follows it (`next`).
  function putBack(parent, element, next) {
    var waiting = document.getElementById(element.id);
    if (!waiting || document.body.contains(waiting)) waiting = element;  // not in htmx's pantry
    (parent.moveBefore || parent.insertBefore).call(parent, waiting, next);
  }
  function putBackAll(parent, fresh, kids, now) {
    list(fresh.children).filter(kept).forEach(function (element) {
      var after = element.nextSibling;
      while (after && kids.indexOf(after) < 0) after = after.nextSibling;
      var next = after && now[kids.indexOf(after)];
      putBack(parent, element, next && next.parentNode === parent ? next : null);
    });
  }
  // Attributes as the new element has them, as far as app.js's morph rules allow (an open
  // panel, what was typed); true when one was written (htmx then processes the element).
  function attributes(a, b) {
    var allow = M.defaults.callbacks.beforeAttributeUpdated, wrote = false;
    list(b.attributes).concat(list(a.attributes)).forEach(function (at) {
      var value = b.getAttribute(at.name);
      if (a.getAttribute(at.name) === value || allow(at.name, a, value === null ? "remove" : "update") === false) return;
      if (value === null) a.removeAttribute(at.name);
      else a.setAttribute(at.name, value);
      wrote = true;
    });
    return wrote;
  }
  // A field showing other than its text says (typed, chosen, or left so by a refused answer):
  // its element is the same text, but idiomorph must see it (to empty it once sent). A select
  // with no option marked shows its first.
  function edited(el) {
    return list(el.querySelectorAll("input, textarea, select")).some(function (f) {
      return f.tagName === "SELECT" ? f.selectedIndex !== Math.max(0, list(f.options).findIndex(function (o) { return o.defaultSelected; }))
        : f.checked !== f.defaultChecked || f.value !== f.defaultValue;
    });
  }
  function patch(a, b, changed) {
    if (!FIELD.test(a.tagName) && a.isEqualNode(b) && !edited(a)) return;
    var kids = list(b.childNodes).filter(function (n) { return !kept(n); }), now = list(a.childNodes);
    if (FIELD.test(a.tagName) || a.id !== b.id || !same(a, kids)) {
      changed.push.apply(changed, M.morph(a, b, { morphStyle: "outerHTML" }));
      return;
    }
    if (attributes(a, b)) changed.push(a);
    kids.forEach(function (m, i) {
      var n = now[i];
      if (n.nodeType === 1) patch(n, m, changed);
      else if (n.data !== m.data) n.data = m.data;
    });
    putBackAll(a, b, kids, now);
  }
  // A view is parsed only where its text changed. The page keeps the text of each part it
  // shows, from the view text it last swapped in (checked against the page's own parts). A
  // new view's part whose text is that same text comes as an empty stand-in of its kind
  // (`data-forest-same`), and the part on screen stays as it is. An Explorers view
  // of 40 KB takes some 3 ms to parse at full speed (12 on a phone slowed 4x), its open parts
  // alone under 1 (bench/parse_cost.py). Where anything does not read plainly (another shape,
  // a part met twice, a field showing other than its text), the whole text is parsed after all.
  var TAG = /<!--[\s\S]*?-->|<(\/?)([a-zA-Z][\w-]*)(?:"[^"]*"|'[^']*'|[^'">])*>/g;
  var SAME = "data-forest-same";
  var shown = null, pending = null;  // the texts of the parts on screen; the text being swapped in
  // A view's text as its parts ({tag, start, end, open: the end of its opening tag}), or null
  // when it is not one element whose children close as they open (the views hold no script,
  // style or textarea; what the page makes of a text is checked after each swap).
  function scan(html) {
    var depth = 0, m, found = [], part;
    TAG.lastIndex = 0;
    while ((m = TAG.exec(html))) {
      if (!m[2]) continue;
      if (m[1]) {
        if (--depth === 1) { part.end = TAG.lastIndex; found.push(part); }
        if (depth < 1) return depth || html.slice(TAG.lastIndex).trim() ? null : found;
        continue;
      }
      if (!depth && (found.length || html.slice(0, m.index).trim())) return null;
      if (depth === 1) part = { tag: m[2].toUpperCase(), start: m.index, open: TAG.lastIndex, end: TAG.lastIndex };
      if (!/^(area|br|col|embed|hr|img|input|link|meta|source|track|wbr)$/i.test(m[2])) depth++;
      else if (depth === 1) found.push(part);
    }
    return null;
  }
  // The text to parse: each part with an id that the page shows as it is (its very text, met
  // once in the view) a stand-in: the swap finds the part on screen by its id (parts without
  // one may share their kind: "section.card"). One kept across swaps (hx-preserve) is the one
  // on screen either way.
  function standIns(html) {
    var found = scan(html), out = [], at = 0;
    var texts = found && found.map(function (p) { return html.slice(p.start, p.end); });
    pending = { full: html, found: found, texts: texts };
    if (shown && found) found.forEach(function (p, i) {
      var text = texts[i];
      if (shown.indexOf(text) < 0 || texts.indexOf(text) !== texts.lastIndexOf(text)
          || html.slice(p.start, p.open).indexOf(' id="') < 0) return;
      out.push(html.slice(at, p.start), html.slice(p.start, p.open - 1) + " " + SAME + "></" + p.tag + ">");
      at = p.end;
    });
    if (!out.length) return html;
    pending.stood = true;
    return out.join("") + html.slice(at);
  }
  // The whole text parsed after all, in place of the one with stand-ins.
  function whole(fragment) {
    var parsed = document.createElement("template");
    parsed.innerHTML = pending.full;
    fragment.replaceChildren(parsed.content);
  }
  // After a view is swapped in, the text of each part it shows, if the page's parts are the
  // text's (the same kinds, in the same order); else none. A view with stand-ins that did not
  // come out so is fetched whole.
  document.addEventListener("htmx:afterSwap", function (event) {
    var target = event.target, done = pending;
    if (target.id !== "view") return;
    pending = null;
    shown = null;
    var found = done && done.found, view = target.firstElementChild;
    var now = view && target.children.length === 1 ? view.children : [];
    if (found && found.length === now.length && found.every(function (p, i) { return p.tag === now[i].tagName; })) {
      shown = done.texts;
    } else if (done && done.stood) {
      window.htmx.trigger(target, "resync");
    }
  });
  window.htmx.defineExtension("view-parts", {
    transformResponse: function (text) {
      return typeof text === "string" ? standIns(text) : text;
    },
    handleSwap: function (style, target, fragment) {
      var stood = pending && pending.stood && fragment.querySelector("[" + SAME + "]");
      function unswapped() {
        if (stood) whole(fragment);
        return false;
      }
      var live = target.firstElementChild, next = fragment.firstElementChild;
      if (style !== "morph:innerHTML" || target.id !== "view" || !live || !next || target.children.length > 1
          || fragment.children.length > 1) return unswapped();
      var old = parts(live), fresh = parts(next);
      // A stand-in needs the one part on screen of its kind, showing what its text says.
      if (stood && !fresh.every(function (part) {
        if (!part.hasAttribute(SAME)) return true;
        var found = old.filter(function (el) { return key(el) === key(part); });
        return found.length === 1 && !edited(found[0]);
      })) {
        whole(fragment);
        stood = false;
        next = fragment.firstElementChild;
        fresh = parts(next);
      }
      // The parts are lined up from both ends; between the two, parts came or went (a
      // notice, the events card). There each new part takes the first old one left of its
      // kind (tag, id, first class), moved into its place if need be (moveBefore keeps focus), and
      // the old ones left over go.
      var first = 0, endOld = old.length, endNew = fresh.length;
      while (first < endOld && first < endNew && key(old[first]) === key(fresh[first])) first++;
      while (endOld > first && endNew > first && key(old[endOld - 1]) === key(fresh[endNew - 1])) { endOld--; endNew--; }
      if (live.tagName !== next.tagName || endOld + endNew - 2 * first > 8) return unswapped();  // another shape of view
      attributes(live, next);  // the view's version, its seats, time up
      var changed = [], now = [], left = old.slice(first, endOld), at = old[first] || null;
      fresh.forEach(function (part, j) {
        var was = j < first ? old[j] : j >= endNew ? old[j - endNew + endOld] : null;
        if (!was) {
          was = left.filter(function (el) { return key(el) === key(part); })[0];
          if (was) {
            left.splice(left.indexOf(was), 1);
            if (was !== at) (live.moveBefore || live.insertBefore).call(live, was, at);
            else at = at.nextElementSibling;
          } else {
            live.insertBefore(part, at);
            M.defaults.callbacks.afterNodeAdded(part);
            changed.push(part);
            return now.push(part);
          }
        }
        if (!part.hasAttribute(SAME)) patch(was, part, changed);
        now.push(was);
      });
      left.forEach(function (el) { el.remove(); });
      putBackAll(live, next, fresh, now);
      return changed;
    }
  });
})();

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
  var missedSeats = 0;  // a seat taken or freed meanwhile

  function view() { return document.getElementById("view"); }
  function shown(name) {
    var el = document.querySelector("#view [data-" + name + "]");
    return el ? parseInt(el.getAttribute("data-" + name), 10) || 0 : 0;
  }
  function shownVersion() { return shown("version"); }
  function shownSeats() { return shown("seats"); }

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
    if ((missedVersion > shownVersion() || missedSeats > shownSeats()) && window.htmx) {
      window.htmx.trigger(view(), "resync");
    }
    missedVersion = 0;
    missedSeats = 0;
  });

  // A refresh pushed by the stream is skipped when the view already shows that version
  // (this phone's own action) or those seats. While this phone's own action is on its way
  // it waits: the answer brings the fresh view, and a refresh meanwhile would swap the view
  // twice under the finger. It is remembered and caught up with afterwards.
  document.addEventListener("htmx:confirm", function (event) {
    var trigger = event.detail && event.detail.triggeringEvent;
    if (!trigger || (trigger.type !== "sse:update" && trigger.type !== "sse:seats")) return;
    var pushed = parseInt(trigger.detail && trigger.detail.data, 10) || 0;
    var seats = trigger.type === "sse:seats";
    if (pushed <= (seats ? shownSeats() : shownVersion())) {
      event.preventDefault();
      return;
    }
    if (!sendingCount) return;
    event.preventDefault();
    if (seats) missedSeats = Math.max(missedSeats, pushed);
    else missedVersion = Math.max(missedVersion, pushed);
  });

  // After its first view the stream sends each as its change from the one it sent before
  // ("~" and the new length, then "=offset,length" for a span of that view or "+" and new
  // text, a line each): the page keeps the last one, shown or not. One that does not come
  // out whole is not shown (the update after it fetches the view), and the stream is
  // opened anew, so that it starts again from a whole view.
  var streamed = null;
  var source = null;
  document.addEventListener("htmx:sseOpen", function (event) {
    streamed = null;
    source = event.detail && event.detail.source;
  });
  function reopenStream() {
    if (!source) return;
    var closing = source;
    source = null;
    closing.close();
    // As if it had dropped: the sse extension opens it again (told without an error, so
    // nothing is logged: the stream is fine, one message was not).
    if (closing.onerror) closing.onerror();
  }
  function putTogether(data) {
    if (data.charAt(0) !== "~") return data;
    if (streamed === null) return null;
    var lines = data.split("\n"), out = [];
    for (var i = 1; i < lines.length; i++) {
      var line = lines[i], comma = line.indexOf(",");
      if (line.charAt(0) === "+") out.push(line.slice(1));
      else if (line.charAt(0) === "=" && comma > 0) {
        var start = parseInt(line.slice(1, comma), 10);
        out.push(streamed.slice(start, start + parseInt(line.slice(comma + 1), 10)));
      } else return null;
    }
    var html = out.join("");
    return html.length === parseInt(lines[0].slice(1), 10) ? html : null;
  }

  // A view pushed by the stream is swapped in only when it is newer than the one shown,
  // and not while this phone's own action is on its way (its update is caught up with
  // afterwards, as above).
  document.addEventListener("htmx:sseBeforeMessage", function (event) {
    var message = event.detail;
    if (!message || message.type !== "view") return;
    var html = putTogether(message.data || "");
    streamed = html;
    if (html === null) {
      event.preventDefault();
      reopenStream();
      return;
    }
    // What the sse extension swaps in next.
    if (html !== message.data) Object.defineProperty(message, "data", { value: html });
    var version = pushedNumber(html, "version");
    var seats = pushedNumber(html, "seats");
    var newer = version > shownVersion() || (version === shownVersion() && seats > shownSeats());
    if (!newer || sendingCount) {
      event.preventDefault();
      if (newer) {
        missedVersion = Math.max(missedVersion, version);
        missedSeats = Math.max(missedSeats, seats);
      }
      return;
    }
    document.dispatchEvent(new CustomEvent("forest:beforePush"));
  });
  function pushedNumber(html, name) {
    var found = new RegExp('data-' + name + '="(\\d+)"').exec(html);
    return found ? parseInt(found[1], 10) : 0;
  }

  // A form sends the version of the view it is in, the one on screen when it was tapped
  // (forms carry none of their own: a view's forms stay the same text from one version to
  // the next, and a pushed change leaves them out).
  // A form from a part every phone shares carries no request id either (two phones must
  // never send the same one): it gets its own when tapped. The id stands for what the tap
  // sends: the same form sent again with the same content keeps it, so a tap sent again
  // after a lost answer is known as the same tap; other content (the other button, a newer
  // view) is another tap and gets another.
  var ridChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  function freshRid() {
    var bytes = new Uint8Array(16), out = "";
    window.crypto.getRandomValues(bytes);
    for (var i = 0; i < bytes.length; i++) out += ridChars.charAt(bytes[i] & 63);
    return out;
  }
  function content(parameters) {
    var parts = [];
    parameters.forEach(function (value, key) { if (key !== "rid") parts.push(key + "=" + value); });
    return parts.join("&");
  }
  document.addEventListener("htmx:configRequest", function (event) {
    var form = event.detail.elt && event.detail.elt.closest && event.detail.elt.closest("form");
    if (!form || !view() || !view().contains(form)) return;
    var parameters = event.detail.parameters;
    if (!parameters.has("version")) parameters.set("version", String(shownVersion()));
    var field = form.querySelector("input[name=rid]");
    if (!field) return;
    var sends = content(event.detail.formData || parameters);
    if (!field.value || form.forestRidFor !== sends) {
      field.value = freshRid();
      form.forestRidFor = sends;
    }
    parameters.set("rid", field.value);
  });

  // An answer older than the view on screen (a refresh overtaken by a tap's answer) is
  // not swapped in: the screen never steps back.
  document.addEventListener("htmx:beforeSwap", function (event) {
    if (event.detail.target !== view() || !event.detail.xhr) return;
    var found = /data-version="(\d+)"/.exec(event.detail.xhr.responseText || "");
    if (found && parseInt(found[1], 10) < shownVersion()) event.detail.shouldSwap = false;
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

// Live updates come over one stream per page, which the server ends every few minutes; the
// browser opens it again by itself. That is no error: only a stream that cannot come back
// (refused by the server) is handed to the sse extension as one, which then opens it anew
// after a pause. A phone without a network is shown so (below), not logged.
(function () {
  "use strict";
  if (!window.htmx || !window.htmx.createEventSource || !window.EventSource) return;
  var open = window.htmx.createEventSource;
  var current = null;
  // Offline, each of the browser's own retries would fail, logged as an error: the stream
  // rests instead, and the extension opens it again once the network is back.
  function rest(source) {
    if (source.readyState === EventSource.CLOSED || !source.onerror) return;
    source.close();
    window.addEventListener("online", function () { source.onerror.call(source, undefined); }, { once: true });
  }
  window.addEventListener("offline", function () { if (current) rest(current); });
  window.htmx.createEventSource = function (url) {
    var source = open(url);
    var handler = null;
    current = source;
    // The extension sets onerror; it is called here only when it has something to do.
    Object.defineProperty(source, "onerror", {
      configurable: true,
      get: function () { return handler; },
      set: function (fn) { handler = fn; }
    });
    source.addEventListener("error", function () {
      document.dispatchEvent(new CustomEvent("forest:streamDropped"));
      if (!navigator.onLine) return rest(source);
      if (source.readyState === EventSource.CONNECTING || !handler) return;  // reconnecting itself
      handler.call(source, navigator.onLine ? window.forestWord("refused") : undefined);
    });
    source.addEventListener("open", function () {
      document.dispatchEvent(new CustomEvent("forest:streamOpen"));
    });
    return source;
  };
})();

// Every tap is accounted for. The tapped control shows at once that it is on its way; a tap
// the network lost is sent again, the very same request with the same request id, when the
// network is back (so the server applies it once, whether or not the first one arrived); one
// that still cannot be sent says so. A phone without a network says so, and catches up (a
// fresh view) when it is back.
(function () {
  "use strict";
  var RETRY_MS = [1500, 4000, 8000];  // a network that says it is up but fails
  var GIVE_UP_MS = 120000;  // a tap older than this is not made for the player any more
  var unsent = [];  // {path, values, label, at, tries}
  var timer = null;
  var lostStream = null;

  function view() { return document.getElementById("view"); }
  function formOf(event) {
    var config = event.detail.requestConfig;
    var elt = config ? config.elt : event.detail.elt;
    return elt && elt.tagName === "FORM" && view() && view().contains(elt) ? elt : null;
  }

  function strip() {
    var box = document.getElementById("net");
    if (!box) {
      box = document.createElement("p");
      box.id = "net";
      box.className = "net";
      box.setAttribute("role", "status");
      box.hidden = true;
      document.body.appendChild(box);
    }
    return box;
  }
  function say() {
    if (!view()) return;
    var box = strip(), text = "", tap = unsent.length ? { label: unsent[unsent.length - 1].label } : null;
    if (!navigator.onLine) text = tap ? window.forestWord("offline_tap", tap) : window.forestWord("offline");
    else if (tap) text = window.forestWord("retrying", tap);
    else if (lostStream === true) text = window.forestWord("lost");
    box.textContent = text;
    box.hidden = !text;
    document.documentElement.classList.toggle("net-down", !!text);
  }

  function notice(message) {
    document.dispatchEvent(new CustomEvent("forest-notice", { detail: { message: message, kind: "error" } }));
  }

  // Pending at once. A form of several buttons (Stay and Return) shows them all as pending:
  // which one was tapped is nobody else's business.
  function buttonsOf(form, submitter) {
    var all = form.querySelectorAll("button:not([type=button]), input[type=submit]");
    return all.length > 1 || !submitter ? Array.prototype.slice.call(all) : [submitter];
  }
  // What the tap is called on screen: the button's words without their small print; for a
  // form of several buttons (a secret choice) only the form's own name, or "your tap".
  function labelOf(form, buttons) {
    var words = "";
    if (buttons.length === 1) {
      var copy = buttons[0].cloneNode(true);
      Array.prototype.forEach.call(copy.querySelectorAll("small"), function (small) { small.remove(); });
      words = copy.textContent;
    } else {
      words = form.getAttribute("aria-label") || "";
    }
    return words.replace(/\s+/g, " ").trim() || window.forestWord("your_tap");
  }
  document.addEventListener("htmx:beforeRequest", function (event) {
    var form = formOf(event);
    if (!form) return;
    var config = event.detail.requestConfig;
    var trigger = config && config.triggeringEvent;
    var submitter = trigger && trigger.submitter;
    form.forestPending = buttonsOf(form, submitter);
    form.forestPending.forEach(function (button) { button.setAttribute("aria-busy", "true"); });
    var values = new FormData();
    config.formData.forEach(function (value, key) { values.append(key, value); });
    form.forestRequest = { path: config.path, values: values, at: Date.now(), tries: 0,
                           label: labelOf(form, form.forestPending) };
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    var form = formOf(event) || (event.detail.requestConfig && event.detail.requestConfig.elt);
    if (!form || !form.forestPending) return;
    form.forestPending.forEach(function (button) { button.removeAttribute("aria-busy"); });
    form.forestPending = null;
  });

  // Offline, a tap is not sent only to fail (htmx and the browser would log the failure as an
  // error): it waits, as one the network lost does, and goes when the network is back.
  document.addEventListener("htmx:configRequest", function (event) {
    var form = formOf(event), detail = event.detail;
    if (navigator.onLine || !form || String(detail.verb).toLowerCase() !== "post" || !detail.formData) return;
    event.preventDefault();
    var values = new FormData();
    detail.formData.forEach(function (value, key) { values.append(key, value); });
    var trigger = detail.triggeringEvent;
    keep({ path: detail.path, values: values, at: Date.now(), tries: 0,
           label: labelOf(form, buttonsOf(form, trigger && trigger.submitter)) });
  });
  document.addEventListener("htmx:sendError", function (event) {
    var config = event.detail.requestConfig || {};
    var request = config.forestRetry || (config.elt && config.elt.forestRequest);
    if (!request) return;
    if (config.elt) config.elt.forestRequest = null;
    keep(request);
  });
  function keep(request) {
    // A newer tap replaces one of the same action not sent yet (a change of mind).
    unsent = unsent.filter(function (old) {
      return old === request || old.values.get("action") !== request.values.get("action")
        || old.values.get("seat") !== request.values.get("seat");
    });
    if (unsent.indexOf(request) < 0) unsent.push(request);
    say();
    if (navigator.onLine) later();
  }
  function later() {
    clearTimeout(timer);
    var first = unsent[0];
    if (!first) return;
    if (first.tries >= RETRY_MS.length) {
      unsent.shift();
      say();
      notice(window.forestWord("not_reached", { label: first.label }));
      return later();
    }
    timer = setTimeout(sendAgain, RETRY_MS[first.tries]);
  }
  var retrying = null;
  function sendAgain() {
    clearTimeout(timer);
    var source = document.getElementById("live");
    if (retrying || !unsent.length || !window.htmx || !source || !view()) return;
    var request = unsent[0];
    if (Date.now() - request.at > GIVE_UP_MS) {
      unsent.shift();
      say();
      notice(window.forestWord("too_old", { label: request.label }));
      return sendAgain();
    }
    request.tries += 1;
    retrying = request;
    // Exactly what was sent the first time (same version, same request id), from outside the
    // view: nothing of the form as it is now is added, and no refresh of the view queued
    // behind or ahead of it can drop it.
    window.htmx.ajax("POST", request.path, { source: source, target: "#view", swap: "morph:innerHTML",
                                             values: request.values })
      .then(function () {
        retrying = null;
        unsent = unsent.filter(function (old) { return old !== request; });
        say();
        sendAgain();
      }, function () { retrying = null; });
  }
  document.addEventListener("htmx:configRequest", function (event) {
    if (retrying && event.detail.elt === document.getElementById("live")) event.detail.forestRetry = retrying;
  });

  window.addEventListener("online", function () { say(); sendAgain(); });
  window.addEventListener("offline", say);
  // A stream that does not come back within a few seconds is a connection lost.
  var lostTimer = null;
  document.addEventListener("forest:streamDropped", function () {
    if (lostTimer || lostStream) return;
    lostTimer = setTimeout(function () { lostTimer = null; lostStream = true; say(); }, 5000);
  });
  document.addEventListener("forest:streamOpen", function () {
    clearTimeout(lostTimer);
    lostTimer = null;
    var wasLost = lostStream;
    lostStream = false;
    say();
    if (wasLost) sendAgain();
  });
  document.addEventListener("DOMContentLoaded", say);
})();

// The screen never leaves a phone stranded. When a new view makes a step this phone's (its
// main card asks it for something new), the main card comes into view, smoothly, below the
// countdown bar and above the bottom bar; not while the player is scrolling or typing (a
// "Your move" button then takes them there). And focus never stays on a control the player
// did not touch: a refresh can turn the button just tapped into another one.
(function () {
  "use strict";
  var SCROLLING_MS = 700;
  var lastStep = null;
  var scrolledAt = -Infinity, touching = 0;  // when the finger that is on the glass came down
  var touched = null;  // {el, label}: the control the player last touched or moved to

  function view() { return document.getElementById("view"); }
  function mainCard() { return document.querySelector("#view [data-primary]"); }
  function label(el) {
    return (el.getAttribute("aria-label") || el.textContent || "").replace(/\s+/g, " ").trim() + "|" + (el.name || "");
  }
  // What the card asks of this phone: its controls that are on screen (not in a closed panel).
  function controls(card) {
    return Array.prototype.filter.call(
      card.querySelectorAll("button, input:not([type=hidden]), select, textarea, a.btn"),
      function (el) { return !el.disabled && el.getClientRects().length > 0; });
  }
  function stepOf(card) {
    var heading = card.querySelector("h1, h2, h3");
    return (heading ? heading.textContent.trim() : "") + "\n" + controls(card).map(label).join("\n");
  }

  // The part of the screen nothing covers: under the countdown bar, above the bottom bar.
  function clearArea() {
    var top = 0, bottom = window.innerHeight;
    var status = document.querySelector("#view .status-line");
    if (status && getComputedStyle(status).position === "sticky") top = Math.max(0, status.getBoundingClientRect().bottom);
    ["#view .bottom-bar", "#net:not([hidden])"].forEach(function (selector) {
      var bar = document.querySelector(selector);
      if (bar && bar.getClientRects().length) bottom = Math.min(bottom, bar.getBoundingClientRect().top);
    });
    return { top: top, bottom: bottom };
  }
  // How far to scroll so that the card, or at least its controls, fit in that area.
  function offBy(card) {
    var area = clearArea(), list = controls(card);
    var box = card.getBoundingClientRect();
    var top = box.top, bottom = list.length ? list[list.length - 1].getBoundingClientRect().bottom : box.bottom;
    if (bottom - top > area.bottom - area.top && list.length) top = list[0].getBoundingClientRect().top;
    if (top < area.top - 1) return top - area.top;
    if (bottom > area.bottom + 1) return Math.min(bottom - area.bottom, top - area.top);
    return 0;
  }

  function typing() {
    var el = document.activeElement;
    if (!el || !el.matches) return false;
    if (el.isContentEditable || el.matches("textarea, select")) return true;
    return el.matches("input") && !/^(button|submit|reset|checkbox|radio|range|color|file|image)$/.test(el.type);
  }
  // A finger on the glass holds the screen; a touch whose end never came (its element was
  // taken out of the page under it, so the end did not reach the window) only for a while.
  function scrolling() {
    var now = performance.now();
    return (touching && now - touching < 5000) || now - scrolledAt < SCROLLING_MS;
  }

  function bringIntoView(card) {
    var by = offBy(card);
    if (!by) return;
    var calm = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    window.scrollBy({ top: by, behavior: calm ? "auto" : "smooth" });
  }

  var pill = null;
  function hidePill() { if (pill) { pill.remove(); pill = null; } }
  function showPill(card) {
    if (!pill) {
      pill = document.createElement("button");
      pill.type = "button";
      pill.className = "btn primary your-move";
      pill.addEventListener("click", function () {
        var now = mainCard();
        hidePill();
        if (now) bringIntoView(now);
      });
      document.body.appendChild(pill);
    }
    var heading = card.querySelector("h1, h2, h3");
    pill.textContent = (offBy(card) < 0 ? "↑ " : "↓ ") + (heading
      ? window.forestWord("your_move_at", { heading: heading.textContent.trim() }) : window.forestWord("your_move"));
  }
  window.addEventListener("scroll", function () {
    // Momentum goes on after the finger has left: a scroll soon after the player's is theirs.
    if (performance.now() - scrolledAt < 300) scrolledAt = performance.now();
    var card = pill && mainCard();
    if (card && !offBy(card)) hidePill();
  }, { passive: true });
  ["wheel", "touchmove"].forEach(function (name) {
    window.addEventListener(name, function () { scrolledAt = performance.now(); }, { passive: true });
  });
  window.addEventListener("touchstart", function () { touching = performance.now(); }, { passive: true });
  ["touchend", "touchcancel", "pointerup", "pointercancel"].forEach(function (name) {
    window.addEventListener(name, function () { touching = 0; }, { passive: true });
  });
  window.addEventListener("keydown", function (event) {
    if (/^(ArrowUp|ArrowDown|PageUp|PageDown|Home|End| )$/.test(event.key) && !typing()) scrolledAt = performance.now();
  });

  // What the player touched or moved to, as it read then.
  function touch(event) {
    var el = event.target && event.target.closest && event.target.closest("button, input, select, textarea, a, summary");
    if (el) touched = { el: el, label: label(el) };
  }
  document.addEventListener("pointerdown", touch, true);
  document.addEventListener("focusin", touch, true);

  function settle() {
    var card = mainCard();
    var step = card ? stepOf(card) : null;
    var isNew = step !== lastStep;
    lastStep = step;
    var mine = isNew && card && controls(card).length > 0;

    var active = document.activeElement;
    var stale = active && active !== document.body && active !== card && view().contains(active)
      && !(touched && touched.el === active && touched.label === label(active));
    if (stale) active.blur();
    if (!mine) {
      if (isNew) hidePill();  // the move it pointed to is gone
      return;
    }
    if (scrolling() || typing()) {
      if (offBy(card)) showPill(card);
      return;
    }
    hidePill();
    bringIntoView(card);
    if (stale || document.activeElement === document.body) {
      // The next Tab starts at the card; a screen reader reads where the move is.
      card.setAttribute("tabindex", "-1");
      card.focus({ preventScroll: true });
    }
  }
  document.addEventListener("htmx:afterSettle", function (event) {
    if (view() && event.target === view()) settle();
  });
  document.addEventListener("DOMContentLoaded", function () {
    var card = mainCard();
    lastStep = card ? stepOf(card) : null;
  });
})();

// The voice (voice.js: steps read aloud, speaker buttons) loads when first wanted: the
// switch or a speaker tapped, or the switch left on. Most phones never load it.
(function () {
  "use strict";
  var loading = false;
  function load(tap) {
    var from = document.querySelector("[data-voice-src]");
    if (loading || !from) return;
    loading = true;
    var script = document.createElement("script");
    script.src = from.getAttribute("data-voice-src");
    script.onload = function () { if (tap && window.forestVoice) window.forestVoice.tapped(tap); };
    document.head.appendChild(script);
  }
  document.addEventListener("click", function (event) {
    var tap = event.target.closest && event.target.closest("[data-voice-toggle], [data-speak]");
    if (tap && !window.forestVoice) load(tap);
  });
  document.addEventListener("DOMContentLoaded", function () {
    try { if (localStorage.getItem("forest-voice") === "on") load(null); } catch (e) { /* private mode */ }
  });
})();
