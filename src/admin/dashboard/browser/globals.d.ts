// What the page defines before the dashboard's script runs (../page.ts).
import type { Chart as ChartJs } from "chart.js";

declare global {
  /** Chart.js's UMD build, inlined as the page's first script (../chart-library.ts). */
  const Chart: typeof ChartJs;
  interface Window {
    /** The page's settings, written by ../page.ts. */
    TOLLGATE: { region: string; refreshMs: number };
  }
}
