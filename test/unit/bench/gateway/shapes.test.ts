import { describe, expect, it } from "vitest";
import { clientIp, planShape, type ShapeSizes } from "../../../../bench/gateway/shapes.ts";
import { SHAPE_NAMES } from "../../../../bench/gateway/shape-names.ts";

const sizes: ShapeSizes = { keys: 1000, warmPasses: 3, requests: 3000, burstFactor: 10, connections: 32 };
const shapeHeaders = (shape: (typeof SHAPE_NAMES)[number], round: number, n: number) => {
  const plan = planShape(shape, round, sizes);
  return Array.from({ length: n }, (_, i) => plan.headersFor(i));
};

describe("planShape", () => {
  it("sends each new key once, and the warm pass cycles through the same keys", () => {
    const fresh = shapeHeaders("new-keys", 1, 1000).map((h) => h["x-api-key"]);
    expect(new Set(fresh).size).toBe(1000);
    const warm = planShape("warm-keys", 1, sizes);
    expect(warm.amount).toBe(3000);
    expect(new Set(Array.from({ length: 3000 }, (_, i) => warm.headersFor(i)["x-api-key"]))).toEqual(new Set(fresh));
  });

  it("never meets an earlier round's identities", () => {
    for (const shape of SHAPE_NAMES) {
      const round1 = new Set(shapeHeaders(shape, 1, 50).map((h) => JSON.stringify(h)));
      for (const h of shapeHeaders(shape, 2, 50)) expect(round1.has(JSON.stringify(h))).toBe(false);
    }
  });

  it("gives anonymous clients distinct IPs and no identity header", () => {
    const ips = shapeHeaders("new-ips", 3, 1000);
    expect(ips.every((h) => h["x-api-key"] === undefined)).toBe(true);
    expect(new Set(ips.map((h) => h["cf-connecting-ip"])).size).toBe(1000);
  });

  it("exhausts the flood's key first: one request per unit of row 14's count", () => {
    const plan = planShape("deny-flood", 1, sizes);
    expect(plan.prelude).toHaveLength(30);
    expect(plan.prelude.every((h) => h["x-api-key"] === plan.headersFor(0)["x-api-key"])).toBe(true);
    expect(plan.expect).toEqual({ kind: "deny-all" });
  });

  it("sends the hot-key burst all at once: factor x count requests, one connection each", () => {
    const plan = planShape("hot-key", 1, sizes);
    expect(plan).toMatchObject({ amount: 150, connections: 150, expect: { kind: "burst", count: 15 } });
  });

  it("never opens more connections than it sends requests (autocannon refuses that)", () => {
    const small = planShape("new-keys", 1, { ...sizes, keys: 5 });
    expect(small.connections).toBe(5);
  });
});

describe("clientIp", () => {
  it("draws distinct 10.0.0.0/8 addresses across rounds", () => {
    expect(clientIp(0, 0, 1000)).toBe("10.0.0.1");
    expect(clientIp(1, 0, 1000)).toBe("10.0.3.233");
    const seen = new Set<string>();
    for (let round = 0; round < 4; round++) for (let i = 0; i < 1000; i++) seen.add(clientIp(round, i, 1000));
    expect(seen.size).toBe(4000);
  });
});
