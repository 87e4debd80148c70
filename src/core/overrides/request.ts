import { z } from "zod";
import { toValidationErrors, type ValidationError } from "../../http/fastapi-errors.ts";
import { loadRuleTable, RuleTableError, type RuleTable } from "../rules/load.ts";
import { REGIONS, RuleFileSchema } from "../rules/schema.ts";
import { FORGEABLE, MAX_COUNT, MAX_INTERVAL_S, noLaxer } from "./bounds.ts";
import { appliesOn, COUNTED_BY } from "./scope.ts";
import { subjectOf } from "./subject.ts";
import { SUBJECT_KINDS, type IdentityOverride, type OverrideChange, type RegionLimits, type SubjectKind } from "./types.ts";

export type ParsedChange = { readonly ok: true; readonly change: OverrideChange } | { readonly ok: false; readonly detail: readonly ValidationError[] };

// The table's own field schemas: an override's limit or mode is checked exactly as a row's is,
// and its limit within the bounds besides (bounds.ts says why these).
const RULE_FIELDS = RuleFileSchema.shape.rules.element.shape;
const RowLimitSchema = RULE_FIELDS.limits.shape.us;
const LimitSchema = z.strictObject({
  count: RowLimitSchema.shape.count.max(MAX_COUNT),
  /** seconds */
  interval: RowLimitSchema.shape.interval.max(MAX_INTERVAL_S),
});
const ModeSchema = RULE_FIELDS.mode.unwrap();

const RegionLimitsSchema = z
  .strictObject(Object.fromEntries(REGIONS.map((r) => [r, LimitSchema.optional()])) as Record<(typeof REGIONS)[number], z.ZodOptional<typeof LimitSchema>>)
  .refine((limits) => REGIONS.some((r) => limits[r]), `give a limit for at least one region (${REGIONS.join(", ")})`);

const Meta = {
  rule: z.int().positive().optional(),
  reason: z.string().trim().min(1).max(500),
  /** RFC 3339, e.g. 2026-12-01T00:00:00Z. */
  expiresAt: z.iso.datetime({ offset: true }).optional(),
  expiresInSeconds: z
    .int()
    .positive()
    .max(366 * 86_400)
    .optional(),
};

const RuleChangeSchema = z
  .strictObject({ ...Meta, rule: z.int().positive(), mode: ModeSchema.optional(), limits: RegionLimitsSchema.optional() })
  .refine((c) => c.mode !== undefined || c.limits !== undefined, { message: "a rule override sets mode, limits or both", path: ["mode"] });

const SubjectSchema = z.strictObject({
  kind: z.enum(SUBJECT_KINDS),
  /** The raw key, user id, address or prefix: hashed here, never stored. */
  value: z.string().min(1).max(1024).optional(),
  /** Or its digest, as counter names and logs show it. */
  hash: z
    .string()
    .regex(/^[0-9a-f]{64}$/, "must be 64 lowercase hex digits (a digest from a counter name)")
    .optional(),
  /** `user-ip` by value only: the user's address (the user id is `value`). */
  ip: z.string().min(1).max(100).optional(),
});

const IdentityChangeSchema = z
  .strictObject({ ...Meta, identity: SubjectSchema, action: z.enum(["limit", "exempt", "block"]), limits: RegionLimitsSchema.optional() })
  .refine((c) => (c.action === "limit") === (c.limits !== undefined), { message: 'limits are given with action "limit", and only then', path: ["limits"] })
  .refine((c) => (c.identity.value === undefined) !== (c.identity.hash === undefined), {
    message: "give the identity's value or its hash, not both",
    path: ["identity"],
  })
  .refine((c) => !(c.identity.kind === "ipv6-prefix" && c.identity.hash !== undefined), {
    message: "an IPv6 prefix is given by value (address/length)",
    path: ["identity", "hash"],
  })
  .refine((c) => (c.identity.ip !== undefined) === (c.identity.kind === "user-ip" && c.identity.value !== undefined), {
    message: "a user-ip subject by value gives the user id as value and the address as ip; no other subject has an ip",
    path: ["identity", "ip"],
  })
  .refine((c) => !(c.action === "exempt" && FORGEABLE.has(c.identity.kind)), {
    message: 'any client can send this x-user-id: exempt the user at an address (kind "user-ip", with ip), or block or lower its limit instead',
    path: ["identity", "kind"],
  });

