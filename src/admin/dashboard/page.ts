import { CHART_JS } from "./chart-library.ts";
import { DASHBOARD_SCRIPT } from "./script.generated.ts";

/**
 * A script's text as it can sit inside <script>: the two steps the load-test report takes with the
 * same library (tools/loadtest/report.ts): no source-map comment (the page would ask for a
 * .map file), and no `</script` that would end the element early.
 */
const inlineScript = (source: string) => source.replace(/\/\/# sourceMappingURL=\S+\s*$/, "").replace(/<\/script/gi, "<\\/script");

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/**
 * The dashboard: one page, Chart.js inlined, nothing fetched from anywhere but this gateway's
 * admin API (its data every few seconds, and the changes made through its form). Everything it
 * shows comes from `GET /_tollgate/dashboard/data`; it holds no data itself.
 */
export function dashboardPage(options: { region: string; refreshMs: number }): string {
  const title = `tollgate · ${options.region} · live`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>
  :root { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1d232a; background: #f4f6f8; }
  body { margin: 0 auto; max-width: 1280px; padding: 20px; }
  h1 { margin: 0 0 4px; font-size: 22px; }
  h2 { font-size: 16px; margin: 0 0 8px; }
  .meta { font-size: 13px; color: #5b6670; margin-bottom: 14px; }
  /* Flex, not a grid of fixed tracks: a card that wraps widens with its row instead of standing alone. */
  .cards { display: flex; flex-wrap: wrap; gap: 10px; margin-bottom: 16px; }
  .cards .card { flex: 1 1 140px; }
  .card, section { background: #fff; border-radius: 8px; box-shadow: 0 1px 3px #0002; padding: 12px 14px; }
  .card .n { font-size: 24px; font-weight: 700; } .card .l { font-size: 12px; color: #5b6670; }
  .card.bad .n { color: #8e1b10; }
  section { margin-bottom: 16px; }
  table { border-collapse: collapse; width: 100%; font-size: 12.5px; }
  th, td { padding: 3px 6px; border-bottom: 1px solid #e3e7eb; text-align: right; white-space: nowrap; }
  th { white-space: normal; vertical-align: bottom; }
  th:nth-child(-n+2), td:nth-child(-n+2) { text-align: left; }
  td.text, th.text { text-align: left; white-space: normal; }
  tr.overridden td { background: #fff8e1; }
  .charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(380px, 1fr)); gap: 12px; }
  .chart { position: relative; height: 220px; }
  .chart-card h3 { font-size: 13px; margin: 0 0 4px; } .chart-card .cap { font-size: 11.5px; color: #5b6670; margin: 2px 0 0; }
  .chart-card ul { font-size: 11.5px; margin: 4px 0 0; padding-left: 16px; }
  .head { display: flex; justify-content: space-between; align-items: baseline; gap: 12px; } .head label { flex-direction: row; align-items: center; gap: 6px; font-size: 13px; }
  form { display: grid; grid-template-columns: repeat(auto-fill, minmax(170px, 1fr)); gap: 8px 12px; align-items: end; font-size: 13px; }
  label { display: flex; flex-direction: column; gap: 2px; color: #38424c; }
  input, select, button { font: inherit; padding: 4px 6px; }
  #form-status { grid-column: 1 / -1; font-size: 13px; min-height: 1.2em; }
  #form-status.error { color: #8e1b10; } #form-status.ok { color: #14592a; }
  code { font-size: 11.5px; }
  .empty { color: #5b6670; font-size: 13px; }
</style>
</head>
<body data-loaded="0" data-charts="0">
<h1>${escapeHtml(title)}</h1>
<div class="meta" id="meta">loading…</div>
<div class="cards" id="cards"></div>

<section><div class="head"><h2 id="charts-title">Rules with traffic: admitted and denied per 10 s, against the rule's limit</h2>
<label>span<select id="span"><option value="">from the data</option><option value="5m">last 5 minutes</option><option value="1h">last hour</option></select></label></div>
<div class="charts" id="charts"><p class="empty">No traffic yet.</p></div></section>

<section><h2>Rules</h2><table id="rules"><thead><tr><th>row</th><th>name</th><th>mode</th><th>limit</th><th>admitted</th><th>denied</th><th>of which from the deny cache</th><th>denial rate</th><th>shadow denied</th><th>blocked</th><th>exempt</th><th>counter failures</th><th>counter p50 ms</th><th>counter p99 ms</th></tr></thead><tbody></tbody></table></section>

<section><h2>Most limited identities (digests)</h2><table id="limited"><thead><tr><th>counter</th><th>rule</th><th>denials</th><th>last</th></tr></thead><tbody></tbody></table></section>

<section><h2>Active overrides</h2><table id="overrides"><thead><tr><th>id</th><th>target</th><th class="text">does</th><th>expires</th><th class="text">reason</th><th>by</th><th></th></tr></thead><tbody></tbody></table></section>

<section><h2>Add an override</h2>
<form id="override-form">
  <label>applies to<select name="target"><option value="rule">a rule (everyone)</option><option value="identity">an identity</option></select></label>
  <label>rule (row id; empty: every rule)<input name="rule" type="number" min="1"></label>
  <label>identity kind<select name="kind"><option value="api-key">API key</option><option value="user-ip">user at an IP</option><option value="user-id">user id, any IP (block or stricter limit only)</option><option value="ip">IP</option><option value="ipv6-prefix">IPv6 prefix</option></select></label>
  <label>identity (value, hashed before it is stored)<input name="value" autocomplete="off"></label>
  <label>the user's IP (user at an IP only)<input name="ip" autocomplete="off"></label>
  <label>action<select name="action"><option value="limit">set a limit</option><option value="shadow">shadow mode (rule)</option><option value="enforce">enforce mode (rule)</option><option value="exempt">exempt (identity)</option><option value="block">block (identity)</option></select></label>
  <label>requests<input name="count" type="number" min="1"></label>
  <label>per seconds<input name="interval" type="number" min="1"></label>
  <label>expires in seconds (empty: never; an exemption must expire within 30 days)<input name="expires" type="number" min="1"></label>
  <label>reason<input name="reason" required></label>
  <button type="submit">Add override</button>
  <div id="form-status" role="status"></div>
</form></section>

<section><h2>Upstreams</h2><table id="upstreams"><thead><tr><th>upstream</th><th></th><th>1xx</th><th>2xx</th><th>3xx</th><th>4xx</th><th>5xx</th><th>mean ms</th><th>p50 ms</th><th>p99 ms</th></tr></thead><tbody></tbody></table></section>

<section><h2>Audit log</h2><table id="audit"><thead><tr><th>#</th><th>when</th><th>who</th><th>what</th><th class="text">target</th><th class="text">now</th><th class="text">before</th></tr></thead><tbody></tbody></table></section>

<script>${inlineScript(CHART_JS)}</script>
<script>window.TOLLGATE = ${JSON.stringify({ region: options.region, refreshMs: options.refreshMs })};</script>
<script>${inlineScript(DASHBOARD_SCRIPT)}</script>
</body>
</html>
`;
}
