import { describe, expect, it } from "vitest";
import { bodilessRefusal, bodyFraming, isBodiless } from "../../../../src/core/rules/body-framing.ts";

describe("bodyFraming", () => {
  it("refuses a GET or HEAD that declares a body, reads one whose length is not given, forwards the rest", () => {
    for (const method of ["GET", "HEAD", "get"]) {
      expect(bodyFraming(method, new Headers({ "content-length": "5" }))).toBe("refuse");
      expect(bodyFraming(method, new Headers({ "content-length": "0" }))).toBe("forward");
      expect(bodyFraming(method, new Headers({ "transfer-encoding": "chunked" }))).toBe("read");
      expect(bodyFraming(method, new Headers())).toBe("read");
    }
    for (const method of ["POST", "PUT", "PATCH", "DELETE", "OPTIONS"]) {
      expect(bodyFraming(method, new Headers({ "content-length": "5" }))).toBe("forward");
      expect(bodyFraming(method, new Headers())).toBe("forward");
    }
  });

  it("names the method in its refusal and says what to do instead", () => {
    expect(isBodiless("HEAD")).toBe(true);
    expect(isBodiless("OPTIONS")).toBe(false);
    expect(bodilessRefusal("get")).toMatch(/^A GET request must not carry a body.*POST/);
  });
});