/**
 * Validates an override request as strictly as the rule table itself: the table's own field
 * schemas, unknown keys refused, then the rule it names changed in a copy of its table and that
 * copy run through the strict loader (loadRuleTable). Raw identity values are hashed here; the
 * result holds digests only. Every refusal names its field (`loc`), FastAPI-style.
 */
export function parseOverrideRequest(body: unknown, tables: Readonly<Record<string, RuleTable>>, secret: string): ParsedChange {
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
    if (!table)
      return refuse([
        { loc: ["body", "rule"], msg: `no rule ${data.rule} in the rule tables (${Object.values(tables).map(ids).join("; ")})`, type: "value_error" },
      ]);
    const problems = loaderProblems(table, data.rule, "mode" in data ? data.mode : undefined, data.limits);
    if (problems.length > 0) return refuse(problems.map((msg) => ({ loc: ["body"], msg, type: "rule_table" })));
  }
  if (!("identity" in data)) {
    return {
      ok: true,
      change: {
        kind: "rule",
        rule: data.rule,
        ...(data.mode && { mode: data.mode }),
        ...(data.limits && { limits: limits(data.limits) }),
        reason: data.reason,
        ...expiry,
      },
    };
  }
  const { kind, value, hash, ip } = data.identity;
  const scoped = scopeProblems(tables, data.rule, kind, data.action, data.limits);
  if (scoped.length > 0) return refuse(scoped);
  let subject;
  if (hash !== undefined) subject = { kind, digest: hash };
  else {
    const hashed = subjectOf(kind, value!, secret, ip);
    if (!hashed.ok)
      return refuse([
        { loc: ["body", "identity", kind === "user-ip" && !hashed.why.includes("comma") ? "ip" : "value"], msg: hashed.why, type: "value_error" },
      ]);
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

/**
 * Where an identity override could never apply, or could admit more than a forgeable subject may
 * (scope.ts, bounds.ts): a named rule that does not count the subject, or a `user-id` limit laxer
 * than the published limit of a user rule it applies to.
 */
function scopeProblems(
  tables: Readonly<Record<string, RuleTable>>,
  ruleId: number | undefined,
  kind: SubjectKind,
  action: IdentityOverride["action"],
  given: RegionLimitsInput | undefined,
): ValidationError[] {
  const rules = Object.values(tables)
    .flatMap((t) => t.rules)
    .filter((r) => ruleId === undefined || r.id === ruleId);
  const named = rules[0];
  if (ruleId !== undefined && named && !appliesOn({ subject: { kind, digest: "" }, action }, named.identity)) {
    return [
      {
        loc: ["body", "rule"],
        msg: `rule ${ruleId} counts by ${named.identity}: a ${kind} override applies only on rules counting ${COUNTED_BY[kind].join(" or ")}`,
        type: "value_error",
      },
    ];
  }
  if (!FORGEABLE.has(kind) || action !== "limit" || !given) return [];
  const problems: ValidationError[] = [];
  for (const region of REGIONS) {
    const limit = given[region];
    if (!limit) continue;
    const laxer = rules.find((r) => COUNTED_BY[kind].includes(r.identity) && !noLaxer(limit, r.limits[region]));
    if (laxer) {
      const published = laxer.limits[region];
      problems.push({
        loc: ["body", "limits", region],
        msg: `any client can send this x-user-id, so its limit may only be stricter: rule ${laxer.id} publishes ${published.count} per ${published.interval} s (give a count at most that and an interval at least that, or name the user at an address: kind "user-ip")`,
        type: "value_error",
      });
    }
  }
  return problems;
}

type RegionLimitsInput = Partial<Record<(typeof REGIONS)[number], { count: number; interval: number } | undefined>>;

function refuse(detail: ValidationError[]): ParsedChange {
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
    rules: table.rules.map((r) => ({
      id: r.id,
      name: r.name,
      category: r.category,
      tier: r.tier,
      match: r.matchers,
      identity: r.identity,
      limits: r.limits,
      mode: r.mode,
    })),
    concurrency: table.concurrency.map((r) => ({
      id: r.id,
      name: r.name,
      category: r.category,
      match: r.matchers,
      identity: r.identity,
      limits: r.limits,
      mode: r.mode,
    })),
    sockets: table.sockets,
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
