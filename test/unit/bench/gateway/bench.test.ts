import { existsSync } from "node:fs";
import { rm, stat } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { orderFor, shapeGroups, storageRoot } from "../../../../bench/gateway/bench.ts";
import { SHAPE_NAMES } from "../../../../bench/gateway/shape-names.ts";

describe("orderFor", () => {
  it("rotates the targets each round, so each runs first, middle and last in turn", () => {
    const targets = ["bare", "gateway", "peer"];
    expect(orderFor(targets, 1)).toEqual(["bare", "gateway", "peer"]);
    expect(orderFor(targets, 2)).toEqual(["gateway", "peer", "bare"]);
    expect(orderFor(targets, 3)).toEqual(["peer", "bare", "gateway"]);
    expect(orderFor(targets, 4)).toEqual(["bare", "gateway", "peer"]);
  });
});

describe("shapeGroups", () => {
  it("runs warm keys right after new keys on the same target, every other shape on its own", () => {
    expect(shapeGroups([...SHAPE_NAMES])).toEqual([["new-keys", "warm-keys"], ["one-key"], ["deny-flood"], ["new-ips"], ["hot-key"]]);
    expect(shapeGroups(["hot-key", "new-keys"])).toEqual([["new-keys"], ["hot-key"]]);
  });
});

describe("storageRoot", () => {
  it("puts storage in the bench's own temporary directory for tmpdir, left for the workdir's clean-up", async () => {
    expect(await storageRoot("tmpdir", "/tmp/tollgate-bench-x")).toEqual({ dir: "/tmp/tollgate-bench-x/storage", owned: false });
  });

  it.runIf(existsSync("/dev/shm"))("makes a fresh directory under /dev/shm for ram, its own to remove", async () => {
    const first = await storageRoot("ram", "/tmp/unused");
    const second = await storageRoot("ram", "/tmp/unused");
    try {
      expect(first.owned).toBe(true);
      expect(first.dir.startsWith("/dev/shm/tollgate-bench-")).toBe(true);
      expect((await stat(first.dir)).isDirectory()).toBe(true);
      expect(second.dir).not.toBe(first.dir);
    } finally {
      await rm(first.dir, { recursive: true, force: true });
      await rm(second.dir, { recursive: true, force: true });
    }
  });
});
