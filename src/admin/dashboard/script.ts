/**
 * The dashboard's own script (runs in the browser, after the inlined Chart.js). It reads
 * `/_tollgate/dashboard/data` every `refreshMs`, draws one chart per rule with traffic, fills the
 * tables with DOM text (never HTML: reasons are typed by people), and sends the form's override
 * and the End buttons to the admin API. The browser's login (Basic, password = admin token) goes
 * with every request to the same origin; the page stores no credential.
 */
export const DASHBOARD_SCRIPT = String.raw`
(function () {
  "use strict";
  var cfg = window.TOLLGATE;
  var API = "/_tollgate";
  var charts = {};
  var loads = 0;

  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (cls) node.className = cls;
    return node;
  }
  function cells(tr, values) {
    values.forEach(function (v) {
      if (v instanceof Node) { var td = el("td"); td.appendChild(v); tr.appendChild(td); }
      else if (v && typeof v === "object") tr.appendChild(el("td", v.text, v.cls));
      else tr.appendChild(el("td", v));
    });
    return tr;
  }
  function fill(id, rows, empty) {
    var body = document.querySelector("#" + id + " tbody");
    body.replaceChildren();
    if (rows.length === 0) { var tr = el("tr"); var td = el("td", empty, "empty"); td.colSpan = 12; tr.appendChild(td); body.appendChild(tr); }
    rows.forEach(function (r) { body.appendChild(r); });
  }
  function clock(ms) { return new Date(ms).toISOString().slice(11, 19); }
  function when(ms) { return new Date(ms).toISOString().replace("T", " ").slice(0, 19) + "Z"; }
  function limitText(l) { return l.count + " / " + l.interval + " s"; }
  // The one short form of a digest on this page: first 8 and last 4 hex digits.
  function short(digest) { return digest.length > 12 ? digest.slice(0, 8) + "…" + digest.slice(-4) : digest; }
  // A counter is <region>:<rule>:<digest>.
  function counterText(name) { var i = name.lastIndexOf(":"); return name.slice(0, i + 1) + short(name.slice(i + 1)); }
  function subject(s) { return s.kind + (s.prefixLength ? " /" + s.prefixLength : "") + " " + short(s.digest); }
  function percent(rate) { return rate === null ? "–" : (100 * rate).toFixed(1) + "%"; }
  // Bucket upper bounds: "≤ 5" says what the histogram knows; null with samples is past the last bound.
  function bound(l, v) { return !l || l.count === 0 ? "–" : v === null ? "> 5000" : "≤ " + v; }
  function spanText(ms) { return ms >= 3600000 ? "last hour" : "last " + ms / 60000 + " minutes"; }
  function identityLine(o) {
    return subject(o.subject) + (o.everyRule ? " (every rule)" : "") + ": " + (o.action === "limit" ? (o.limit ? "limit " + limitText(o.limit) : "limit elsewhere, not in this region") : o.action);
  }
  function target(o) {
    if (!o) return "";
    if (o.kind === "rule") return "rule " + o.rule;
    return subject(o.subject) + " on " + (o.rule === undefined ? "every rule" : "rule " + o.rule);
  }
  function does(o) {
    if (!o) return "";
    var limits = o.limits ? Object.keys(o.limits).map(function (r) { return r + " " + limitText(o.limits[r]); }).join(", ") : "";
    if (o.kind === "rule") return [o.mode ? "mode " + o.mode : "", limits ? "limit " + limits : ""].filter(Boolean).join("; ");
    return o.action === "limit" ? "limit " + limits : o.action;
  }

  function card(label, value, bad, id) {
    var c = el("div", null, "card" + (bad ? " bad" : ""));
    if (id) c.id = "card-" + id;
    c.appendChild(el("div", value, "n"));
    c.appendChild(el("div", label, "l"));
    return c;
  }

  function drawChart(rule, s, labels) {
    // The legend draws each dataset's point style: a box for bars, a dashed line for the limit.
    var ds = [
      { type: "bar", label: "admitted", data: s.admitted, backgroundColor: "#1f7a3a", pointStyle: "rect" },
      { type: "bar", label: "denied", data: s.denied, backgroundColor: "#c0392b", pointStyle: "rect" },
      { type: "bar", label: "shadow denied", data: s.shadowDenied, backgroundColor: "#d98324", pointStyle: "rect" },
      // Points as well as the line: a rule seen in one bucket only still shows. No line across an
      // empty bucket (null there, spanGaps false).
      { type: "line", label: "fullest window (one identity)", data: s.fullest, borderColor: "#2f6fb0", backgroundColor: "#2f6fb0", borderWidth: 2, pointStyle: "circle", pointRadius: 2, spanGaps: false },
      // The rule's limit: the same value in every bucket, a flat line across the axis, no dots.
      { type: "line", label: "rule limit " + limitText(rule.limit), data: s.limit, borderColor: "#1d232a", backgroundColor: "transparent", borderWidth: 1.5, borderDash: [5, 4], pointStyle: "line", pointRadius: 0, pointHoverRadius: 0, spanGaps: true }
    ];
    var box = document.getElementById("charts");
    var existing = charts[rule.id];
    if (existing) {
      existing.data.labels = labels;
      existing.data.datasets.forEach(function (d, i) { d.data = ds[i].data; d.label = ds[i].label; });
      existing.options.scales.x.title.text = axisTitle(labels);
      existing.update("none");
      var shown = document.getElementById("rule-" + rule.id);
      shown.querySelector("h3").textContent = heading(rule);
      identityList(shown, rule);
      return;
    }
    var empty = box.querySelector(".empty");
    if (empty) empty.remove();
    var wrap = el("div", null, "card chart-card");
    wrap.id = "rule-" + rule.id;
    wrap.appendChild(el("h3", heading(rule)));
    var holder = el("div", null, "chart");
    var canvas = el("canvas");
    canvas.id = "chart-" + rule.id;
    canvas.setAttribute("data-rule", rule.id);
    canvas.setAttribute("role", "img");
    canvas.setAttribute("aria-label", "admitted and denied per 10 s for row " + rule.id);
    holder.appendChild(canvas);
    wrap.appendChild(holder);
    wrap.appendChild(el("p", "Bars: requests per 10 s, all identities. Blue: the fullest window any one identity had; dashed: the rule's limit (identity overrides listed below, not drawn).", "cap"));
    identityList(wrap, rule);
    box.appendChild(wrap);
    charts[rule.id] = new Chart(canvas, {
      data: { labels: labels, datasets: ds },
      options: {
        animation: false, responsive: true, maintainAspectRatio: false,
        interaction: { mode: "index", intersect: false },
        scales: { x: { ticks: { maxTicksLimit: 8 }, title: { display: true, text: axisTitle(labels), font: { size: 11 } } }, y: { beginAtZero: true } },
        plugins: { legend: { labels: { usePointStyle: true, pointStyleWidth: 22, boxHeight: 8, font: { size: 11 }, generateLabels: legendLabels } } }
      }
    });
  }

  // With point styles, Chart.js takes a legend marker from the dataset's first point, which has
  // no dash: the dataset's own style goes on, so the limit's marker is the dashed line it draws.
  function legendLabels(chart) {
    return Chart.defaults.plugins.legend.labels.generateLabels(chart).map(function (item) {
      var d = chart.data.datasets[item.datasetIndex];
      // A line's marker is a stretch of line (its points stay dots on the chart), a bar's a box.
      item.pointStyle = d.type === "line" ? "line" : "rect";
      if (d.type === "line") { item.strokeStyle = d.borderColor; item.lineWidth = d.borderWidth; }
      if (d.borderDash) item.lineDash = d.borderDash;
      return item;
    });
  }
  function heading(rule) { return "row " + rule.id + " " + rule.name + " · " + rule.mode + " · limit " + limitText(rule.limit) + (rule.override ? " (rule override)" : ""); }
  function axisTitle(labels) { return labels.length ? "UTC, " + labels[0] + " to " + labels[labels.length - 1] + " (" + spanText(span.ms) + ", 10 s buckets)" : ""; }
  var span = { ms: 0 };
  function identityList(wrap, rule) {
    var list = wrap.querySelector("ul.identity-overrides");
    if (!list) { list = el("ul", null, "identity-overrides"); wrap.appendChild(list); }
    list.replaceChildren();
    rule.identityOverrides.forEach(function (o) { var li = el("li", "identity override " + identityLine(o)); li.setAttribute("data-override", o.id); list.appendChild(li); });
  }

  function render(d) {
    span.ms = d.spanMs;
    document.getElementById("charts-title").textContent = "Rules with traffic in the " + spanText(d.spanMs) + ": admitted and denied per 10 s, against the rule's limit";
    var sum = function (k) { return d.rules.reduce(function (a, r) { return a + r.totals[k]; }, 0); };
    var all = sum("admitted") + sum("denied") + sum("shadowDenied") + sum("blocked") + sum("exempt");
    document.getElementById("meta").textContent = "region " + d.region + " · configuration version " + d.version + " · updated " + clock(d.now) + " UTC · every " + cfg.refreshMs / 1000 + " s";
    document.getElementById("cards").replaceChildren(
      card("admitted", sum("admitted")), card("denied, of which " + sum("denyCache") + " from the deny cache", sum("denied"), sum("denied") > 0, "denied"),
      card("denial rate, all rules", percent(all ? sum("denied") / all : null), false, "denial-rate"), card("shadow denied", sum("shadowDenied")),
      card("blocked", sum("blocked")), card("counter failures", sum("failures"), sum("failures") > 0),
      card("active overrides", d.overrides.length)
    );
    var labels = d.at.map(clock);
    var byId = {};
    d.rules.forEach(function (r) { byId[r.id] = r; });
    Object.keys(d.series).forEach(function (id) { if (byId[id]) drawChart(byId[id], d.series[id], labels); });
    document.body.setAttribute("data-charts", String(Object.keys(charts).length));

    var active = d.rules.filter(function (r) { var t = r.totals; return r.override || t.admitted + t.denied + t.shadowDenied + t.blocked + t.exempt + t.failures > 0; });
    fill("rules", active.map(function (r) {
      var tr = el("tr", null, r.override ? "overridden" : "");
      tr.setAttribute("data-rule", r.id);
      return cells(tr, [r.id, r.name, { text: r.mode, cls: "mode" }, { text: limitText(r.limit) + (r.override ? " (override)" : ""), cls: "limit" },
        { text: r.totals.admitted, cls: "admitted" }, { text: r.totals.denied, cls: "denied" }, { text: r.totals.denyCache, cls: "deny-cache" }, { text: percent(r.denialRate), cls: "denial-rate" },
        { text: r.totals.shadowDenied, cls: "shadow" }, { text: r.totals.blocked, cls: "blocked" }, { text: r.totals.exempt, cls: "exempt" }, { text: r.totals.failures, cls: "failures" },
        { text: bound(r.counterLatency, r.counterLatency && r.counterLatency.p50), cls: "counter-p50" }, { text: bound(r.counterLatency, r.counterLatency && r.counterLatency.p99), cls: "counter-p99" }]);
    }), "No rule has seen traffic.");
    fill("limited", d.limited.map(function (l) {
      var tr = el("tr"); tr.setAttribute("data-counter", l.counter);
      var code = el("code", counterText(l.counter));
      return cells(tr, [code, l.rule, { text: l.denials, cls: "denials" }, when(l.lastAt)]);
    }), "No identity has been limited.");
    fill("overrides", d.overrides.map(function (o) {
      var tr = el("tr"); tr.setAttribute("data-override", o.id);
      var end = el("button", "End"); end.type = "button"; end.setAttribute("data-end", o.id);
      end.addEventListener("click", function () { endOverride(o.id); });
      return cells(tr, [el("code", o.id.slice(0, 8)), target(o), { text: does(o), cls: "text" }, o.expiresAt ? when(o.expiresAt) : "never", { text: o.reason, cls: "text" }, o.createdBy, end]);
    }), "No override is active: every rule applies as published.");
    fill("upstreams", Object.keys(d.upstreams).sort().map(function (name) {
      var u = d.upstreams[name];
      var tr = el("tr"); tr.setAttribute("data-upstream", name);
      return cells(tr, [name, "", u.statuses["1xx"], u.statuses["2xx"], u.statuses["3xx"], u.statuses["4xx"], u.statuses["5xx"], { text: u.latency.mean === null ? "–" : u.latency.mean.toFixed(1), cls: "mean" },
        { text: bound(u.latency, u.latency.p50), cls: "p50" }, { text: bound(u.latency, u.latency.p99), cls: "p99" }]);
    }), "Nothing forwarded yet.");
    fill("audit", d.audit.map(function (a) {
      var tr = el("tr"); tr.setAttribute("data-seq", a.seq);
      return cells(tr, [a.seq, when(a.at), a.actor, a.action, { text: a.target, cls: "text" }, { text: does(a.override), cls: "text" }, { text: does(a.previous), cls: "text" }]);
    }), "No change yet.");
    document.body.setAttribute("data-loaded", String(++loads));
  }

  function status(text, ok) {
    var node = document.getElementById("form-status");
    node.textContent = text;
    node.className = ok ? "ok" : "error";
  }
  function problemText(body) {
    if (body && Array.isArray(body.detail)) return body.detail.map(function (e) { return e.loc.join(".") + ": " + e.msg; }).join("; ");
    return body && body.detail ? String(body.detail) : "refused";
  }

  var spanSelect = document.getElementById("span");
  // Answers are drawn in the order asked, each newer than the last drawn (a slow one never starves
  // the page): one asked before a span change never lands after it.
  var reads = 0, drawn = 0, spanFrom = 0;
  spanSelect.addEventListener("change", function () { spanFrom = reads + 1; load(); });
  function load() {
    var query = spanSelect.value ? "?span=" + encodeURIComponent(spanSelect.value) : "";
    var read = ++reads;
    return fetch(API + "/dashboard/data" + query, { cache: "no-store", credentials: "same-origin" })
      .then(function (res) { if (!res.ok) throw new Error("HTTP " + res.status); return res.json(); })
      .then(function (d) { if (read > drawn && read >= spanFrom) { drawn = read; render(d); } })
      .catch(function (e) { document.getElementById("meta").textContent = "could not load: " + e.message; });
  }

  function send(method, path, body) {
    return fetch(API + path, {
      method: method, credentials: "same-origin",
      headers: body ? { "content-type": "application/json" } : {},
      body: body ? JSON.stringify(body) : undefined
    }).then(function (res) { return res.json().then(function (json) { return { ok: res.ok, status: res.status, body: json }; }); });
  }

  function endOverride(id) {
    send("DELETE", "/overrides/" + encodeURIComponent(id)).then(function (r) {
      status(r.ok ? "Ended override " + id.slice(0, 8) + "." : "Not ended: " + problemText(r.body), r.ok);
      return load();
    });
  }

  document.getElementById("override-form").addEventListener("submit", function (event) {
    event.preventDefault();
    var f = event.target.elements;
    var action = f.action.value;
    var body = { reason: f.reason.value };
    if (f.rule.value) body.rule = Number(f.rule.value);
    if (f.expires.value) body.expiresInSeconds = Number(f.expires.value);
    var limits = {};
    if (action === "limit") { limits[cfg.region] = { count: Number(f.count.value), interval: Number(f.interval.value) }; }
    if (f.target.value === "identity") {
      body.identity = { kind: f.kind.value, value: f.value.value };
      if (f.kind.value === "user-ip") body.identity.ip = f.ip.value;
      body.action = action;
      if (action === "limit") body.limits = limits;
    } else if (action === "limit") body.limits = limits;
    else body.mode = action;
    send("POST", "/overrides", body).then(function (r) {
      if (r.ok) { status("Added override " + r.body.override.id.slice(0, 8) + " (" + target(r.body.override) + "): in force here now, everywhere within the refresh bound.", true); f.value.value = ""; }
      else status("Refused (" + r.status + "), nothing changed: " + problemText(r.body), false);
      return load();
    });
  });

  load();
  setInterval(load, cfg.refreshMs);
})();
`;
