// What the relay makes of a client frame (src/core/rules/socket-frames.ts), and where sockets open
// and what their frames count as (src/core/rules/socket-rules.ts, a rule file's `sockets`).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH } from "../../../../src/core/rules/json-depth.ts";
import { loadRuleTable } from "../../../../src/core/rules/load.ts";
import { loaderProblems } from "./loader-problems.ts";
import { CLOSE, MAX_FRAME_BYTES, readCommandFrame } from "../../../../src/core/rules/socket-frames.ts";
import { frameTwin, socketRuleFor } from "../../../../src/core/rules/socket-rules.ts";
import { ruleTables } from "../../../../src/core/rules/tables.ts";
import { tableData } from "../../../../src/core/overrides/request.ts";

const UUID = "5e1c2a0b-9f3d-4c1e-8a7b-2d4f6e8a0c1b";

describe("readCommandFrame", () => {
  it("reads any JSON text as a call, with the envelope's id when it is a non-negative integer", () => {
    expect(readCommandFrame('{"id":3,"method":"run.start","params":{}}')).toEqual({ kind: "call", id: 3 });
    expect(readCommandFrame('{"id":0,"method":"x"}')).toEqual({ kind: "call", id: 0 });
    // Malformed envelopes are the upstream's to answer, as over HTTP: still calls, still counted.
    for (const text of ['{"method":"run.start"}', '{"id":-1}', '{"id":1.5}', '{"id":"7"}', "[1,2]", "42", "null", '"text"']) {
      expect(readCommandFrame(text)).toEqual({ kind: "call", id: null });
    }
  });

  it("answers text that is not JSON, or nests too deep, as unreadable (counted, refused in-band)", () => {
    expect(readCommandFrame("not json").kind).toBe("unreadable");
    expect(readCommandFrame("").kind).toBe("unreadable");
    expect(readCommandFrame('{"id":1,').kind).toBe("unreadable");
    const deep = "[".repeat(MAX_JSON_DEPTH + 1) + "]".repeat(MAX_JSON_DEPTH + 1);
    expect(readCommandFrame(deep)).toMatchObject({ kind: "unreadable", message: expect.stringContaining(String(MAX_JSON_DEPTH)) });
    const deepest = "[".repeat(MAX_JSON_DEPTH) + "]".repeat(MAX_JSON_DEPTH);
    expect(readCommandFrame(deepest)).toEqual({ kind: "call", id: null });
  });

  it("ends the socket on a binary frame (1003) and on a frame over MAX_FRAME_BYTES in UTF-8 (1009)", () => {
    expect(readCommandFrame(new TextEncoder().encode('{"id":1}').buffer as ArrayBuffer)).toMatchObject({ kind: "end", code: CLOSE.unsupportedData });
    const pad = (n: number) => JSON.stringify({ id: 1, p: "x".repeat(n - 15) });
    expect(pad(MAX_FRAME_BYTES).length).toBe(MAX_FRAME_BYTES);
    expect(readCommandFrame(pad(MAX_FRAME_BYTES)).kind).toBe("call");
    expect(readCommandFrame(pad(MAX_FRAME_BYTES + 1))).toMatchObject({ kind: "end", code: CLOSE.tooBig });
    // Bytes, not UTF-16 units: a third as many three-byte characters is over too.
    const wide = JSON.stringify({ p: "€".repeat(Math.ceil(MAX_FRAME_BYTES / 3)) });
    expect(wide.length).toBeLessThan(MAX_FRAME_BYTES);
    expect(readCommandFrame(wide)).toMatchObject({ kind: "end", code: CLOSE.tooBig });
  });

  it("never throws, and passes no text as a call that JSON.parse refuses", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json(), fc.string({ unit: "grapheme" })), (text) => {
        const frame = readCommandFrame(text);
        let parses = true;
        try {
          JSON.parse(text);
        } catch {
          parses = false;
        }
        if (frame.kind === "call") expect(parses).toBe(true);
        if (!parses) expect(frame.kind).toBe("unreadable");
      }),
    );
  });
});

