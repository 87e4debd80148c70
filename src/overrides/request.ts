import { z } from "zod";
import { toValidationErrors } from "../http/fastapi-errors.ts";
import { loadRuleTable, RuleTableError, type RuleTable } from "../rules/load.ts";
import { REGIONS, RuleFileSchema } from "../rules/schema.ts";
import { subjectOf } from "./subject.ts";
import { SUBJECT_KINDS, type OverrideChange, type RegionLimits } from "./types.ts";

/** One refusal, as FastAPI writes them: where (`["body", "limits", "us", "count"]`), what, which kind. */
export interface FieldError {
  readonly loc: ReadonlyArray<string | number>;
  readonly msg: string;
  readonly type: string;
}

export type ParsedChange = { readonly ok: true; readonly change: OverrideChange } | { readonly ok: false; readonly detail: readonly FieldError[] };

// The table's own field schemas: an override's limit or mode is checked exactly as a row's is.
const RULE_FIELDS = RuleFileSchema.shape.rules.element.shape;
const LimitSchema = RULE_FIELDS.limits.shape.us;
const ModeSchema = RULE_FIELDS.mode.unwrap();

const RegionLimitsSchema = z
  .strictObject(Object.fromEntries(REGIONS.map((r) => [r, LimitSchema.optional()])) as Record<(typeof REGIONS)[number], z.ZodOptional<typeof LimitSchema>>)
  .refine((limits) => REGIONS.some((r) => limits[r]), `give a limit for at least one region (${REGIONS.join(", ")})`);

const Meta = {
  rule: z.int().positive().optional(),
  reason: z.string().trim().min(1).max(500),
  /** RFC 3339, e.g. 2026-12-01T00:00:00Z. */
  expiresAt: z.iso.datetime({ offset: true }).optional(),
  expiresInSeconds: z.int().positive().max(366 * 86_400).optional(),
};

const RuleChangeSchema = z
  .strictObject({ ...Meta, rule: z.int().positive(), mode: ModeSchema.optional(), limits: RegionLimitsSchema.optional() })
  .refine((c) => c.mode !== undefined || c.limits !== undefined, { message: "a rule override sets mode, limits or both", path: ["mode"] });

const SubjectSchema = z.strictObject({
  kind: z.enum(SUBJECT_KINDS),
  /** The raw key, user id, address or prefix: hashed here, never stored. */
  value: z.string().min(1).max(1024).optional(),
  /** Or its digest, as counter names and logs show it. */
  hash: z.string().regex(/^[0-9a-f]{64}$/, "must be 64 lowercase hex digits (a digest from a counter name)").optional(),
});

const IdentityChangeSchema = z
  .strictObject({ ...Meta, identity: SubjectSchema, action: z.enum(["limit", "exempt", "block"]), limits: RegionLimitsSchema.optional() })
  .refine((c) => (c.action === "limit") === (c.limits !== undefined), { message: 'limits are given with action "limit", and only then', path: ["limits"] })
  .refine((c) => (c.identity.value === undefined) !== (c.identity.hash === undefined), { message: "give the identity's value or its hash, not both", path: ["identity"] })
  .refine((c) => !(c.identity.kind === "ipv6-prefix" && c.identity.hash !== undefined), { message: "an IPv6 prefix is given by value (address/length)", path: ["identity", "hash"] });

/**
 * Validates an override request as strictly as the rule table itself: the table's own field
 * schemas, unknown keys refused, then the rule it names changed in a copy of its table and that
 * copy run through the strict loader (loadRuleTable). Raw identity values are hashed here; the
 * result holds digests only. Every refusal names its field (`loc`), FastAPI-style.
 */
