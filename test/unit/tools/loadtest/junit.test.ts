// The JUnit report (tools/loadtest/junit.ts): one test case per row and region, the outcome words
// mapped onto JUnit's states, read back with a real XML parser (Chromium's DOMParser, the page
// tests' browser: test/unit/support/browser.ts), as a CI system's JUnit reader would read it.
import { describe, expect, it } from "vitest";
import type { LoadTestResult } from "../../../../tools/loadtest/loadtest.ts";
import { caseName, renderJunit } from "../../../../tools/loadtest/junit.ts";
import { testBrowser } from "../../support/browser.ts";
import { cannedResult } from "./fixtures.ts";

/** The canned run (held, failed, unjudged) in two regions: every row twice, eu's a copy of us's. */
function twoRegions(unjudged: "pass" | "fail" = "pass"): LoadTestResult {
  const result = cannedResult();
  const eu = result.rules.map((r) => ({ ...r, key: `eu:${r.rule}`, region: "eu" as const }));
  return { ...result, unjudged, regions: ["us", "eu"], rules: [...result.rules, ...eu] };
}

interface ParsedCase {
  suite: string;
  name: string;
  classname: string;
  time: string;
  /** The child elements that say its state: failure, error, skipped (none when it passed). */
  states: { tag: string; type: string | null; message: string | null }[];
  out: string;
  properties: Record<string, string>;
}
interface Parsed {
  error: string | null;
  root: string;
  counts: Record<string, string | null>;
  suites: { name: string; counts: Record<string, string | null> }[];
  cases: ParsedCase[];
}

/** The little of the page's DOM the parse below uses (the Node tests compile without the DOM library). */
interface XmlElement {
  readonly tagName: string;
  readonly textContent: string | null;
  readonly parentElement: XmlElement | null;
  readonly children: Iterable<XmlElement>;
  getAttribute(name: string): string | null;
  getElementsByTagName(name: string): ArrayLike<XmlElement> & Iterable<XmlElement>;
}
interface XmlPage {
  DOMParser: new () => {
    parseFromString(text: string, type: "application/xml"): { documentElement: XmlElement; getElementsByTagName(name: string): ArrayLike<XmlElement> };
  };
}

/** Parses each XML text with the browser's DOMParser and returns what a JUnit reader looks at. */
async function parseInChromium(xmls: string[]): Promise<Parsed[]> {
  const { chromium } = await import("playwright-core");
  const browser = await chromium.launch(await testBrowser());
  try {
    const page = await browser.newPage();
    return await page.evaluate((texts) => {
      const { DOMParser } = globalThis as unknown as XmlPage;
      const counts = (e: XmlElement) => Object.fromEntries(["tests", "failures", "errors", "skipped"].map((a) => [a, e.getAttribute(a)]));
      return texts.map((text) => {
        const doc = new DOMParser().parseFromString(text, "application/xml");
        const error = doc.getElementsByTagName("parsererror")[0]?.textContent ?? null;
        const root = doc.documentElement;
        return {
          error,
          root: root.tagName,
          counts: counts(root),
          suites: [...root.getElementsByTagName("testsuite")].map((s) => ({ name: s.getAttribute("name") ?? "", counts: counts(s) })),
          cases: [...root.getElementsByTagName("testcase")].map((c) => ({
            suite: c.parentElement?.getAttribute("name") ?? "",
            name: c.getAttribute("name") ?? "",
            classname: c.getAttribute("classname") ?? "",
            time: c.getAttribute("time") ?? "",
            states: [...c.children]
              .filter((x) => ["failure", "error", "skipped"].includes(x.tagName))
              .map((x) => ({ tag: x.tagName, type: x.getAttribute("type"), message: x.getAttribute("message") })),
            out: c.getElementsByTagName("system-out")[0]?.textContent ?? "",
            properties: Object.fromEntries([...c.getElementsByTagName("property")].map((p) => [p.getAttribute("name") ?? "", p.getAttribute("value") ?? ""])),
          })),
        };
      });
    }, xmls);
  } finally {
    await browser.close();
  }
}

