import { RpcTarget } from "cloudflare:workers";
import { ok, refuse, type Result } from "../../shared/result.ts";
import { IntegrationStore } from "../integrations/store.ts";
import type { DeploymentProvisioning } from "../../shared/deployment-provisioning.ts";
import { page, type Page } from "../page.ts";
import { AgentServers } from "./agent-servers.ts";
import { outcomeOf, progressAt, type PipelineEnd } from "./lifecycle.ts";
import {
  EMULATED_IMAGE_VERSION,
  storedDeploymentTypes,
  type Deployment,
  type Revision,
  type RevisionInput,
  type Secret,
  type Source,
  type SourceConfig,
} from "./model.ts";
import { planPatch } from "./patch.ts";
import type { DeploymentCreate, DeploymentListFilter, DeploymentPatch, RevisionListFilter, SourceConfigPatch } from "./schema.ts";
import { toDeployment, toRevision } from "./serialize.ts";
import { createDeploymentTables, type DeploymentRow, type DeploymentView, type RevisionRow } from "./tables.ts";

// With the URL of its agent server once one serves it (agent-servers.ts).
const DEPLOYMENT_VIEW = `SELECT d.*, r.config AS latest_config, a.url AS agent_server_url
  FROM deployments d LEFT JOIN deployment_revisions r ON r.id = d.latest_revision_id
  LEFT JOIN deployment_agent_servers a ON a.deployment_id = d.id AND a.provisioned = 1`;

/**
 * Deployments and revisions of one workspace. Revision statuses follow a timeline fixed at
 * creation (lifecycle.ts); every call first persists whatever the timeline says is due, and one
 * alarm is kept for the earliest pending transition, so statuses move on their own and stay right
 * after a late alarm or a restart.
 */
export class DeploymentStore extends RpcTarget {
  /**
   * The store's clock, in ms since the epoch: the machine's, plus what the emulator's clock switch
   * moved it on (`advanceClock`). Tests in the control plane's own project replace it from inside
   * the object (`runInDurableObject`) to drive revisions without waiting; alarms are set on this
   * clock, so a fake clock should run ahead of real time (a past one would make alarms fire at
   * once, again).
   */
  clock: () => number = () => Date.now() + this.#aheadMs;
  /** How far `clock` runs ahead of the machine's time (persisted: deployment_clock). */
  #aheadMs: number;

  readonly #ctx: DurableObjectState;
  readonly #sql: SqlStorage;
  readonly #integrations: IntegrationStore;

  readonly #agentServers: AgentServers;

