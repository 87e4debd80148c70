// The README is a front door (at most 250 lines) and every relative link in it and in docs/*.md
// reaches an existing file and, where it names an anchor, an existing heading of that file.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/paths.ts";
import { prose } from "./markdown.ts";

const root = REPO_ROOT;

/** GitHub's heading anchors: lowercase, punctuation other than - and _ dropped, spaces to -, repeats -1, -2. */
export function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of prose(text)) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = m[1]!
      .replace(/`/g, "")
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/ /g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Relative link targets `[..](t)` / `![..](t)` outside code fences and inline code. */
export function linksOf(text: string): { line: number; target: string }[] {
  const out: { line: number; target: string }[] = [];
  prose(text).forEach((line, i) => {
    const bare = line.replace(/(`+)[^`]*?\1/g, "");
    for (const m of bare.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
      out.push({ line: i + 1, target });
    }
  });
  return out;
}

// docs/ and its folders (docs/history/: what earlier issues measured).
const files = [
  "README.md",
  ...readdirSync(join(root, "docs"), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

describe("README and docs", () => {
  it("README.md is at most 250 lines", () => {
    const text = readFileSync(join(root, "README.md"), "utf8");
    expect(text.replace(/\n$/, "").split("\n").length).toBeLessThanOrEqual(250);
  });

  it("README.md links every file in docs/", () => {
    const linked = new Set(linksOf(readFileSync(join(root, "README.md"), "utf8")).map(({ target }) => target.split("#")[0]));
    expect(files.filter((f) => f.startsWith("docs/") && !linked.has(f))).toEqual([]);
  });

  it("the link check sees links and anchors as GitHub does", () => {
    expect(anchorsOf("# What the gateway refuses, and why\n## `npm run x` (y)\n## A\n## A")).toEqual(
      new Set(["what-the-gateway-refuses-and-why", "npm-run-x-y", "a", "a-1"]),
    );
    expect(linksOf("[a](x.md#b) ![i](images/p.png) `[no](c.md)`\n```\n[no](d.md)\n```\n[w](https://e)")).toEqual([
      { line: 1, target: "x.md#b" },
      { line: 1, target: "images/p.png" },
    ]);
  });

  for (const file of files) {
    it(`every relative link in ${file} reaches a file and anchor that exist`, () => {
      const text = readFileSync(join(root, file), "utf8");
      const broken: string[] = [];
      for (const { line, target } of linksOf(text)) {
        const [path, anchor] = target.split("#", 2) as [string, string | undefined];
        const abs = path === "" ? join(root, file) : resolve(dirname(join(root, file)), decodeURI(path));
        if (!existsSync(abs)) {
          broken.push(`${file}:${line} ${target}: no such file`);
          continue;
        }
        if (anchor !== undefined && statSync(abs).isFile() && abs.endsWith(".md")) {
          if (!anchorsOf(readFileSync(abs, "utf8")).has(decodeURIComponent(anchor).toLowerCase())) {
            broken.push(`${file}:${line} ${target}: no such heading`);
          }
        }
      }
      expect(broken).toEqual([]);
    });
  }
});
