// The browser the page tests drive: the Chromium that `npm ci` brings (@sparticuz/chromium, a
// Linux x64 chrome-headless-shell shipped brotli-compressed inside the npm package), never one the
// machine happens to have. It is unpacked once per package version into node_modules/.cache, with
// the NSS/NSPR/expat libraries the package ships beside it, so the browser needs nothing from the
// system but glibc. No network: everything comes from the installed package.
import { existsSync } from "node:fs";
import { chmod, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { brotliDecompressSync } from "node:zlib";
import type { Page } from "playwright-core";
import { REPO_ROOT } from "./paths.ts";

const ROOT = REPO_ROOT;
const PACKAGE = "@sparticuz/chromium";

/** Flags for a headless run in a container: no sandbox (often no user namespaces), no GPU, nothing fetched in the background. */
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--no-zygote",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** What playwright-core's `chromium.launch` takes to start the test browser. */
export interface TestBrowser {
  executablePath: string;
  args: string[];
  env: Record<string, string>;
}

/** Regular files of a ustar archive (the package's library bundle holds nothing else). */
function untar(tar: Buffer): { name: string; data: Buffer }[] {
  const files: { name: string; data: Buffer }[] = [];
  for (let at = 0; at + 512 <= tar.length;) {
    const name = tar
      .subarray(at, at + 100)
      .toString("utf8")
      .replace(/\0.*$/s, "");
    if (name === "") break;
    const size = parseInt(
      tar
        .subarray(at + 124, at + 136)
        .toString("utf8")
        .replace(/\0.*$/s, "")
        .trim() || "0",
      8,
    );
    const type = String.fromCharCode(tar[at + 156]!);
    if (type === "0" || type === "\0") files.push({ name, data: tar.subarray(at + 512, at + 512 + size) });
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

/** Unpacks the package's browser into `dir`, whole or not at all: test files run in parallel and may race here. */
async function unpack(bin: string, dir: string): Promise<void> {
  const staging = `${dir}.${process.pid}.${crypto.randomUUID()}`;
  await mkdir(join(staging, "lib"), { recursive: true });
  try {
    await writeFile(join(staging, "chromium"), brotliDecompressSync(await readFile(join(bin, "chromium.br"))));
    await chmod(join(staging, "chromium"), 0o755);
    for (const file of untar(brotliDecompressSync(await readFile(join(bin, "al2023.tar.br"))))) {
      await writeFile(join(staging, file.name), file.data);
    }
    await rename(staging, dir);
  } catch (error) {
    // Another test file got there first: its copy is as good as ours.
    if (!existsSync(join(dir, "chromium"))) throw error;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/**
 * The test browser: its executable, flags and environment, unpacked from the npm package on first
 * use. Throws (failing the test, never skipping it) when the package is missing or cannot run here.
 */
export async function testBrowser(): Promise<TestBrowser> {
  if (process.platform !== "linux" || process.arch !== "x64") {
    throw new Error(`the page tests' browser (${PACKAGE}) is built for linux x64 only; this is ${process.platform} ${process.arch}`);
  }
  let entry: string;
  try {
    entry = createRequire(join(ROOT, "package.json")).resolve(PACKAGE);
  } catch {
    throw new Error(`the page tests' browser is missing: ${PACKAGE} is not installed (run \`npm ci\`)`);
  }
  const pkg = resolve(dirname(entry), "..");
  const { version } = JSON.parse(await readFile(join(pkg, "package.json"), "utf8")) as { version: string };
  const dir = join(ROOT, "node_modules", ".cache", `sparticuz-chromium-${version}`);
  if (!existsSync(join(dir, "chromium"))) await unpack(join(pkg, "bin"), dir);
  const lib = join(dir, "lib");
  const libraryPath = [lib, process.env.LD_LIBRARY_PATH].filter(Boolean).join(":");
  const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
  return { executablePath: join(dir, "chromium"), args: [...ARGS], env: { ...env, LD_LIBRARY_PATH: libraryPath } };
}

/**
 * Where a page test also saves its picture for the docs (docs/images/<name>), when run with
 * UPDATE_SCREENSHOTS=1; undefined otherwise, so a plain test run never rewrites the docs.
 */
export function docsImage(name: string): string | undefined {
  return process.env.UPDATE_SCREENSHOTS === "1" ? join(ROOT, "docs", "images", name) : undefined;
}

/** The console errors and warnings and the uncaught errors of `page` from now on, as they happen. */
export function pageProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  return problems;
}
