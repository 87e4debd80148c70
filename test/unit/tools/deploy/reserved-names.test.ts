import { describe, expect, it } from "vitest";
import { reservedName } from "../../../../tools/deploy/reserved-names.ts";

describe("reservedName", () => {
  it.each([
    "example.com",
    "api.us.example.com",
    "*.agents.eu.example.net",
    "EXAMPLE.ORG.",
    "gateway.example",
    "api.test",
    "x.invalid",
    "localhost",
    "admin.localhost",
  ])("refuses %s", (host) => expect(reservedName(host)).toMatch(/reserved/));
  it.each(["api.acme.com", "example.com.acme.io", "myexample.com", "testing.dev", "*.agents.acme.eu"])("accepts %s", (host) =>
    expect(reservedName(host)).toBeUndefined(),
  );
});
