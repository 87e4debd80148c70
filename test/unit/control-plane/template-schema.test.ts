import { describe, expect, it } from "vitest";
import { toValidationErrors } from "../../../src/http/fastapi-errors.ts";
import { checkImageReference, registryOf } from "../../../emulators/control-plane/templates/image.ts";
import { DEFAULT_LIMIT, TemplateCreateRequest, TemplateListQuery } from "../../../emulators/control-plane/templates/schema.ts";
import { SEED_TEMPLATES } from "../../../emulators/control-plane/templates/seed.ts";
import { checkMountPath, checkVolumeName } from "../../../emulators/control-plane/templates/volume-mounts.ts";

const errorsOf = (body: unknown) => {
  const result = TemplateCreateRequest.safeParse(body);
  return result.success ? [] : toValidationErrors(result.error.issues, "body", body);
};

describe("image references", () => {
  it.each([
    "python",
    "python:3.12-slim",
    "library/python:3.12",
    "quay.io/jupyter/scipy-notebook:python-3.12",
    "registry.example.com:5000/team/app:1.0",
    "localhost/app",
    `ghcr.io/org/app@sha256:${"a".repeat(64)}`,
    `ghcr.io/org/app:1.0@sha256:${"b".repeat(64)}`,
    "my_org/my-app__x.y",
  ])("accepts %s", (image) => {
    expect(checkImageReference(image)).toBeUndefined();
  });

  it.each(["", "Python:3.12", "docker://python", "python:", "python:-bad", "app@sha256:short", "a//b", "app:tag with space", `x/${"a".repeat(256)}`])(
    "refuses %j",
    (image) => {
      expect(checkImageReference(image)).toBeDefined();
    },
  );

  it.each([
    ["python:3.12", "docker.io"],
    ["library/python", "docker.io"],
    ["index.docker.io/library/python", "docker.io"],
    ["ghcr.io/org/app:1.0", "ghcr.io"],
    ["localhost/app", "localhost"],
    ["registry:5000/app", "registry:5000"],
    ["mcr.microsoft.com/playwright:v1.56.0-noble", "mcr.microsoft.com"],
  ])("finds the registry of %s: %s", (image, registry) => {
    expect(registryOf(image)).toBe(registry);
  });
});

describe("volume mounts", () => {
  it("wants Kubernetes volume names and absolute paths without ..", () => {
    expect(checkVolumeName("npm-cache")).toBeUndefined();
    for (const bad of ["Data", "-x", "x-", "a_b", "", "a".repeat(64)]) expect(checkVolumeName(bad), bad).toBeDefined();
    expect(checkMountPath("/home/jovyan/work")).toBeUndefined();
    expect(checkMountPath("/a..b/c")).toBeUndefined();
    for (const bad of ["work", "", "/a/../b", "/..", "/a\nb"]) expect(checkMountPath(bad), bad).toBeDefined();
  });
});

describe("TemplateCreateRequest", () => {
  it("requires name and image and defaults the rest", () => {
    expect(TemplateCreateRequest.parse({ name: "t", image: "python:3.12" })).toEqual({
      name: "t",
      image: "python:3.12",
      resources: { cpu: "1", memory: "2Gi", storage: "10Gi" },
      volume_mounts: [],
      proxy_config: { rules: [], no_proxy: [] },
    });
    expect(errorsOf({})).toEqual([
      { type: "missing", loc: ["body", "name"], msg: "Field required" },
      { type: "missing", loc: ["body", "image"], msg: "Field required" },
    ]);
  });

  it("defaults each missing resource on its own", () => {
    expect(TemplateCreateRequest.parse({ name: "t", image: "x", resources: { cpu: "250m" } }).resources).toEqual({
      cpu: "250m",
      memory: "2Gi",
      storage: "10Gi",
    });
  });

  it("refuses unknown and read-only fields instead of dropping them", () => {
    expect(errorsOf({ name: "t", image: "x", id: "1", resources: { cpus: "2" } }).map((e) => [e.type, e.loc])).toEqual([
      ["extra_forbidden", ["body", "resources", "cpus"]],
      ["extra_forbidden", ["body", "id"]],
    ]);
  });

  it("reports bad values where they are", () => {
    const errors = errorsOf({
      name: "  ",
      image: "x",
      resources: { memory: "4GB" },
      volume_mounts: [
        { volume_name: "w", mount_path: "/w" },
        { volume_name: "v", mount_path: "/w" },
      ],
      proxy_config: { rules: [{ name: "r", match_hosts: ["a.com"], match_paths: ["/a", "/b/*/c"] }] },
      registry_id: "not-a-uuid",
    });
    expect(errors.map((e) => [e.type, e.loc])).toEqual([
      ["value_error", ["body", "name"]],
      ["value_error", ["body", "resources", "memory"]],
      ["value_error", ["body", "volume_mounts", 1, "mount_path"]],
      ["value_error", ["body", "proxy_config", "rules", 0, "match_paths", 1]],
      ["uuid_parsing", ["body", "registry_id"]],
    ]);
  });

  it("accepts every seed template as it is (they are valid, fully specified requests)", () => {
    expect(SEED_TEMPLATES.map((seed) => TemplateCreateRequest.parse(seed))).toEqual(SEED_TEMPLATES);
    expect(new Set(SEED_TEMPLATES.map((seed) => seed.name)).size).toBe(SEED_TEMPLATES.length);
  });
});

describe("TemplateListQuery", () => {
  it("defaults to the first page of the maximum size", () => {
    expect(TemplateListQuery.parse({})).toEqual({ limit: DEFAULT_LIMIT, offset: 0 });
    expect(DEFAULT_LIMIT).toBe(500);
  });

  it.each([
    [{ limit: "abc" }, "int_parsing"],
    [{ limit: "" }, "int_parsing"],
    [{ limit: "0x10" }, "int_parsing"],
    [{ limit: "1.5" }, "int_parsing"],
    [{ limit: "0" }, "greater_than_equal"],
    [{ limit: "501" }, "less_than_equal"],
    [{ limit: "99999999999999999999" }, "less_than_equal"],
    [{ offset: "-1" }, "greater_than_equal"],
  ])("refuses %j as %s, once", (query, type) => {
    const result = TemplateListQuery.safeParse(query);
    expect(toValidationErrors(result.error!.issues, "query", query).map((e) => e.type)).toEqual([type]);
  });
});
