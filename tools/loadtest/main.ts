#!/usr/bin/env node
// npm run loadtest -- [--rules 12,28|all] [--region us,eu] [--time-scale auto|K | --target URL] [--json FILE] [--report FILE] [--junit FILE] ...
//
// Verifies the gateway's rate limits under load, rule by rule, from the same rule table and pure
// modules the gateway runs. Arguments, verdict and exit status as every measuring command's
// (tools/kit/).
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { allRules } from "../../src/core/rules/tables.ts";
import { runCommand } from "../kit/command.ts";
import { writeJson } from "../kit/report.ts";
import { parseCli, USAGE, type CliOptions } from "./args.ts";
import { runLoadTest, type LoadTestResult } from "./loadtest.ts";
import { startDisplay, type Display } from "./progress.ts";
import { renderJunit } from "./junit.ts";
import { renderReport } from "./report.ts";
import { renderSummary } from "./summary.ts";

/** Chart.js's self-contained UMD build, to inline into the report. */
export async function chartJsSource(): Promise<string> {
  const require = createRequire(import.meta.url);
  return readFile(join(dirname(require.resolve("chart.js")), "chart.umd.min.js"), "utf8");
}

async function writeOutputs(result: LoadTestResult, cli: Pick<CliOptions, "json" | "report" | "junit">): Promise<string[]> {
  const written: string[] = [];
  if (cli.json) written.push(`results: ${await writeJson(cli.json, result)}`);
  if (cli.junit) {
    const file = resolve(cli.junit);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, renderJunit(result));
    written.push(`junit:   ${file}`);
  }
  if (cli.report) {
    const file = resolve(cli.report);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, renderReport(result, await chartJsSource()));
    written.push(`report:  ${file}`);
  }
  return written;
}

let display: Display | undefined;
const stopDisplay = () => {
  display?.stop();
  display = undefined;
};

async function run(cli: CliOptions): Promise<LoadTestResult> {
  process.once("SIGINT", () => {
    stopDisplay();
    console.error("loadtest: interrupted");
    process.exit(130);
  });
  try {
    const { json: _json, report: _report, junit: _junit, answers, wide: _wide, progress: _progress, help: _help, target, ...options } = cli;
    return await runLoadTest({
      ...options,
      ...(target ? { target } : {}),
      ...(answers ? { answersFile: answers } : {}),
      onPlan: (plan, lines) => {
        console.error(
          `loadtest: ${plan.rules.length} row(s) in ${cli.regions.join(", ")}, time scale ${cli.timeScale === "auto" ? "per row" : cli.timeScale}, ` +
            `${target ? `target ${target.href}` : "local gateways"}; about ${Math.ceil(plan.durationMs / 1000)} s of traffic`,
        );
        for (const line of lines) console.error(`loadtest: ${line}`);
      },
      onStart: (plan, progress) => {
        stopDisplay();
        if (cli.progress) display = startDisplay(plan, progress);
      },
      onSecondTry: (_plan, lines) => {
        stopDisplay();
        for (const line of lines) console.error(`loadtest: ${line}`);
      },
    });
  } finally {
    stopDisplay();
  }
}

const status = await runCommand(
  {
    tool: "loadtest",
    usage: USAGE,
    parse: (argv) =>
      parseCli(
        argv,
        allRules.map((r) => r.id),
      ),
    run,
    report: async (result, cli) => {
      console.log(renderSummary(result, { wide: cli.wide }));
      for (const line of await writeOutputs(result, cli)) console.log(line);
      return result.verdict;
    },
  },
  process.argv.slice(2),
);
// undici keeps idle sockets and wrangler may keep handles: the run is over, leave now.
process.exit(status);
