// The shared emulator app and the one way a store's result is rendered, as FastAPI answers.
import { describe, expect, it, vi } from "vitest";
import { answer } from "../../../emulators/shared/answer.ts";
import { createEmulatorApp } from "../../../emulators/shared/app.ts";
import { invalid, ok, refuse } from "../../../emulators/shared/result.ts";
import { SettingError } from "../../../src/http/setting-error.ts";

function app() {
  const emulator = createEmulatorApp("test_emulator");
  emulator.get("/value", (c) => answer(c, ok({ id: 1 })));
  emulator.post("/created", (c) => answer(c, ok({ id: 2 }), (value) => c.json(value, 201)));
  emulator.get("/missing", (c) => answer(c, refuse(404, "Thing 9 not found.")));
  emulator.get("/invalid", (c) => answer(c, invalid([{ type: "missing", loc: ["body", "x"], msg: "Field required" }])));
  emulator.get("/setting", () => {
    throw new SettingError("SOME_MS", "SOME_MS must be a whole number of milliseconds from 0 to 10, got 'x'.");
  });
  emulator.get("/bug", () => {
    throw new TypeError("secret internals");
  });
  return emulator;
}

const call = async (method: string, path: string) => {
  const res = await app().request(path, { method });
  return { status: res.status, type: res.headers.get("content-type"), body: await res.json() };
};

describe("answer", () => {
  it("renders a value as 200 JSON, or as the responder says", async () => {
    expect(await call("GET", "/value")).toEqual({ status: 200, type: "application/json", body: { id: 1 } });
    expect(await call("POST", "/created")).toMatchObject({ status: 201, body: { id: 2 } });
  });

  it("renders refusals as FastAPI does: {detail: message}, and 422 with the error list", async () => {
    expect(await call("GET", "/missing")).toEqual({ status: 404, type: "application/json", body: { detail: "Thing 9 not found." } });
    expect(await call("GET", "/invalid")).toEqual({
      status: 422,
      type: "application/json",
      body: { detail: [{ type: "missing", loc: ["body", "x"], msg: "Field required" }] },
    });
  });
});

describe("createEmulatorApp", () => {
  it("answers a path it does not serve with FastAPI's 404", async () => {
    expect(await call("GET", "/nowhere")).toEqual({ status: 404, type: "application/json", body: { detail: "Not Found" } });
  });

  it("answers a setting error with a 500 naming the setting", async () => {
    expect(await call("GET", "/setting")).toEqual({
      status: 500,
      type: "application/json",
      body: { detail: "SOME_MS must be a whole number of milliseconds from 0 to 10, got 'x'." },
    });
  });

  it("answers any other failure with 500 Internal Server Error, logged, never the error itself", async () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    try {
      expect(await call("GET", "/bug")).toEqual({ status: 500, type: "application/json", body: { detail: "Internal Server Error" } });
      expect(JSON.parse(String(log.mock.calls[0]![0]))).toEqual({ event: "test_emulator_error", error: "TypeError: secret internals", path: "/bug" });
    } finally {
      log.mockRestore();
    }
  });
});
