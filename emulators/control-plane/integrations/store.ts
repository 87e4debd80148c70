import { RpcTarget } from "cloudflare:workers";
import { ok, refuse, type Result } from "../../shared/result.ts";
import type { GithubIntegration, GithubRepository, Installation, IntegrationKind } from "./model.ts";
import { SEEDED_INSTALLATIONS } from "./seed.ts";

type InstallationRow = { kind: string; id: string; installation_id: number; name: string; repositories: string };

/**
 * The GitHub installations of one workspace, per listing (`github`, `forge-github`), in the
 * workspace's Durable Object. Until the emulator's admin route sets a listing, it is the seeded one
 * (seed.ts); once set, it is exactly what was set (an empty list included).
 */
export class IntegrationStore extends RpcTarget {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    super();
    this.#sql = sql;
    sql.exec(`CREATE TABLE IF NOT EXISTS integration_installations (
      seq INTEGER PRIMARY KEY,
      kind TEXT NOT NULL,
      id TEXT NOT NULL,
      installation_id INTEGER NOT NULL,
      name TEXT NOT NULL,
      repositories TEXT NOT NULL,
      UNIQUE (kind, id)
    )`);
    // The listings set through the admin route; any other is the seeded one.
    sql.exec("CREATE TABLE IF NOT EXISTS integration_listings_set (kind TEXT PRIMARY KEY)");
  }

  /** `GET /v1/integrations/github/install` and `.../forge/github/install`. */
  list(kind: IntegrationKind): GithubIntegration[] {
    return this.#installations(kind).map(({ id, installation_id, name }) => ({ id, installation_id, name }));
  }

  /** `GET .../{integration_id}/repos`: 404 for an installation this listing does not have. */
  repositories(kind: IntegrationKind, integrationId: string): Result<GithubRepository[]> {
    const installation = this.#installations(kind).find((i) => i.id === integrationId);
    if (!installation) return refuse(404, `${kind === "github" ? "GitHub" : "Forge GitHub"} integration ID ${integrationId} not found.`);
    return ok(installation.repositories.map((repository) => ({ host_integration_id: installation.id, ...repository })));
  }

  /** Whether either listing has the installation (what a `github` deployment's `integration_id` must name). */
  has(integrationId: string): boolean {
    return (["github", "forge-github"] as const).some((kind) => this.#installations(kind).some((i) => i.id === integrationId));
  }

  /** The admin route: the listing becomes exactly `installations`. */
  replace(kind: IntegrationKind, installations: Installation[]): Installation[] {
    this.#sql.exec("DELETE FROM integration_installations WHERE kind = ?", kind);
    for (const { id, installation_id, name, repositories } of installations) {
      this.#sql.exec(
        "INSERT INTO integration_installations (kind, id, installation_id, name, repositories) VALUES (?, ?, ?, ?, ?)",
        kind,
        id,
        installation_id,
        name,
        JSON.stringify(repositories),
      );
    }
    this.#sql.exec("INSERT OR IGNORE INTO integration_listings_set (kind) VALUES (?)", kind);
    return this.#installations(kind);
  }

  /** The admin route's read: the listing with its repositories. */
  installations(kind: IntegrationKind): Installation[] {
    return this.#installations(kind);
  }

  #installations(kind: IntegrationKind): Installation[] {
    if (this.#sql.exec("SELECT 1 FROM integration_listings_set WHERE kind = ?", kind).toArray().length === 0)
      return structuredClone([...SEEDED_INSTALLATIONS[kind]]);
    return this.#sql
      .exec<InstallationRow>("SELECT * FROM integration_installations WHERE kind = ? ORDER BY seq", kind)
      .toArray()
      .map((row) => ({ id: row.id, installation_id: row.installation_id, name: row.name, repositories: JSON.parse(row.repositories) }));
  }
}
