/**
 * The dashboard's own script (runs in the browser, after the inlined Chart.js). It reads
 * `/_tollgate/dashboard/data` every `refreshMs`, draws one chart per rule with traffic, fills the
 * tables with DOM text (never HTML: reasons are typed by people), and sends the form's override
 * and the End buttons to the admin API. The browser's login (Basic, password = admin token) goes
 * with every request to the same origin; the page stores no credential.
 *
 * Type-checked with the DOM library (tsconfig.browser.json) against the data answer's own type;
 * its types are stripped, not compiled, into ../script.generated.ts (tools/dashboard-script.ts),
 * so the page runs this file's code as written, line for line. Hence only erasable TypeScript, no
 * import but `import type`, and one function scope: the page loads it as a classic script.
 */
import type { Chart as ChartJs, ChartConfiguration, ChartDataset, LegendItem } from "chart.js";
import type { AuditEntry, Override, Subject } from "../../../core/overrides/types.ts";
import type { PublishedLimit } from "../../../core/rules/schema.ts";
import type { DashboardData } from "../data.ts";

type Rule = DashboardData["rules"][number];
type Series = DashboardData["series"][string];
type IdentityLine = Rule["identityOverrides"][number];
type Latency = NonNullable<Rule["counterLatency"]>;
type Cell = Node | string | number | { text: string | number; cls: string };
/** The chart's own datasets: bars and lines on one category axis. */
type Dataset = ChartDataset<"bar" | "line", (number | null)[]>;
type DashboardChart = ChartJs<"bar" | "line", (number | null)[], string>;

