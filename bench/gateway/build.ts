// Bundles a target as it would be deployed: `wrangler deploy --dry-run --outdir`, offline, into a
// directory of the caller's (a temporary one), and names the bundle's modules. (wrangler also
// keeps its scratch files in a .wrangler/ beside the config: gitignored.)
import { execFile } from "node:child_process";
import { readdir } from "node:fs/promises";
import { createRequire } from "node:module";
import { basename, dirname, extname, join, resolve } from "node:path";
import { promisify } from "node:util";
import { ROOT, type TargetSpec } from "./targets.ts";
import { quietEnvironment } from "./worker-runtime.ts";

const run = promisify(execFile);
const WRANGLER = resolve(dirname(createRequire(import.meta.url).resolve("wrangler/package.json")), "bin/wrangler.js");

/** What the dry run wrote: the entry module and the modules it imports (text, data, wasm). */
export interface Bundle {
  readonly entry: string;
  readonly others: readonly string[];
}

/**
 * @param main the config's `main`: the entry module is named after it (src/index.ts -> index.js)
 * @throws with wrangler's own output when the build fails
 */
export async function buildBundle(spec: TargetSpec, main: string, outdir: string): Promise<Bundle> {
  const args = [WRANGLER, "deploy", "--dry-run", "--config", spec.config, "--outdir", outdir];
  if (spec.env) args.push("--env", spec.env);
  quietEnvironment();
  try {
    // process.execPath: the project's Node 24 (wrangler refuses the machine's Node 20). No
    // colour: a failed build is reported as plain text.
    await run(process.execPath, args, { cwd: ROOT, env: { ...process.env, FORCE_COLOR: "0" }, maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
    throw new Error(`wrangler could not bundle ${spec.name} (${spec.config}):\n${stderr || stdout}`);
  }
  const entryName = `${basename(main, extname(main))}.js`;
  // Source maps and wrangler's README describe the bundle; they are not modules.
  const files = (await readdir(outdir)).filter((f) => !f.endsWith(".map") && f !== "README.md");
  if (!files.includes(entryName)) throw new Error(`${spec.name}: wrangler wrote no ${entryName} in ${outdir} (found ${files.join(", ") || "nothing"})`);
  return { entry: join(outdir, entryName), others: files.filter((f) => f !== entryName).map((f) => join(outdir, f)) };
}
