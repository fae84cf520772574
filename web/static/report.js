// plagd report pages: filters that apply at once, the side-by-side view's
// jumps between the two texts, the print button and a few confirmations.
// Every page works without it; on pages without these elements it does
// nothing.
(function () {
  "use strict";

  function each(sel, fn, root) {
    Array.prototype.forEach.call((root || document).querySelectorAll(sel), fn);
  }

  // Filters: any change fetches the same page with partial=1, which the
  // server answers with the report region alone, rendered by the same
  // template as the full page; the region is swapped in and the address
  // updated, so reloading or sharing the link shows the same report.
  function liveFilters(form) {
    var region = document.getElementById("report-region");
    if (!region || !window.fetch || !window.URLSearchParams || !window.history || !history.replaceState) return;
    var status = form.querySelector("[data-filter-status]");
    var apply = form.querySelector(".apply");
    if (apply) apply.hidden = true;
    var seq = 0, timer = null;

    function params() {
      var p = new URLSearchParams();
      // form.elements includes the exclude boxes in the table (form="filters")
      Array.prototype.forEach.call(form.elements, function (el) {
        if (!el.name || el.disabled || el.type === "submit" || el.type === "button") return;
        if ((el.type === "checkbox" || el.type === "radio") && !el.checked) return;
        p.append(el.name, el.value);
      });
      return p;
    }

    function refresh() {
      clearTimeout(timer);
      var my = ++seq;
      var p = params();
      p.set("partial", "1");
      var action = form.getAttribute("action");
      if (status) status.textContent = "Updating…";
      region.setAttribute("aria-busy", "true");
      fetch(action + "?" + p.toString(), { credentials: "same-origin", headers: { "Accept": "text/html" } })
        .then(function (resp) {
          if (!resp.ok) throw new Error("HTTP " + resp.status);
          return resp.text();
        })
        .then(function (html) {
          if (my !== seq) return;
          var box = document.createElement("div");
          box.innerHTML = html;
          var fresh = box.querySelector("#report-region");
          if (!fresh) throw new Error("unexpected answer");
          // The parts the filters do not change (the related documents)
          // come as empty placeholders marked data-keep: the page's own
          // are carried over instead of being read again.
          each("[data-keep]", function (ph) {
            var kept = ph.id && region.querySelector("#" + ph.id);
            if (kept) ph.parentNode.replaceChild(kept, ph);
          }, fresh);
          region.parentNode.replaceChild(fresh, region);
          region = fresh;
          document.dispatchEvent(new Event("plagd:region"));
          var q = fresh.getAttribute("data-query");
          history.replaceState(null, "", action + (q ? "?" + q : "") + location.hash);
          if (status) status.textContent = "";
        })
        .catch(function (err) {
          if (my !== seq) return;
          region.removeAttribute("aria-busy");
          if (apply) apply.hidden = false;
          if (status) status.textContent = "Could not update (" + err.message + "): press Apply.";
        });
    }

    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      refresh();
    });
    document.addEventListener("change", function (ev) {
      var el = ev.target;
      if (el && el.form === form) refresh();
    });
    var min = form.querySelector('input[name="min"]');
    if (min) {
      min.addEventListener("input", function () {
        clearTimeout(timer);
        if (min.validity && !min.validity.valid) return;
        timer = setTimeout(refresh, 400);
      });
    }
  }

  // Side by side: a numbered highlight scrolls the other column to its
  // counterpart; a passage number in the table scrolls both columns.
  function scrollColumnTo(id, smooth, quiet) {
    var target = document.getElementById(id);
    if (!target) return;
    var col = target.closest(".coltext");
    if (!col) return;
    // position within the column's scrolled content, whatever the offsetParent
    var top = col.scrollTop + (target.getBoundingClientRect().top - col.getBoundingClientRect().top) - col.clientHeight / 3;
    if (col.scrollTo) col.scrollTo({ top: Math.max(top, 0), behavior: smooth ? "smooth" : "auto" });
    else col.scrollTop = Math.max(top, 0);
    if (quiet) return;
    var next = target.nextElementSibling;
    var mark = next && (next.tagName === "MARK" ? next : next.querySelector("mark"));
    if (mark) {
      mark.classList.remove("flash");
      void mark.offsetWidth; // restart the animation
      mark.classList.add("flash");
    }
  }

  function sideBySide() {
    document.addEventListener("click", function (ev) {
      var a = ev.target.closest && ev.target.closest("a[data-jump], a[data-pair]");
      if (!a) return;
      ev.preventDefault();
      if (a.hasAttribute("data-pair")) {
        var n = a.getAttribute("data-pair");
        var cols = document.querySelector(".pair-cols");
        if (cols) cols.scrollIntoView({ behavior: "smooth", block: "start" });
        scrollColumnTo("a" + n, true);
        scrollColumnTo("b" + n, true);
        return;
      }
      scrollColumnTo(a.getAttribute("href").slice(1), true);
    });
    // Line both texts up at the passage a highlight of the report led
    // here for (#p3), else at the first one.
    var m = /^#p(\d+)$/.exec(location.hash);
    var n = m ? m[1] : "1";
    scrollColumnTo("a" + n, false, true);
    scrollColumnTo("b" + n, false, true);
  }

  // The match overview: next and previous passage (buttons, or n and p),
  // with "3 of 17". The anchors are found anew on every use, and a region
  // swapped in by the filters (event plagd:region) starts the count again.
  function matchNav() {
    var cur = -1;
    function anchors() { return document.querySelectorAll("#doc-text .match-anchor"); }
    function show() {
      var n = anchors().length;
      each("[data-match-nav]", function (nav) { nav.hidden = n === 0; });
      each("[data-match-pos]", function (el) { el.textContent = cur >= 0 && n ? (cur + 1) + " of " + n : n + " matches"; });
    }
    function step(d) {
      var list = anchors();
      if (!list.length) return;
      cur = cur < 0 ? (d > 0 ? 0 : list.length - 1) : (cur + d + list.length) % list.length;
      var a = list[cur];
      a.scrollIntoView({ behavior: "smooth", block: "center" });
      var m = a.nextElementSibling;
      while (m && m.tagName !== "A" && m.tagName !== "MARK") m = m.nextElementSibling;
      var mark = m && (m.tagName === "MARK" ? m : m.querySelector("mark"));
      if (mark) {
        mark.classList.add("flash");
        setTimeout(function () { mark.classList.remove("flash"); }, 1200);
      }
      show();
    }
    document.addEventListener("click", function (ev) {
      var b = ev.target.closest && ev.target.closest("[data-match-step]");
      if (b) step(parseInt(b.getAttribute("data-match-step"), 10));
    });
    document.addEventListener("keydown", function (ev) {
      var t = ev.target;
      if (ev.ctrlKey || ev.metaKey || ev.altKey || (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName)))) return;
      if (ev.key === "n") step(1);
      if (ev.key === "p") step(-1);
    });
    document.addEventListener("plagd:region", function () { cur = -1; show(); });
    show();
  }

  function init() {
    matchNav();
    each("[data-print]", function (b) {
      b.hidden = false;
      b.addEventListener("click", function () { window.print(); });
    });
    each("form[data-confirm]", function (f) {
      f.addEventListener("submit", function (ev) {
        if (!window.confirm(f.getAttribute("data-confirm"))) ev.preventDefault();
      });
    });
    each("input[data-autosubmit]", function (el) {
      el.addEventListener("change", function () { if (el.form) el.form.submit(); });
      // the form now submits itself: its Apply button is only for pages without scripts
      var apply = el.form && el.form.querySelector(".apply");
      if (apply) apply.hidden = true;
    });
    var filters = document.getElementById("filters");
    if (filters) liveFilters(filters);
    if (document.querySelector(".coltext")) sideBySide();
    each("form[data-check-form]", function (f) {
      f.addEventListener("submit", function () {
        var busy = f.querySelector("[data-check-busy]");
        if (busy) busy.hidden = false;
        var b = f.querySelector('button[type="submit"]');
        if (b) setTimeout(function () { b.disabled = true; }, 0);
      });
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
