// plagd: small progressive enhancements. Every page works without scripts;
// this file adds the upload desk's per-file rows, upload progress and the
// choice for files already in the archive, pages that follow the runs
// (a pending report, the documents table, files just uploaded) and a copy
// button.
(function () {
  "use strict";

  function csrfToken() {
    var m = document.querySelector('meta[name="csrf-token"]');
    return m ? m.getAttribute("content") : "";
  }

  function formatBytes(n) {
    if (n >= 1 << 20) return (n / (1 << 20)).toFixed(1) + " MiB";
    if (n >= 1 << 10) return Math.round(n / (1 << 10)) + " KiB";
    return n + " B";
  }

  // Upload: choosing several files builds a row of details per file
  // (title, author, kind, year, external id, restricted; kind, year and
  // restricted default to the shared fields). Each file is then sent on its
  // own to POST /api/v1/documents, two at a time, with a progress bar and
  // the server's verdict per file: stored, stored but unreadable with the
  // reason, refused, or already in the archive byte for byte (409), with
  // buttons to replace that document's file or store a new one anyway.
  function enhanceUpload(form) {
    var list = document.getElementById("upload-list");
    var maxBytes = parseInt(form.getAttribute("data-max-bytes"), 10) || 0;
    var input = form.querySelector('input[type="file"]');
    var single = form.querySelector("[data-single-file]");
    var rowsBox = form.querySelector("[data-upload-rows]");
    var tbody = rowsBox ? rowsBox.querySelector("tbody") : null;
    var perFile = [];

    function cell(tr, el) { var td = document.createElement("td"); td.appendChild(el); tr.appendChild(td); return el; }
    function field(type, name, placeholder) {
      var i = document.createElement("input");
      i.type = type; i.name = "row-" + name; i.placeholder = placeholder || "";
      if (type === "number") { i.min = 1900; i.max = 2100; i.className = "short"; }
      i.setAttribute("aria-label", name.replace("_", " "));
      return i;
    }
    function buildRows() {
      perFile = [];
      if (!tbody) return;
      tbody.innerHTML = "";
      var files = Array.prototype.slice.call(input.files || []);
      var several = files.length > 1;
      rowsBox.hidden = !several;
      if (single) single.hidden = several;
      if (!several) return;
      files.forEach(function (f) {
        var tr = document.createElement("tr");
        var name = document.createElement("span");
        name.textContent = f.name;
        cell(tr, name).parentNode.className = "file";
        var row = {
          title: cell(tr, field("text", "title", f.name.replace(/\.[^.]*$/, ""))),
          author: cell(tr, field("text", "author")),
          kind: cell(tr, field("text", "kind", "as for all")),
          year: cell(tr, field("number", "year", "as for all")),
          external_id: cell(tr, field("text", "external_id")),
          restricted: cell(tr, field("checkbox", "restricted"))
        };
        row.kind.setAttribute("list", "doc-kinds");
        tbody.appendChild(tr);
        perFile.push(row);
      });
    }
    if (input) input.addEventListener("change", buildRows);

    form.addEventListener("submit", function (ev) {
      if (!input || !input.files.length || !window.XMLHttpRequest || !window.FormData) return;
      ev.preventDefault();
      var files = Array.prototype.slice.call(input.files);
      var shared = new FormData(form);
      shared.delete("file");
      shared.delete("csrf");
      if (files.length > 1) { shared.delete("title"); shared.delete("author"); shared.delete("external_id"); }
      list.innerHTML = "";
      var queue = files.map(function (f, i) {
        var fd = new FormData();
        shared.forEach(function (v, k) { fd.append(k, v); });
        var row = perFile[i];
        if (row) {
          ["title", "author", "kind", "year", "external_id"].forEach(function (k) {
            var v = row[k].value.trim();
            if (v) fd.set(k, v);
          });
          if (row.restricted.checked) fd.set("restricted", "on");
        }
        fd.append("file", f, f.name);
        return { file: f, fd: fd, row: addRow(f) };
      });
      var total = queue.length, done = 0, ok = 0, warned = 0, failed = 0, near = 0, same = 0;
      function next() {
        var job = queue.shift();
        if (!job) return;
        if (maxBytes && job.file.size > maxBytes) {
          finish(job.row, "error", "too large: " + formatBytes(job.file.size) + " is over the limit of " + formatBytes(maxBytes));
          failed++; settle(); next();
          return;
        }
        send(job, function () { settle(); next(); });
      }
      function send(job, then) {
        var xhr = new XMLHttpRequest();
        xhr.open("POST", "/api/v1/documents");
        xhr.setRequestHeader("X-CSRF-Token", csrfToken());
        job.row.li.className = "uploading";
        xhr.upload.onprogress = function (e) {
          if (e.lengthComputable) job.row.bar.value = e.loaded / e.total;
        };
        xhr.onload = function () {
          var body = {};
          try { body = JSON.parse(xhr.responseText); } catch (e) { /* not JSON */ }
          if (xhr.status === 201 || xhr.status === 200) {
            var id = body.document.id;
            var link = '<a href="/documents/' + id + '">document ' + id + "</a>";
            var what = body.replaced ? "replaced the file of " + link : "stored as " + link;
            var dups = body.near_duplicates || [];
            job.row.li.setAttribute("data-doc", id);
            if (body.warning) { warned++; finish(job.row, "warn", what + "; " + escapeHTML(body.warning), true); }
            else {
              ok++;
              if (dups.length) near++;
              finish(job.row, dups.length ? "ok near" : "ok", what + nearVerdict(dups, body.near_duplicates_error), true);
            }
            job.row.msg.insertAdjacentHTML("beforeend", ' <span class="badge b-pending" data-doc-status>pending</span>');
            watchDocs();
          } else if (xhr.status === 409 && body.existing) {
            same++;
            finish(job.row, "warn", escapeHTML(body.error.message.replace(/: send it again.*$/, "")) + ".", true);
            offerChoice(job, then);
            return;
          } else {
            failed++;
            finish(job.row, "error", (body.error && body.error.message) || ("HTTP " + xhr.status));
          }
          if (then) then();
        };
        xhr.onerror = function () { failed++; finish(job.row, "error", "network error: the file was not sent"); if (then) then(); };
        xhr.send(job.fd);
      }
      // offerChoice shows the two ways on for a file already in the
      // archive; the file goes on in the queue's count as settled.
      function offerChoice(job, then) {
        var box = document.createElement("span");
        box.className = "dup-actions";
        [["replace", "Replace the existing document's file"], ["new", "Store as a new document anyway"]].forEach(function (c) {
          var b = document.createElement("button");
          b.type = "button"; b.className = "small"; b.textContent = c[1];
          b.setAttribute("data-duplicate", c[0]);
          b.addEventListener("click", function () {
            same--;
            job.fd.set("duplicate", c[0]);
            box.remove();
            send(job, null);
          });
          box.appendChild(b);
        });
        job.row.msg.appendChild(box);
        if (then) then();
      }
      function settle() {
        done++;
        if (done === total) {
          var sum = document.createElement("li");
          sum.className = "summary";
          sum.textContent = ok + " stored" + (near ? " (" + near + " of them near-duplicates)" : "") + ", " + warned +
            " stored but unreadable, " + (same ? same + " already in the archive (choose above), " : "") + failed +
            " refused. The next run indexes them; this list shows when. ";
          var more = document.createElement("a");
          more.href = "/documents?status=pending";
          more.textContent = "Show the pending documents";
          sum.appendChild(more);
          list.appendChild(sum);
          form.reset();
          buildRows();
        }
      }
      next(); next();
    });

    function addRow(f) {
      var li = document.createElement("li");
      li.className = "uploading";
      var name = document.createElement("span");
      name.className = "name";
      name.textContent = f.name + " (" + formatBytes(f.size) + ")";
      var bar = document.createElement("progress");
      bar.max = 1; bar.value = 0;
      var msg = document.createElement("span");
      msg.className = "msg";
      li.appendChild(name); li.appendChild(bar); li.appendChild(msg);
      list.appendChild(li);
      return { li: li, bar: bar, msg: msg };
    }
    function finish(row, cls, text, html) {
      row.li.className = cls;
      row.bar.value = 1;
      if (html) row.msg.innerHTML = text; else row.msg.textContent = text;
    }
  }

  // ---- pages that follow the runs ----

  // pollStatus asks GET /api/v1/status (with the documents ids() names)
  // until onStatus returns false: soon while a run is going on or due,
  // then backing off to 30 s; a hidden tab waits until it is shown again.
  function pollStatus(ids, onStatus) {
    var delay = 2000, timer = null, stopped = false;
    function schedule(ms) { if (!stopped) timer = setTimeout(tick, ms); }
    function tick() {
      timer = null;
      if (document.hidden) { document.addEventListener("visibilitychange", resume); return; }
      var q = ids();
      fetch("/api/v1/status" + (q.length ? "?documents=" + q.join(",") : ""), { credentials: "same-origin", headers: { Accept: "application/json" } })
        .then(function (r) { if (!r.ok) throw new Error("HTTP " + r.status); return r.json(); })
        .then(function (st) {
          if (onStatus(st) === false) { stopped = true; return; }
          if (st.running) delay = 2000;
          else if (st.next_run_in_s != null && st.next_run_in_s < 30) delay = Math.max(2000, (st.next_run_in_s + 1) * 1000);
          else delay = Math.min(delay * 1.5, 30000);
          schedule(delay);
        })
        .catch(function () { delay = Math.min(delay * 2, 30000); schedule(delay); });
    }
    function resume() {
      if (document.hidden) return;
      document.removeEventListener("visibilitychange", resume);
      if (!timer && !stopped) tick();
    }
    schedule(1000);
  }

  // waitWords says when the waiting ends, from a status answer.
  function waitWords(st) {
    if (st.running) return "A run is in progress; this page updates when it commits.";
    if (st.next_run_in_s != null) {
      var s = st.next_run_in_s;
      var when = s <= 1 ? "any moment now" : s < 90 ? "in about " + s + " s" : "in about " + Math.round(s / 60) + " min";
      return "Waiting for the next run, " + when + "; this page updates when it commits.";
    }
    if (!st.daemon) return "Waiting for the next run (started by plagd run or the daemon on another host); this page updates when it commits.";
    return "Waiting for the next run; this page updates when it commits.";
  }

  // A pending report: show the wait, then load the report once the
  // document's status changes (indexed, or failed with its reason).
  function followReport(box) {
    var id = box.getAttribute("data-wait-doc");
    var msg = box.querySelector("[data-wait-msg]") || box;
    pollStatus(function () { return [id]; }, function (st) {
      var d = st.documents.filter(function (x) { return String(x.id) === id; })[0];
      if (!d || d.status !== "pending") {
        msg.textContent = "The run has committed: loading the report…";
        location.reload();
        return false;
      }
      msg.textContent = waitWords(st);
      return true;
    });
  }

  // The documents table: while rows are pending, follow the runs and
  // replace the table with the server's when one commits.
  function followTable(table) {
    var line = document.querySelector("[data-live-status]");
    pollStatus(function () { return []; }, function (st) {
      if (!table.hasAttribute("data-pending")) { if (line) line.hidden = true; return false; }
      var seen = parseInt(table.getAttribute("data-last-run"), 10) || 0;
      if (st.last_run > seen) {
        refreshTable(table, st);
        return true;
      }
      if (line) { line.hidden = false; line.textContent = st.pending + " document" + (st.pending === 1 ? "" : "s") + " pending. " + waitWords(st); }
      return true;
    });
    function refreshTable(old, st) {
      fetch(location.href, { credentials: "same-origin" }).then(function (r) { return r.text(); }).then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        var fresh = doc.getElementById("doc-table");
        if (!fresh) return;
        old.querySelector("tbody").replaceWith(fresh.querySelector("tbody"));
        old.setAttribute("data-last-run", fresh.getAttribute("data-last-run"));
        if (fresh.hasAttribute("data-pending")) old.setAttribute("data-pending", ""); else old.removeAttribute("data-pending");
        if (line) {
          line.hidden = false;
          line.textContent = "Run #" + st.last_run + " committed; the table is up to date." +
            (fresh.hasAttribute("data-pending") ? " " + waitWords(st) : "");
        }
      });
    }
  }

  // Files just uploaded (the list the upload builds, or the page's "Just
  // uploaded" rows): each row's badge follows its document's status.
  var docWatch = null;
  function watchDocs() {
    if (docWatch) return;
    docWatch = true;
    pollStatus(function () {
      return Array.prototype.map.call(document.querySelectorAll("ul.uploads li[data-doc]"), function (li) { return li.getAttribute("data-doc"); });
    }, function (st) {
      var waiting = 0;
      st.documents.forEach(function (d) {
        Array.prototype.forEach.call(document.querySelectorAll('ul.uploads li[data-doc="' + d.id + '"]'), function (li) {
          var badge = li.querySelector("[data-doc-status]");
          if (!badge) {
            badge = document.createElement("span");
            badge.setAttribute("data-doc-status", "");
            li.querySelector(".msg").appendChild(document.createTextNode(" "));
            li.querySelector(".msg").appendChild(badge);
          }
          badge.className = "badge b-" + d.status;
          badge.textContent = d.status === "indexed" ? "indexed: report ready" : d.status;
          if (d.status === "pending") waiting++;
        });
      });
      if (!waiting) { docWatch = null; return false; }
      return true;
    });
  }

  // nearVerdict says, as the upload page does without scripts (the
  // "neardup-verdict" template), which documents an upload nearly duplicates.
  function nearVerdict(dups, err) {
    var out = "";
    if (dups.length) {
      out = " — near-duplicate of " + dups.map(function (d) {
        var name = d.title || d.external_id || ("Document " + d.id);
        var apart = d.distance === 0 ? "same fingerprint" : d.distance === 1 ? "1 bit apart" : d.distance + " bits apart";
        return '<a href="/documents/' + d.id + '">#' + d.id + " “" + escapeHTML(name) + "”</a> (" + apart + ")" +
          (d.pending ? ' <span class="badge b-pending">pending</span>' : "") +
          (d.restricted ? ' <span class="badge b-restricted">restricted</span>' : "");
      }).join(", ");
    }
    if (err) return out + "; " + escapeHTML(err);
    return dups.length ? out : "; no near-duplicate";
  }

  function escapeHTML(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    var form = document.getElementById("upload-form");
    if (form) enhanceUpload(form);
    var wait = document.querySelector("[data-wait-doc]");
    if (wait && window.fetch) followReport(wait);
    var table = document.getElementById("doc-table");
    if (table && table.hasAttribute("data-pending") && window.fetch) followTable(table);
    if (document.querySelector("ul.uploads li[data-doc]") && window.fetch) watchDocs();
    var tok = document.getElementById("new-token");
    if (tok && navigator.clipboard) {
      var b = document.createElement("button");
      b.type = "button"; b.textContent = "Copy"; b.className = "small";
      b.addEventListener("click", function () { navigator.clipboard.writeText(tok.textContent); b.textContent = "Copied"; });
      tok.insertAdjacentElement("afterend", b);
    }
  });
})();
