import { randomBytes } from "node:crypto";
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseEnv } from "node:util";

/** The secret every gateway needs (src/gateway/settings.ts refuses to serve without it). */
const NAME = "IDENTITY_HMAC_SECRET";

/**
 * The checkout's own IDENTITY_HMAC_SECRET for local runs (npm start, the tests, the load test and
 * the benchmarks), made on first use: 48 random bytes in the `.dev.vars` file wrangler dev reads
 * for `region` (`.dev.vars.<region>` when that exists, as wrangler prefers it), which git ignores.
 * A value already there (the developer's own) is kept. Never a constant in the repository: a
 * secret anyone can read would make every local digest as guessable as plain SHA-256.
 */
export function localSecret(region = "us", root = process.cwd()): string {
  const perRegion = join(root, `.dev.vars.${region}`);
  const file = existsSync(perRegion) ? perRegion : join(root, ".dev.vars");
  const existing = readIfExists(file);
  const found = existing === undefined ? undefined : parseEnv(existing)[NAME];
  if (found) return found;
  const line = `# Made by tollgate on first run: this checkout's own identity secret (tools/local-secret.ts).\n${NAME}="${randomBytes(48).toString("base64url")}"\n`;
  if (existing === undefined) {
    try {
      // `wx`: of two processes starting at once, one writes; the other reads what it wrote.
      writeFileSync(file, line, { flag: "wx", mode: 0o600 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  } else {
    appendFileSync(file, `${existing.endsWith("\n") || existing === "" ? "" : "\n"}${line}`);
  }
  return parseEnv(readFileSync(file, "utf8"))[NAME]!;
}

function readIfExists(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}
