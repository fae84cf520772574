// plagd: small progressive enhancements. Every page works without scripts;
// this file only adds upload progress and a copy button.
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

  // Upload: each file is sent on its own to POST /api/v1/documents, two at a
  // time, with a progress bar and the server's verdict per file (stored,
  // stored but unreadable with the reason, or refused), and the documents it
  // nearly duplicates, which the server finds at once.
  function enhanceUpload(form) {
    var list = document.getElementById("upload-list");
    var maxBytes = parseInt(form.getAttribute("data-max-bytes"), 10) || 0;
    form.addEventListener("submit", function (ev) {
      var input = form.querySelector('input[type="file"]');
      if (!input || !input.files.length || !window.XMLHttpRequest) return;
      ev.preventDefault();
      var files = Array.prototype.slice.call(input.files);
      var shared = new FormData(form);
      shared.delete("file");
      shared.delete("csrf");
      list.innerHTML = "";
      var queue = files.map(function (f) { return { file: f, row: addRow(f) }; });
      var done = 0, ok = 0, warned = 0, failed = 0, near = 0;
      function next() {
        var job = queue.shift();
        if (!job) return;
        if (maxBytes && job.file.size > maxBytes) {
          finish(job.row, "error", "too large: " + formatBytes(job.file.size) + " is over the limit of " + formatBytes(maxBytes));
          failed++; settle(); next();
          return;
        }
        var fd = new FormData();
        shared.forEach(function (v, k) { fd.append(k, v); });
        fd.append("file", job.file, job.file.name);
        var xhr = new XMLHttpRequest();
        xhr.open("POST", "/api/v1/documents");
        xhr.setRequestHeader("X-CSRF-Token", csrfToken());
        xhr.upload.onprogress = function (e) {
          if (e.lengthComputable) job.row.bar.value = e.loaded / e.total;
        };
        xhr.onload = function () {
          var body = {};
          try { body = JSON.parse(xhr.responseText); } catch (e) { /* not JSON */ }
          if (xhr.status === 201) {
            var link = '<a href="/documents/' + body.document.id + '">document ' + body.document.id + "</a>";
            var dups = body.near_duplicates || [];
            if (body.warning) { warned++; finish(job.row, "warn", "stored as " + link + "; " + escapeHTML(body.warning), true); }
            else {
              ok++;
              if (dups.length) near++;
              finish(job.row, dups.length ? "ok near" : "ok", "stored as " + link + nearVerdict(dups, body.near_duplicates_error), true);
            }
          } else {
            failed++;
            finish(job.row, "error", (body.error && body.error.message) || ("HTTP " + xhr.status));
          }
          settle(); next();
        };
        xhr.onerror = function () { failed++; finish(job.row, "error", "network error: the file was not sent"); settle(); next(); };
        xhr.send(fd);
      }
      function settle() {
        done++;
        if (done === files.length) {
          var sum = document.createElement("li");
          sum.className = "summary";
          sum.textContent = ok + " stored" + (near ? " (" + near + " of them near-duplicates)" : "") + ", " + warned +
            " stored but unreadable, " + failed + " refused. The next run indexes them. ";
          var more = document.createElement("a");
          more.href = "/documents?status=pending";
          more.textContent = "Show the pending documents";
          sum.appendChild(more);
          list.appendChild(sum);
          form.reset();
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
    var tok = document.getElementById("new-token");
    if (tok && navigator.clipboard) {
      var b = document.createElement("button");
      b.type = "button"; b.textContent = "Copy"; b.className = "small";
      b.addEventListener("click", function () { navigator.clipboard.writeText(tok.textContent); b.textContent = "Copied"; });
      tok.insertAdjacentElement("afterend", b);
    }
  });
})();
