import { RpcTarget } from "cloudflare:workers";
import { ok, type Result } from "../../shared/result.ts";
import { page, type Page } from "../page.ts";
import { registryOf } from "./image.ts";
import { duplicateTemplateName, templateNotFound } from "./refusals.ts";
import type { SandboxTemplate, TemplateCreateRequest } from "./schema.ts";
import { SEED_TEMPLATES } from "./seed.ts";

/**
 * Sandbox templates of one workspace, in the workspace object's SQLite. Listed in creation order
 * (`seq`), so a page never changes because a later template was created. Every method first
 * seeds the workspace's starter templates, once in its lifetime (a marker row remembers it, so a
 * deleted seed stays deleted). Methods are synchronous: each runs atomically in the object.
 */
export class TemplateStore extends RpcTarget {
  readonly #ctx: DurableObjectState;
  readonly #sql: SqlStorage;
  #seeded = false;

  constructor(ctx: DurableObjectState) {
    super();
    this.#ctx = ctx;
    this.#sql = ctx.storage.sql;
    this.#sql.exec(`CREATE TABLE IF NOT EXISTS sandbox_templates (
      seq INTEGER PRIMARY KEY,
      id TEXT NOT NULL UNIQUE,
      name TEXT NOT NULL UNIQUE,
      template TEXT NOT NULL
    )`);
    // One id per registry name, kept after its last template is deleted, so a registry's id is stable.
    this.#sql.exec("CREATE TABLE IF NOT EXISTS sandbox_template_registries (name TEXT PRIMARY KEY, id TEXT NOT NULL)");
    this.#sql.exec("CREATE TABLE IF NOT EXISTS sandbox_template_seed (seeded_at TEXT NOT NULL)");
  }

  /** Up to `limit` templates after the first `offset`, oldest first; the page's offset is the next one to ask for. */
  list(limit: number, offset: number): Page<SandboxTemplate> {
    this.#seedOnce();
    const rows = this.#sql.exec<{ template: string }>("SELECT template FROM sandbox_templates ORDER BY seq LIMIT ? OFFSET ?", limit, offset);
    return page(
      rows.toArray().map((row) => JSON.parse(row.template) as SandboxTemplate),
      offset,
    );
  }

  /** The template with this (lower-case) id, or 404. */
  get(templateId: string): Result<SandboxTemplate> {
    this.#seedOnce();
    const row = this.#sql.exec<{ template: string }>("SELECT template FROM sandbox_templates WHERE id = ?", templateId).toArray()[0];
    return row ? ok(JSON.parse(row.template) as SandboxTemplate) : templateNotFound(templateId);
  }

  /** Stores a new template from a validated request, or 409 when its name is taken. */
  create(request: TemplateCreateRequest): Result<SandboxTemplate> {
    this.#seedOnce();
    const taken = this.#sql.exec<{ id: string }>("SELECT id FROM sandbox_templates WHERE name = ?", request.name).toArray()[0];
    if (taken) return duplicateTemplateName(request.name, taken.id);
    return ok(this.#insert(request, new Date().toISOString()));
  }

  /** Removes the template, or 404. */
  delete(templateId: string): Result<null> {
    this.#seedOnce();
    const removed = this.#sql.exec("DELETE FROM sandbox_templates WHERE id = ?", templateId).rowsWritten;
    return removed > 0 ? ok(null) : templateNotFound(templateId);
  }

  #insert(request: TemplateCreateRequest, now: string): SandboxTemplate {
    const registryName = request.registry_name ?? registryOf(request.image);
    // Field order as in the spec's table, so stored and answered JSON read the same way.
    const template: SandboxTemplate = {
      id: crypto.randomUUID(),
      name: request.name,
      image: request.image,
      resources: request.resources,
      volume_mounts: request.volume_mounts,
      proxy_config: request.proxy_config,
      registry_name: registryName,
      registry_id: this.#registryId(registryName, request.registry_id),
      created_at: now,
      updated_at: now,
    };
    this.#sql.exec("INSERT INTO sandbox_templates (id, name, template) VALUES (?, ?, ?)", template.id, template.name, JSON.stringify(template));
    return template;
  }

  /** The id sent with the request, else the one this workspace uses for the registry (minted on first use). */
  #registryId(registryName: string, sent: string | undefined): string {
    const known = this.#sql.exec<{ id: string }>("SELECT id FROM sandbox_template_registries WHERE name = ?", registryName).toArray()[0]?.id;
    const id = sent ?? known ?? crypto.randomUUID();
    if (known === undefined) this.#sql.exec("INSERT INTO sandbox_template_registries (name, id) VALUES (?, ?)", registryName, id);
    return id;
  }

  #seedOnce(): void {
    if (this.#seeded) return;
    this.#ctx.storage.transactionSync(() => {
      if (this.#sql.exec("SELECT 1 FROM sandbox_template_seed").toArray().length > 0) return;
      const now = new Date().toISOString();
      for (const seed of SEED_TEMPLATES) this.#insert(seed, now);
      this.#sql.exec("INSERT INTO sandbox_template_seed (seeded_at) VALUES (?)", now);
    });
    this.#seeded = true;
  }
}