(() => {
  "use strict";
  const cfg = window.TOLLGATE;
  const API = "/_tollgate";
  const charts: Record<string, DashboardChart> = {};
  let loads = 0;

  function el<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string | number | null, cls?: string): HTMLElementTagNameMap[K] {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (cls) node.className = cls;
    return node;
  }
  function cells(tr: HTMLTableRowElement, values: Cell[]) {
    values.forEach((v) => {
      if (v instanceof Node) {
        const td = el("td");
        td.appendChild(v);
        tr.appendChild(td);
      } else if (v && typeof v === "object") tr.appendChild(el("td", v.text, v.cls));
      else tr.appendChild(el("td", v));
    });
    return tr;
  }
  function fill(id: string, rows: HTMLTableRowElement[], empty: string) {
    const body = document.querySelector(`#${id} tbody`)!;
    body.replaceChildren();
    if (rows.length === 0) {
      const tr = el("tr");
      const td = el("td", empty, "empty");
      td.colSpan = 12;
      tr.appendChild(td);
      body.appendChild(tr);
    }
    rows.forEach((r) => body.appendChild(r));
  }
  const clock = (ms: number) => new Date(ms).toISOString().slice(11, 19);
  const when = (ms: number) => new Date(ms).toISOString().replace("T", " ").slice(0, 19) + "Z";
  const limitText = (l: PublishedLimit) => `${l.count} / ${l.interval} s`;
  // The one short form of a digest on this page: first 8 and last 4 hex digits.
  const short = (digest: string) => (digest.length > 12 ? `${digest.slice(0, 8)}…${digest.slice(-4)}` : digest);
  // A counter is <region>:<rule>:<digest>.
  function counterText(name: string) {
    const i = name.lastIndexOf(":");
    return name.slice(0, i + 1) + short(name.slice(i + 1));
  }
  const subject = (s: Subject) => s.kind + (s.prefixLength ? ` /${s.prefixLength}` : "") + " " + short(s.digest);
  const percent = (rate: number | null) => (rate === null ? "–" : `${(100 * rate).toFixed(1)}%`);
  // Bucket upper bounds: "≤ 5" says what the histogram knows; null with samples is past the last bound.
  const bound = (l: Latency | null, v: number | null | undefined) => (!l || l.count === 0 ? "–" : v === null || v === undefined ? "> 5000" : `≤ ${v}`);
  const spanText = (ms: number) => (ms >= 3600000 ? "last hour" : `last ${ms / 60000} minutes`);
  function identityLine(o: IdentityLine) {
    const does = o.action === "limit" ? (o.limit ? `limit ${limitText(o.limit)}` : "limit elsewhere, not in this region") : o.action;
    return subject(o.subject) + (o.everyRule ? " (every rule)" : "") + ": " + does;
  }
  function target(o: Override | undefined) {
    if (!o) return "";
    if (o.kind === "rule") return `rule ${o.rule}`;
    return `${subject(o.subject)} on ${o.rule === undefined ? "every rule" : `rule ${o.rule}`}`;
  }
  function does(o: Override | undefined) {
    if (!o) return "";
    const limits = o.limits
      ? Object.entries(o.limits)
          .map(([region, limit]) => `${region} ${limitText(limit!)}`)
          .join(", ")
      : "";
    if (o.kind === "rule") return [o.mode ? `mode ${o.mode}` : "", limits ? `limit ${limits}` : ""].filter(Boolean).join("; ");
    return o.action === "limit" ? `limit ${limits}` : o.action;
  }

  function card(label: string, value: string | number, bad?: boolean, id?: string) {
    const c = el("div", null, "card" + (bad ? " bad" : ""));
    if (id) c.id = `card-${id}`;
    c.appendChild(el("div", value, "n"));
    c.appendChild(el("div", label, "l"));
    return c;
  }

  function drawChart(rule: Rule, s: Series, labels: string[]) {
    // The legend draws each dataset's point style: a box for bars, a dashed line for the limit.
    const ds: Dataset[] = [
      { type: "bar", label: "admitted", data: s.admitted, backgroundColor: "#1f7a3a", pointStyle: "rect" },
      { type: "bar", label: "denied", data: s.denied, backgroundColor: "#c0392b", pointStyle: "rect" },
      { type: "bar", label: "shadow denied", data: s.shadowDenied, backgroundColor: "#d98324", pointStyle: "rect" },
      // Points as well as the line: a rule seen in one bucket only still shows. No line across an
      // empty bucket (null there, spanGaps false).
      {
        type: "line",
        label: "fullest window (one identity)",
        data: s.fullest,
        borderColor: "#2f6fb0",
        backgroundColor: "#2f6fb0",
        borderWidth: 2,
        pointStyle: "circle",
        pointRadius: 2,
        spanGaps: false,
      },
      // The rule's limit: the same value in every bucket, a flat line across the axis, no dots.
      {
        type: "line",
        label: `rule limit ${limitText(rule.limit)}`,
        data: s.limit,
        borderColor: "#1d232a",
        backgroundColor: "transparent",
        borderWidth: 1.5,
        borderDash: [5, 4],
        pointStyle: "line",
        pointRadius: 0,
        pointHoverRadius: 0,
        spanGaps: true,
      },
    ];
    const box = document.getElementById("charts")!;
    const existing = charts[rule.id];
    if (existing) {
      existing.data.labels = labels;
      existing.data.datasets.forEach((d, i) => {
        d.data = ds[i]!.data;
        d.label = ds[i]!.label;
      });
      existing.options.scales!.x!.title!.text = axisTitle(labels);
      existing.update("none");
      const shown = document.getElementById(`rule-${rule.id}`)!;
      shown.querySelector("h3")!.textContent = heading(rule);
      identityList(shown, rule);
      return;
    }
    const empty = box.querySelector(".empty");
    if (empty) empty.remove();
    const wrap = el("div", null, "card chart-card");
    wrap.id = `rule-${rule.id}`;
    wrap.appendChild(el("h3", heading(rule)));
    const holder = el("div", null, "chart");
    const canvas = el("canvas");
    canvas.id = `chart-${rule.id}`;
    canvas.setAttribute("data-rule", String(rule.id));
    canvas.setAttribute("role", "img");
    canvas.setAttribute("aria-label", `admitted and denied per 10 s for row ${rule.id}`);
    holder.appendChild(canvas);
    wrap.appendChild(holder);
    wrap.appendChild(
      el(
        "p",
        "Bars: requests per 10 s, all identities. Blue: the fullest window any one identity had; dashed: the rule's limit (identity overrides listed below, not drawn).",
        "cap",
      ),
    );
    identityList(wrap, rule);
    box.appendChild(wrap);
    // No chart-wide `type`, which Chart.js's types ask for: it would give the chart one type's
    // defaults (a bar chart's offset axis); each dataset names its own.
    const config: Omit<ChartConfiguration<"bar" | "line", (number | null)[], string>, "type"> = {
      data: { labels, datasets: ds },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        interaction: { mode: "index", intersect: false },
        scales: { x: { ticks: { maxTicksLimit: 8 }, title: { display: true, text: axisTitle(labels), font: { size: 11 } } }, y: { beginAtZero: true } },
        plugins: { legend: { labels: { usePointStyle: true, pointStyleWidth: 22, boxHeight: 8, font: { size: 11 }, generateLabels: legendLabels } } },
      },
    };
    charts[rule.id] = new Chart(canvas, config as ChartConfiguration<"bar" | "line", (number | null)[], string>);
  }

  // With point styles, Chart.js takes a legend marker from the dataset's first point, which has
  // no dash: the dataset's own style goes on, so the limit's marker is the dashed line it draws.
  function legendLabels(chart: ChartJs): LegendItem[] {
    return Chart.defaults.plugins.legend.labels.generateLabels(chart).map((item) => {
      const d = chart.data.datasets[item.datasetIndex!] as Dataset;
      // A line's marker is a stretch of line (its points stay dots on the chart), a bar's a box.
      item.pointStyle = d.type === "line" ? "line" : "rect";
      if (d.type === "line") {
        item.strokeStyle = d.borderColor as string;
        item.lineWidth = d.borderWidth as number;
      }
      if (d.type === "line" && d.borderDash) item.lineDash = d.borderDash as number[];
      return item;
    });
  }
  const heading = (rule: Rule) => `row ${rule.id} ${rule.name} · ${rule.mode} · limit ${limitText(rule.limit)}${rule.override ? " (rule override)" : ""}`;
  const axisTitle = (labels: string[]) => (labels.length ? `UTC, ${labels[0]} to ${labels[labels.length - 1]} (${spanText(span.ms)}, 10 s buckets)` : "");
  const span = { ms: 0 };
  function identityList(wrap: HTMLElement, rule: Rule) {
    let list = wrap.querySelector("ul.identity-overrides");
    if (!list) {
      list = el("ul", null, "identity-overrides");
      wrap.appendChild(list);
    }
    list.replaceChildren();
    rule.identityOverrides.forEach((o) => {
      const li = el("li", `identity override ${identityLine(o)}`);
      li.setAttribute("data-override", o.id);
      list.appendChild(li);
    });
  }

  function render(d: DashboardData) {
    span.ms = d.spanMs;
    document.getElementById("charts-title")!.textContent =
      `Rules with traffic in the ${spanText(d.spanMs)}: admitted and denied per 10 s, against the rule's limit`;
    const sum = (k: keyof Rule["totals"]) => d.rules.reduce((a, r) => a + r.totals[k], 0);
    const all = sum("admitted") + sum("denied") + sum("shadowDenied") + sum("blocked") + sum("exempt");
    document.getElementById("meta")!.textContent =
      `region ${d.region} · configuration version ${d.version} · updated ${clock(d.now)} UTC · every ${cfg.refreshMs / 1000} s`;
    document
      .getElementById("cards")!
      .replaceChildren(
        card("admitted", sum("admitted")),
        card(`denied, of which ${sum("denyCache")} from the deny cache`, sum("denied"), sum("denied") > 0, "denied"),
        card("denial rate, all rules", percent(all ? sum("denied") / all : null), false, "denial-rate"),
        card("shadow denied", sum("shadowDenied")),
        card("blocked", sum("blocked")),
        card("counter failures", sum("failures"), sum("failures") > 0),
        card("active overrides", d.overrides.length),
      );
    const labels = d.at.map(clock);
    const byId: Record<string, Rule> = {};
    d.rules.forEach((r) => {
      byId[r.id] = r;
    });
    Object.keys(d.series).forEach((id) => {
      if (byId[id]) drawChart(byId[id], d.series[id]!, labels);
    });
    document.body.setAttribute("data-charts", String(Object.keys(charts).length));

    const active = d.rules.filter((r) => {
      const t = r.totals;
      return r.override || t.admitted + t.denied + t.shadowDenied + t.blocked + t.exempt + t.failures > 0;
    });
    fill(
      "rules",
      active.map((r) => {
        const tr = el("tr", null, r.override ? "overridden" : "");
        tr.setAttribute("data-rule", String(r.id));
        return cells(tr, [
          r.id,
          r.name,
          { text: r.mode, cls: "mode" },
          { text: limitText(r.limit) + (r.override ? " (override)" : ""), cls: "limit" },
          { text: r.totals.admitted, cls: "admitted" },
          { text: r.totals.denied, cls: "denied" },
          { text: r.totals.denyCache, cls: "deny-cache" },
          { text: percent(r.denialRate), cls: "denial-rate" },
          { text: r.totals.shadowDenied, cls: "shadow" },
          { text: r.totals.blocked, cls: "blocked" },
          { text: r.totals.exempt, cls: "exempt" },
          { text: r.totals.failures, cls: "failures" },
          { text: bound(r.counterLatency, r.counterLatency?.p50), cls: "counter-p50" },
          { text: bound(r.counterLatency, r.counterLatency?.p99), cls: "counter-p99" },
        ]);
      }),
      "No rule has seen traffic.",
    );
    fill(
      "limited",
      d.limited.map((l) => {
        const tr = el("tr");
        tr.setAttribute("data-counter", l.counter);
        const code = el("code", counterText(l.counter));
        return cells(tr, [code, l.rule, { text: l.denials, cls: "denials" }, when(l.lastAt)]);
      }),
      "No identity has been limited.",
    );
    fill(
      "overrides",
      d.overrides.map((o) => {
        const tr = el("tr");
        tr.setAttribute("data-override", o.id);
        const end = el("button", "End");
        end.type = "button";
        end.setAttribute("data-end", o.id);
        end.addEventListener("click", () => endOverride(o.id));
        return cells(tr, [
          el("code", o.id.slice(0, 8)),
          target(o),
          { text: does(o), cls: "text" },
          o.expiresAt ? when(o.expiresAt) : "never",
          { text: o.reason, cls: "text" },
          o.createdBy,
          end,
        ]);
      }),
      "No override is active: every rule applies as published.",
    );
    fill(
      "upstreams",
      Object.keys(d.upstreams)
        .sort()
        .map((name) => {
          const u = d.upstreams[name]!;
          const tr = el("tr");
          tr.setAttribute("data-upstream", name);
          return cells(tr, [
            name,
            "",
            u.statuses["1xx"],
            u.statuses["2xx"],
            u.statuses["3xx"],
            u.statuses["4xx"],
            u.statuses["5xx"],
            { text: u.latency.mean === null ? "–" : u.latency.mean.toFixed(1), cls: "mean" },
            { text: bound(u.latency, u.latency.p50), cls: "p50" },
            { text: bound(u.latency, u.latency.p99), cls: "p99" },
          ]);
        }),
      "Nothing forwarded yet.",
    );
    fill(
      "audit",
      d.audit.map((a: AuditEntry) => {
        const tr = el("tr");
        tr.setAttribute("data-seq", String(a.seq));
        return cells(tr, [
          a.seq,
          when(a.at),
          a.actor,
          a.action,
          { text: a.target, cls: "text" },
          { text: does(a.override), cls: "text" },
          { text: does(a.previous), cls: "text" },
        ]);
      }),
      "No change yet.",
    );
    document.body.setAttribute("data-loaded", String(++loads));
  }

  function status(text: string, ok: boolean) {
    const node = document.getElementById("form-status")!;
    node.textContent = text;
    node.className = ok ? "ok" : "error";
  }
  /** The admin API's refusals: FastAPI-style 422 items, or a problem's `detail`. */
  function problemText(body: { detail?: string | { loc: (string | number)[]; msg: string }[] } | null) {
    if (body && Array.isArray(body.detail)) return body.detail.map((e) => `${e.loc.join(".")}: ${e.msg}`).join("; ");
    return body && body.detail ? String(body.detail) : "refused";
  }

  const spanSelect = document.getElementById("span") as HTMLSelectElement;
  // Answers are drawn in the order asked, each newer than the last drawn (a slow one never starves
  // the page): one asked before a span change never lands after it.
  let reads = 0;
  let drawn = 0;
  let spanFrom = 0;
  spanSelect.addEventListener("change", () => {
    spanFrom = reads + 1;
    load();
  });
  function load() {
    const query = spanSelect.value ? `?span=${encodeURIComponent(spanSelect.value)}` : "";
    const read = ++reads;
    return fetch(`${API}/dashboard/data${query}`, { cache: "no-store", credentials: "same-origin" })
      .then((res) => {
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
        return res.json() as Promise<DashboardData>;
      })
      .then((d) => {
        if (read > drawn && read >= spanFrom) {
          drawn = read;
          render(d);
        }
      })
      .catch((e: Error) => {
        document.getElementById("meta")!.textContent = `could not load: ${e.message}`;
      });
  }

  // What the admin API answers a change: the override made, or a refusal.
  type Answer = { override: Override; detail?: undefined } | { override?: undefined; detail?: string | { loc: (string | number)[]; msg: string }[] };
  function send(method: string, path: string, body?: object) {
    return fetch(API + path, {
      method,
      credentials: "same-origin",
      headers: body ? { "content-type": "application/json" } : {},
      body: body ? JSON.stringify(body) : undefined,
    }).then((res) => res.json().then((json: Answer) => ({ ok: res.ok, status: res.status, body: json })));
  }

  function endOverride(id: string) {
    send("DELETE", `/overrides/${encodeURIComponent(id)}`).then((r) => {
      status(r.ok ? `Ended override ${id.slice(0, 8)}.` : `Not ended: ${problemText(r.body)}`, r.ok);
      return load();
    });
  }

  const form = document.getElementById("override-form") as HTMLFormElement;
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const f = form.elements;
    const field = (name: string) => f.namedItem(name) as HTMLInputElement | HTMLSelectElement;
    const value = (name: string) => field(name).value;
    const action = value("action");
    const body: Record<string, unknown> = { reason: value("reason") };
    if (value("rule")) body.rule = Number(value("rule"));
    if (value("expires")) body.expiresInSeconds = Number(value("expires"));
    const limits: Record<string, PublishedLimit> = {};
    if (action === "limit") limits[cfg.region] = { count: Number(value("count")), interval: Number(value("interval")) };
    if (value("target") === "identity") {
      const identity: Record<string, string> = { kind: value("kind"), value: value("value") };
      if (value("kind") === "user-ip") identity.ip = value("ip");
      body.identity = identity;
      body.action = action;
      if (action === "limit") body.limits = limits;
    } else if (action === "limit") body.limits = limits;
    else body.mode = action;
    send("POST", "/overrides", body).then((r) => {
      if (r.ok && r.body.override) {
        status(`Added override ${r.body.override.id.slice(0, 8)} (${target(r.body.override)}): in force here now, everywhere within the refresh bound.`, true);
        field("value").value = "";
      } else status(`Refused (${r.status}), nothing changed: ${problemText(r.body)}`, false);
      return load();
    });
  });

  load();
  setInterval(load, cfg.refreshMs);
})();
