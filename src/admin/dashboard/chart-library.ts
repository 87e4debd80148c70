// Chart.js's own UMD build, bundled as text (wrangler.toml [[rules]] type "Text"), so the dashboard
// page inlines it and opens with no network, like the load-test report (tools/loadtest/report.ts).
import source from "../../../node_modules/chart.js/dist/chart.umd.min.js";

/** The minified Chart.js 4 library, as served to the dashboard. */
export const CHART_JS: string = source;