  /** `provisioning`: the agent-server emulator's entrypoint, when this control plane is bound to one. */
  constructor(ctx: DurableObjectState, provisioning?: DeploymentProvisioning) {
    super();
    this.#ctx = ctx;
    this.#sql = ctx.storage.sql;
    createDeploymentTables(this.#sql);
    this.#aheadMs = this.#sql.exec<{ ahead_ms: number }>("SELECT ahead_ms FROM deployment_clock").toArray()[0]?.ahead_ms ?? 0;
    this.#agentServers = new AgentServers(this.#sql, provisioning);
    this.#integrations = new IntegrationStore(this.#sql);
  }

  /**
   * The workspace's GitHub installations (`/v1/integrations/...`): kept here because a `github`
   * deployment's `integration_id` is checked against them, in the same object.
   */
  integrations(): IntegrationStore {
    return this.#integrations;
  }

  /**
   * POST /v2/deployments: the deployment and its first revision, whose statuses each take
   * `stepMs` (CONTROL_PLANE_REVISION_STEP_MS, read by the route). `agentServerUrl`: where its
   * agent server will answer, with `{deployment_id}` (agent-server-url.ts); null for none.
   */
  async create(tenantId: string, request: DeploymentCreate, stepMs: number, agentServerUrl: string | null = null): Promise<Result<Deployment>> {
    const now = this.clock();
    this.#advance(now);
    if (this.#sql.exec("SELECT 1 FROM deployments WHERE name = ?", request.name).toArray().length > 0) {
      return refuse(400, `A deployment named '${request.name}' already exists in this workspace.`);
    }
    const integrationId = request.source_config.integration_id;
    if (request.source === "github" && integrationId && !this.#integrations.has(integrationId)) {
      return refuse(400, `GitHub integration ID ${integrationId} not found: list this workspace's integrations with GET /v1/integrations/github/install.`);
    }
    const id = crypto.randomUUID();
    const secrets: Secret[] = request.secrets.map(({ name, value }) => ({ name, value }));
    this.#ctx.storage.transactionSync(() => {
      this.#sql.exec(
        `INSERT INTO deployments (id, tenant_id, name, source, source_config, secrets, secret_references, created_ms, updated_ms, status)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'AWAITING_DATABASE')`,
        id,
        tenantId,
        request.name,
        request.source,
        JSON.stringify(toSourceConfig(request.source_config)),
        JSON.stringify(secrets),
        request.secret_references ? JSON.stringify(request.secret_references) : null,
        now,
        now,
      );
      this.#agentServers.plan(id, agentServerUrl);
      this.#addRevision(id, request.source, toRevisionInput(request.source_revision_config), now, stepMs);
    });
    await this.#schedule();
    return ok(this.#deployment(id)!);
  }

  /** GET /v2/deployments: newest first, filtered. */
  async list(filter: DeploymentListFilter): Promise<Page<Deployment>> {
    await this.#catchUp();
    const where: string[] = [];
    const bindings: (string | number)[] = [];
    const oneOf = (column: string, values: readonly string[]) => {
      where.push(`${column} IN (${values.map(() => "?").join(", ")})`);
      bindings.push(...values);
    };
    if (filter.name_contains) {
      where.push("instr(lower(d.name), lower(?)) > 0");
      bindings.push(filter.name_contains);
    }
    if (filter.status?.length) oneOf("d.status", filter.status);
    if (filter.deployment_ids?.length) oneOf("d.id", filter.deployment_ids);
    if (filter.deployment_type) oneOf("json_extract(d.source_config, '$.deployment_type')", storedDeploymentTypes(filter.deployment_type));
    // Every deployment here was made through this API; none was reconciled from a remote.
    if (filter.remote_reconciled === true) where.push("0");
    if (filter.image_version !== undefined) oneOf("d.image_version", [filter.image_version]);
    // The emulator has no tags, so no deployment carries the tag values asked for.
    if (filter.tag_value_ids?.length) where.push("0");
    const rows = this.#sql
      .exec<DeploymentView>(
        `${DEPLOYMENT_VIEW} ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY d.seq DESC LIMIT ? OFFSET ?`,
        ...bindings,
        filter.limit,
        filter.offset,
      )
      .toArray();
    return page(rows.map(toDeployment), filter.offset);
  }

  /** GET /v2/deployments/{id}. */
  async get(deploymentId: string): Promise<Result<Deployment>> {
    await this.#catchUp();
    const deployment = this.#deployment(deploymentId);
    return deployment ? ok(deployment) : notFound(deploymentId);
  }

  /**
   * PATCH /v2/deployments/{id}: see patch.ts for what may change and what makes a revision (whose
   * statuses each take `stepMs`).
   */
  async patch(deploymentId: string, request: DeploymentPatch, stepMs: number): Promise<Result<Deployment>> {
    const now = this.clock();
    this.#advance(now);
    const row = this.#sql.exec<DeploymentRow>("SELECT * FROM deployments WHERE id = ?", deploymentId).toArray()[0];
    if (!row) return notFound(deploymentId);
    const latest = this.#sql.exec<RevisionRow>("SELECT * FROM deployment_revisions WHERE id = ?", row.latest_revision_id).one();
    const decision = planPatch(
      {
        source: row.source as Source,
        sourceConfig: JSON.parse(row.source_config) as SourceConfig,
        secrets: JSON.parse(row.secrets) as Secret[],
        secretReferences: row.secret_references ? JSON.parse(row.secret_references) : null,
        latest: { source: latest.source as Source, config: toRevisionInput(JSON.parse(latest.config)) },
      },
      this.#agentServers.withoutReadOnlyUrl(deploymentId, row.source as Source, request),
    );
    if (!decision.ok) return refuse(400, decision.detail);
    const { plan } = decision;
    this.#ctx.storage.transactionSync(() => {
      this.#sql.exec(
        "UPDATE deployments SET source_config = ?, secrets = ?, secret_references = ?, updated_ms = ? WHERE id = ?",
        JSON.stringify(plan.sourceConfig),
        JSON.stringify(plan.secrets),
        plan.secretReferences ? JSON.stringify(plan.secretReferences) : null,
        now,
        deploymentId,
      );
      if (plan.revision) {
        this.#interruptInProgress(deploymentId, now);
        this.#addRevision(deploymentId, plan.revision.source, plan.revision.config, now, stepMs);
      }
    });
    await this.#schedule();
    return ok(this.#deployment(deploymentId)!);
  }

  /** DELETE /v2/deployments/{id}: the deployment and all its revisions. */
  async delete(deploymentId: string): Promise<Result<null>> {
    if (this.#sql.exec("SELECT 1 FROM deployments WHERE id = ?", deploymentId).toArray().length === 0) return notFound(deploymentId);
    this.#ctx.storage.transactionSync(() => this.#remove(deploymentId));
    // Its pending transitions went with it: the alarm moves to the next one, or goes.
    await this.#schedule();
    return ok(null);
  }

  /**
   * DELETE /v2/deployments?deployment_ids=...: each deployment found is deleted as one DELETE
   * would; the ones not found are reported. None found is a 404 naming the first.
   */
  async deleteMany(deploymentIds: readonly string[]): Promise<Result<BulkDeletion>> {
    const unique = [...new Set(deploymentIds)];
    const found = unique.filter((id) => this.#exists(id));
    if (found.length === 0) return notFound(unique[0]!);
    this.#ctx.storage.transactionSync(() => found.forEach((id) => this.#remove(id)));
    await this.#schedule();
    const failed = unique.filter((id) => !found.includes(id)).map((id) => ({ deployment_id: id, detail: `Deployment ID ${id} not found.` }));
    return ok({ deleted: found, failed });
  }

  /**
   * POST /v2/deployments/{id}/revisions/{revision_id}/redeploy: a new revision with that
   * revision's source and configuration (the same commit, for `github`), which walks the statuses
   * like any revision and interrupts the ones still in progress.
   */
  async redeploy(deploymentId: string, revisionId: string, stepMs: number): Promise<Result<Deployment>> {
    const now = this.clock();
    this.#advance(now);
    if (!this.#exists(deploymentId)) return notFound(deploymentId);
    const revision = this.#sql
      .exec<RevisionRow>("SELECT * FROM deployment_revisions WHERE id = ? AND deployment_id = ?", revisionId, deploymentId)
      .toArray()[0];
    if (!revision) return refuse(404, `Revision ID ${revisionId} not found.`);
    const config = JSON.parse(revision.config) as RevisionInput & { repo_commit_sha: string | null };
    this.#ctx.storage.transactionSync(() => {
      this.#interruptInProgress(deploymentId, now);
      this.#addRevision(deploymentId, revision.source as Source, toRevisionInput(config), now, stepMs, config.repo_commit_sha);
      this.#sql.exec("UPDATE deployments SET updated_ms = ? WHERE id = ?", now, deploymentId);
    });
    await this.#schedule();
    return ok(this.#deployment(deploymentId)!);
  }

  /** GET /v2/deployments/{id}/revisions: newest first. */
  async listRevisions(deploymentId: string, filter: RevisionListFilter): Promise<Result<Page<Revision>>> {
    await this.#catchUp();
    if (!this.#exists(deploymentId)) return notFound(deploymentId);
    const statuses = filter.status ?? [];
    // No revision was reconciled from a remote: asking for those lists none.
    if (filter.remote_reconciled === true) return ok(page([], filter.offset));
    const rows = this.#sql
      .exec<RevisionRow>(
        `SELECT * FROM deployment_revisions WHERE deployment_id = ?
         ${statuses.length ? `AND status IN (${statuses.map(() => "?").join(", ")})` : ""}
         ORDER BY seq DESC LIMIT ? OFFSET ?`,
        deploymentId,
        ...statuses,
        filter.limit,
        filter.offset,
      )
      .toArray();
    return ok(page(rows.map(toRevision), filter.offset));
  }

  /** GET /v2/deployments/{id}/revisions/{revision_id}. */
  async getRevision(deploymentId: string, revisionId: string): Promise<Result<Revision>> {
    await this.#catchUp();
    if (!this.#exists(deploymentId)) return notFound(deploymentId);
    const row = this.#sql.exec<RevisionRow>("SELECT * FROM deployment_revisions WHERE id = ? AND deployment_id = ?", revisionId, deploymentId).toArray()[0];
    return row ? ok(toRevision(row)) : refuse(404, `Revision ID ${revisionId} not found.`);
  }

  /**
   * Moves the workspace's deployment clock `ms` on (`POST /v2/_emulator/workspaces/{id}/clock`),
   * persisting what became due, as an alarm would: a client lets statuses pass without waiting for
   * them. Answers the clock's time.
   */
  async advanceClock(ms: number): Promise<number> {
    this.#aheadMs += ms;
    this.#sql.exec("INSERT INTO deployment_clock (id, ahead_ms) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET ahead_ms = excluded.ahead_ms", this.#aheadMs);
    // Rescheduled even when nothing became due: the alarm's machine time moved with the clock.
    await this.onAlarm();
    return this.clock();
  }

  /** The workspace's alarm: persist the transitions now due and set the alarm for the next one. */
  async onAlarm(): Promise<void> {
    this.#advance(this.clock());
    await this.#schedule();
  }

  /** Persists due transitions, then moves the alarm if any were due. */
  async #catchUp(): Promise<void> {
    if (this.#advance(this.clock()) || this.#agentServers.pending()) await this.#schedule();
  }

  /**
   * Brings every revision with a transition due by `now` to the status its timeline says, in
   * creation order; a revision reaching DEPLOYED becomes its deployment's active revision (and the
   * deployment READY). Returns whether anything changed.
   */
  #advance(now: number): boolean {
    return this.#ctx.storage.transactionSync(() => {
      const due = this.#sql.exec<RevisionRow>("SELECT * FROM deployment_revisions WHERE next_at IS NOT NULL AND next_at <= ? ORDER BY seq", now).toArray();
      for (const revision of due) {
        const progress = progressAt(revision.created_ms, revision.step_ms, revision.outcome as PipelineEnd, now);
        this.#sql.exec(
          "UPDATE deployment_revisions SET status = ?, updated_ms = ?, next_at = ? WHERE id = ?",
          progress.status,
          progress.since,
          progress.next,
          revision.id,
        );
        if (progress.status === "DEPLOYED") this.#activate(revision.id, revision.deployment_id, progress.since);
      }
      return due.length > 0;
    });
  }

  /** One alarm per workspace, at the earliest pending transition of any revision. */
  async #schedule(): Promise<void> {
    // Deployed deployments get their agent server, deleted ones lose it, before anyone is answered.
    await this.#agentServers.sync();
    const { next } = this.#sql.exec<{ next: number | null }>("SELECT MIN(next_at) AS next FROM deployment_revisions").one();
    if (next === null) await this.#ctx.storage.deleteAlarm();
    // The alarm is on the machine's time: `next` is on the store's clock, which may run ahead.
    else await this.#ctx.storage.setAlarm(next - this.#aheadMs);
  }

  /** A newer revision supersedes any still in progress: they stop where they are. */
  #interruptInProgress(deploymentId: string, now: number): void {
    this.#sql.exec(
      "UPDATE deployment_revisions SET status = 'INTERRUPTED', updated_ms = ?, next_at = NULL WHERE deployment_id = ? AND next_at IS NOT NULL",
      now,
      deploymentId,
    );
  }

  /** The deployment and its revisions, gone (inside a transaction). */
  #remove(deploymentId: string): void {
    this.#sql.exec("DELETE FROM deployment_revisions WHERE deployment_id = ?", deploymentId);
    this.#sql.exec("DELETE FROM deployments WHERE id = ?", deploymentId);
  }

  /** `commitSha`: a redeploy's, the revision it redeploys; otherwise made up for `github`. */
  #addRevision(deploymentId: string, source: Source, input: RevisionInput, now: number, stepMs: number, commitSha?: string | null): void {
    const id = crypto.randomUUID();
    const outcome = outcomeOf({ ...input });
    const progress = progressAt(now, stepMs, outcome, now);
    // The commit a branch pointed at when the revision was made: made up, one per revision.
    const config = { ...input, repo_commit_sha: commitSha !== undefined ? commitSha : source === "github" ? randomSha() : null };
    this.#sql.exec(
      `INSERT INTO deployment_revisions (id, deployment_id, source, config, created_ms, step_ms, outcome, status, updated_ms, next_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      id,
      deploymentId,
      source,
      JSON.stringify(config),
      now,
      stepMs,
      outcome,
      progress.status,
      progress.since,
      progress.next,
    );
    this.#sql.exec("UPDATE deployments SET latest_revision_id = ? WHERE id = ?", id, deploymentId);
    // A step of 0 is final at once.
    if (progress.status === "DEPLOYED") this.#activate(id, deploymentId, progress.since);
  }

  /** A deployed revision serves the deployment, which is READY from then on. */
  #activate(revisionId: string, deploymentId: string, since: number): void {
    this.#sql.exec(
      "UPDATE deployments SET active_revision_id = ?, status = 'READY', image_version = ?, updated_ms = MAX(updated_ms, ?) WHERE id = ?",
      revisionId,
      EMULATED_IMAGE_VERSION,
      since,
      deploymentId,
    );
  }

  #deployment(deploymentId: string): Deployment | null {
    const row = this.#sql.exec<DeploymentView>(`${DEPLOYMENT_VIEW} WHERE d.id = ?`, deploymentId).toArray()[0];
    return row ? toDeployment(row) : null;
  }

  #exists(deploymentId: string): boolean {
    return this.#sql.exec("SELECT 1 FROM deployments WHERE id = ?", deploymentId).toArray().length > 0;
  }
}

/** What a bulk delete answers (200 when nothing failed, 207 otherwise). */
export interface BulkDeletion {
  deleted: string[];
  failed: { deployment_id: string; detail: string }[];
}

function notFound(deploymentId: string): Result<never> {
  return refuse(404, `Deployment ID ${deploymentId} not found.`);
}

/** The stored form of `source_config`: every field present, null when not sent. */
function toSourceConfig(input: SourceConfigPatch): SourceConfig {
  return {
    integration_id: input.integration_id ?? null,
    repo_url: input.repo_url ?? null,
    deployment_type: input.deployment_type ?? null,
    build_on_push: input.build_on_push ?? null,
    custom_url: input.custom_url ?? null,
    resource_spec: input.resource_spec ?? null,
    listener_id: input.listener_id ?? null,
    listener_config: input.listener_config ? { k8s_namespace: input.listener_config.k8s_namespace ?? null } : null,
    install_command: input.install_command ?? null,
    build_command: input.build_command ?? null,
  };
}

function toRevisionInput(input: Partial<Record<keyof RevisionInput, string | null | undefined>>): RevisionInput {
  return {
    repo_ref: input.repo_ref ?? null,
    langgraph_config_path: input.langgraph_config_path ?? null,
    image_uri: input.image_uri ?? null,
    source_tarball_path: input.source_tarball_path ?? null,
  };
}

function randomSha(): string {
  return [...crypto.getRandomValues(new Uint8Array(20))].map((b) => b.toString(16).padStart(2, "0")).join("");
}