export function parseOverrideRequest(body: unknown, tables: Readonly<Record<string, RuleTable>>, secret: string | undefined): ParsedChange {
  const identity = typeof body === "object" && body !== null && "identity" in body;
  const parsed = (identity ? IdentityChangeSchema : RuleChangeSchema).safeParse(body);
  if (!parsed.success) return refuse(toValidationErrors(parsed.error.issues, "body", body).map(({ loc, msg, type }) => ({ loc, msg, type })));
  const data = parsed.data;
  if (data.expiresAt !== undefined && data.expiresInSeconds !== undefined) {
    return refuse([{ loc: ["body", "expiresInSeconds"], msg: "give expiresAt or expiresInSeconds, not both", type: "value_error" }]);
  }
  const expiry = {
    ...(data.expiresAt !== undefined && { expiresAt: Date.parse(data.expiresAt) }),
    ...(data.expiresInSeconds !== undefined && { expiresInSeconds: data.expiresInSeconds }),
  };
  if (data.rule !== undefined) {
    const table = tableOf(tables, data.rule);
    if (!table) return refuse([{ loc: ["body", "rule"], msg: `no rule ${data.rule} in the rule tables (${Object.values(tables).map(ids).join("; ")})`, type: "value_error" }]);
    const problems = loaderProblems(table, data.rule, "mode" in data ? data.mode : undefined, data.limits);
    if (problems.length > 0) return refuse(problems.map((msg) => ({ loc: ["body"], msg, type: "rule_table" })));
  }
  if (!("identity" in data)) {
    return { ok: true, change: { kind: "rule", rule: data.rule, ...(data.mode && { mode: data.mode }), ...(data.limits && { limits: limits(data.limits) }), reason: data.reason, ...expiry } };
  }
  const { kind, value, hash } = data.identity;
  let subject;
  if (hash !== undefined) subject = { kind, digest: hash };
  else {
    const hashed = subjectOf(kind, value!, secret);
    if (!hashed.ok) return refuse([{ loc: ["body", "identity", "value"], msg: hashed.why, type: "value_error" }]);
    subject = hashed.subject;
  }
  return {
    ok: true,
    change: {
      kind: "identity",
      ...(data.rule !== undefined && { rule: data.rule }),
      subject,
      action: data.action,
      ...(data.limits && { limits: limits(data.limits) }),
      reason: data.reason,
      ...expiry,
    },
  };
}

function refuse(detail: FieldError[]): ParsedChange {
  return { ok: false, detail };
}

/** Drops the regions left out, so a stored override lists only what it changes. */
function limits(given: Partial<Record<string, { count: number; interval: number } | undefined>>): RegionLimits {
  return Object.fromEntries(REGIONS.flatMap((r) => (given[r] ? [[r, given[r]]] : [])));
}

export function tableOf(tables: Readonly<Record<string, RuleTable>>, ruleId: number): RuleTable | undefined {
  return Object.values(tables).find((t) => t.rules.some((r) => r.id === ruleId));
}

function ids(table: RuleTable): string {
  const list = table.rules.map((r) => r.id);
  return `${table.name}: ${list[0]}..${list.at(-1)}`;
}

/** The table as its file spells it, so the strict loader can read it again. */
export function tableData(table: RuleTable) {
  return {
    table: table.name,
    aliasRoots: table.roots.slice(1),
    rules: table.rules.map((r) => ({ id: r.id, name: r.name, category: r.category, tier: r.tier, match: r.matchers, identity: r.identity, limits: r.limits, mode: r.mode })),
  };
}

/** The loader's problems with `table` once row `ruleId` takes the override's mode and limits. */
function loaderProblems(table: RuleTable, ruleId: number, mode: string | undefined, given: RegionLimits | undefined): string[] {
  const data = tableData(table);
  data.rules = data.rules.map((r) => (r.id === ruleId ? { ...r, ...(mode && { mode: mode as typeof r.mode }), limits: { ...r.limits, ...given } } : r));
  try {
    loadRuleTable(data, `the ${table.name} table with this override`);
    return [];
  } catch (error) {
    if (error instanceof RuleTableError) return [...error.problems];
    throw error;
  }
}
