import type { TemplateCreateRequest } from "./schema.ts";

/**
 * The templates every workspace starts with (created the first time its templates are touched,
 * once: a deleted seed stays deleted). Realistic enough to develop a client against: fractional
 * and whole CPUs, binary memory, several mounts, and proxy rules with `${NAME}` header values and
 * wildcard paths. Fully specified, so each is also a valid create request (unit-tested).
 */
export const SEED_TEMPLATES: readonly TemplateCreateRequest[] = [
  {
    name: "python-data-science",
    image: "quay.io/jupyter/scipy-notebook:python-3.12",
    resources: { cpu: "2", memory: "8Gi", storage: "20Gi" },
    volume_mounts: [
      { volume_name: "workspace", mount_path: "/home/jovyan/work" },
      { volume_name: "datasets", mount_path: "/mnt/datasets" },
    ],
    proxy_config: {
      rules: [
        {
          name: "huggingface-hub",
          match_hosts: ["huggingface.co", "*.huggingface.co"],
          match_paths: ["/api/*"],
          inject_headers: { Authorization: "Bearer ${HF_TOKEN}" },
          enabled: true,
        },
      ],
      no_proxy: ["localhost", "127.0.0.1", ".svc.cluster.local"],
    },
  },
  {
    name: "node-22",
    image: "node:22-bookworm-slim",
    resources: { cpu: "500m", memory: "1Gi", storage: "10Gi" },
    volume_mounts: [
      { volume_name: "workspace", mount_path: "/workspace" },
      { volume_name: "npm-cache", mount_path: "/root/.npm" },
    ],
    proxy_config: {
      rules: [
        {
          name: "github-api",
          match_hosts: ["api.github.com"],
          match_paths: ["/repos/*"],
          inject_headers: { Authorization: "Bearer ${API_TOKEN}", "X-GitHub-Api-Version": "2022-11-28" },
          enabled: true,
        },
        {
          name: "npm-registry",
          match_hosts: ["registry.npmjs.org"],
          match_paths: ["/*"],
          inject_headers: { Authorization: "Bearer ${NPM_TOKEN}" },
          enabled: false,
        },
      ],
      no_proxy: ["localhost", "127.0.0.1"],
    },
  },
  {
    name: "playwright-browser",
    image: "mcr.microsoft.com/playwright:v1.56.0-noble",
    resources: { cpu: "1.5", memory: "4Gi", storage: "15Gi" },
    volume_mounts: [
      { volume_name: "dshm", mount_path: "/dev/shm" },
      { volume_name: "artifacts", mount_path: "/artifacts" },
    ],
    proxy_config: {
      rules: [
        {
          name: "staging-app",
          match_hosts: ["staging.example.com"],
          match_paths: ["/api/v1/*", "/login"],
          inject_headers: { "X-Api-Key": "${API_TOKEN}", "X-Test-Run": "sandbox-${RUN_ID}" },
          enabled: true,
        },
      ],
      no_proxy: ["localhost", "127.0.0.1", "10.0.0.0/8"],
    },
  },
];