describe("socket rules", () => {
  const table = ruleTables["agent-server"];
  const base = {
    table: "t",
    rules: [
      {
        id: 1,
        name: "all",
        category: "c",
        tier: "catch-all",
        match: [{}],
        identity: "ip",
        limits: { us: { count: 1, interval: 1 }, eu: { count: 1, interval: 1 } },
      },
    ],
  };

  it("the agent server opens its protocol v2 socket on a thread's event stream, and nowhere else", () => {
    expect(socketRuleFor(table, `/threads/${UUID}/stream/events`)?.rule.protocol).toBe("agent-protocol-v2");
    for (const path of ["/threads/not-a-uuid/stream/events", `/threads/${UUID}/stream`, `/threads/${UUID}/commands`, "/runs/stream", "/"]) {
      expect(socketRuleFor(table, path), path).toBeUndefined();
    }
    expect(ruleTables["hosted-api"].sockets).toEqual([]);
    expect(ruleTables["control-plane"].sockets).toEqual([]);
  });

  it("survive the table's file form (overrides re-check a table from it), as do its concurrency rows", () => {
    const table = ruleTables["agent-server"];
    expect(loadRuleTable(tableData(table), "again")).toEqual(table);
  });

  it("counts a command as POST on the same thread's commands path", () => {
    const route = socketRuleFor(table, `/threads/${UUID}/stream/events`)!;
    expect(frameTwin(route, `/threads/${UUID}/stream/events`)).toEqual({ method: "POST", path: `/threads/${UUID}/commands` });
  });

  it("counts a `frames` socket's frames as its upgrade", () => {
    expect(frameTwin({ root: "/", rule: { path: { kind: "exact", pattern: "/live" }, protocol: "frames" } }, "/live")).toEqual({
      method: "GET",
      path: "/live",
    });
  });

  it("are met under a table's alias roots as its rows are, and count a command under the same root", () => {
    const aliased = loadRuleTable({
      ...base,
      aliasRoots: ["/api/v1"],
      sockets: [
        {
          path: { kind: "template", pattern: "/threads/{uuid}/stream/events" },
          protocol: "agent-protocol-v2",
          commandsAs: { method: "POST", path: "/threads/{uuid}/commands" },
        },
      ],
    });
    const route = socketRuleFor(aliased, `/api/v1/threads/${UUID}/stream/events`);
    expect(route?.root).toBe("/api/v1");
    expect(frameTwin(route!, `/api/v1/threads/${UUID}/stream/events`)).toEqual({ method: "POST", path: `/api/v1/threads/${UUID}/commands` });
    expect(socketRuleFor(aliased, `/api/v2/threads/${UUID}/stream/events`)).toBeUndefined();
  });

  const problemsOf = (sockets: unknown[]) => loaderProblems({ ...base, sockets });

  it.each([
    [[{ path: { kind: "prefix", pattern: "/threads" }, protocol: "frames" }], /sockets\[0\], field path.kind: a socket opens on one route/],
    [[{ path: { kind: "exact", pattern: "/live" }, protocol: "agent-protocol-v2" }], /sockets\[0\], field commandsAs: agent-protocol-v2 commands must name/],
    [[{ path: { kind: "exact", pattern: "/live" }, protocol: "frames", commandsAs: { method: "POST", path: "/x" } }], /field commandsAs: a "frames" socket/],
    [
      [{ path: { kind: "exact", pattern: "/live" }, protocol: "agent-protocol-v2", commandsAs: { method: "POST", path: "/t/{uuid}/c" } }],
      /commandsAs.path: it has 1 \{uuid\} segment\(s\); the socket's path has 0/,
    ],
    [[{ path: { kind: "exact", pattern: "/live/" }, protocol: "frames" }], /field path.pattern: "\/live\/" is not canonical/],
    [[{ path: { kind: "exact", pattern: "/live" }, protocol: "telnet" }], /sockets\[0\].protocol/],
    [[{ path: { kind: "exact", pattern: "/live" }, protocol: "frames", extra: 1 }], /unknown key\(s\) "extra"/],
  ])("refuses a bad socket rule, naming the entry and field (%#)", (sockets, problem) => {
    expect(problemsOf(sockets).join("\n")).toMatch(problem);
  });
});