describe("renderJunit", () => {
  it("writes one suite per region and one case per row in it, in the outcome's JUnit state", () => {
    const xml = renderJunit(twoRegions());
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites')).toBe(true);
    expect(xml.match(/<testsuite /g)).toHaveLength(2);
    expect(xml.match(/<testcase /g)).toHaveLength(8);
    // Canned: row 12 held, row 5 failed, rows 11 and 13 unjudged, in each region.
    expect(xml).toMatch(/<testsuites name="tollgate load test: FAIL" tests="8" failures="2" errors="0" skipped="4">/);
  });

  it("with --unjudged fail, marks unjudged rows failed (type unjudged), not skipped", () => {
    const xml = renderJunit(twoRegions("fail"));
    expect(xml).toMatch(/<testsuites [^>]*tests="8" failures="6" errors="0" skipped="0">/);
    expect(xml.match(/type="unjudged"/g)).toHaveLength(4);
  });

  it("marks rows whose answers erred as JUnit errors", () => {
    const result = cannedResult();
    const erred = {
      ...result,
      rules: [{ ...result.rules[0]!, judgement: { ...result.rules[0]!.judgement, outcome: "error" as const, finding: "12 answers erred", why: "status 502" } }],
    };
    const xml = renderJunit(erred);
    expect(xml).toMatch(/<error message="12 answers erred: error, because status 502" type="error"\/>/);
    expect(xml).toMatch(/errors="1"/);
  });
});

describe("the JUnit report, read by a real XML parser", () => {
  it("parses, and says per row and region what the summary says", { timeout: 60_000 }, async () => {
    const results = [twoRegions("pass"), twoRegions("fail")];
    const parsed = await parseInChromium(results.map(renderJunit));
    for (const [i, p] of parsed.entries()) {
      const result = results[i]!;
      expect(p.error).toBeNull();
      expect(p.root).toBe("testsuites");
      expect(p.suites.map((s) => s.name)).toEqual(["tollgate load test us", "tollgate load test eu"]);
      expect(p.cases).toHaveLength(result.rules.length);
      const failedWords = result.unjudged === "fail" ? ["failed", "unjudged"] : ["failed"];
      expect(p.counts).toEqual({
        tests: String(result.rules.length),
        failures: String(result.rules.filter((r) => failedWords.includes(r.judgement.outcome)).length),
        errors: "0",
        skipped: String(result.rules.filter((r) => !failedWords.includes(r.judgement.outcome) && r.judgement.outcome === "unjudged").length),
      });
      for (const r of result.rules) {
        const c = p.cases.find((x) => x.suite === `tollgate load test ${r.region}` && x.name === caseName(r));
        expect(c, `${r.key}`).toBeDefined();
        expect(c!.classname).toBe(`tollgate.loadtest.${r.region}.hosted-api`);
        expect(Number(c!.time)).toBe(r.schedule.durationS);
        expect(c!.properties).toMatchObject({ row: String(r.rule), outcome: r.judgement.outcome, "time scale": String(r.timeScale) });
        // The verdict line, as the terminal prints it, with the reason.
        expect(c!.out.split("\n")[0]).toBe(
          `row ${r.rule} ${r.name}: ${r.judgement.finding}: ${r.judgement.outcome}` + (r.judgement.why ? `, because ${r.judgement.why}` : ""),
        );
        const expected =
          r.judgement.outcome === "held"
            ? []
            : r.judgement.outcome === "failed"
              ? ["failure:failed"]
              : result.unjudged === "fail"
                ? ["failure:unjudged"]
                : ["skipped:null"];
        expect(
          c!.states.map((s) => `${s.tag}:${s.type}`),
          r.key,
        ).toEqual(expected);
        if (c!.states[0]?.tag === "failure") expect(c!.states[0].message).toContain(r.judgement.finding);
      }
    }
  });
});
