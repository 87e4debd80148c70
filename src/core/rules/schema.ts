import { z } from "zod";

/** The regions the gateway deploys to; every rule carries a limit for each. */
export const REGIONS = ["us", "eu"] as const;
export type Region = (typeof REGIONS)[number];

/** HTTP methods a matcher may name. `GET` matchers also cover `HEAD` (see docs/rules.md, "Classification"). */
export const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

/** How a path pattern is compared with the normalized request path, segment by segment. */
export const PATH_KINDS = ["exact", "prefix", "contains", "suffix", "template"] as const;
export type PathKind = (typeof PATH_KINDS)[number];

/** Kinds anchored at the start of the path: only these are repeated under each alias root. */
export const ANCHORED_KINDS: ReadonlySet<PathKind> = new Set(["exact", "prefix", "template"]);

export const IDENTITY_KINDS = ["api-key", "user-ip", "ip"] as const;
export type IdentityKind = (typeof IDENTITY_KINDS)[number];

/** Precedence classes, strongest first: specific rows, then the defaults, then the catch-all. */
export const TIERS = ["specific", "default", "catch-all"] as const;
export type Tier = (typeof TIERS)[number];

const positiveInt = z.int().positive();

const PublishedLimitSchema = z.strictObject({
  count: positiveInt,
  /** seconds */
  interval: positiveInt,
});

const PathPatternSchema = z.strictObject({
  kind: z.enum(PATH_KINDS),
  pattern: z.string().min(1),
});

/** A matcher with neither `method` nor `path` matches every request (defaults and catch-all). */
const MatcherSchema = z.strictObject({
  method: z.enum(METHODS).optional(),
  path: PathPatternSchema.optional(),
});

const RuleSchema = z.strictObject({
  id: positiveInt,
  name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, "must be lowercase letters, digits and dashes"),
  category: z.string().min(1),
  tier: z.enum(TIERS),
  match: z.array(MatcherSchema).min(1),
  identity: z.enum(IDENTITY_KINDS),
  limits: z.strictObject({ us: PublishedLimitSchema, eu: PublishedLimitSchema }),
  mode: z.enum(["enforce", "shadow"]).default("enforce"),
});

/**
 * A concurrency rule: at most `count` matching requests held open at once per identity (the
 * RateLimit draft's `concurrent-requests` quota unit): a WebSocket from its upgrade until it
 * closes, a stream until its body ends. No interval: a slot is held, not spent (docs/counting.md,
 * "Concurrency").
 */
const ConcurrencyLimitSchema = z.strictObject({ count: positiveInt });

const ConcurrencyRuleSchema = z.strictObject({
  id: positiveInt,
  name: RuleSchema.shape.name,
  category: z.string().min(1),
  match: z.array(MatcherSchema).min(1),
  identity: z.enum(IDENTITY_KINDS),
  limits: z.strictObject({ us: ConcurrencyLimitSchema, eu: ConcurrencyLimitSchema }),
  mode: z.enum(["enforce", "shadow"]).default("enforce"),
});

/**
 * How a socket's frames count (socket-rules.ts):
 * - `agent-protocol-v2`: each client frame is a command (JSON text, socket-frames.ts) counted as
 *   the HTTP request `commandsAs` names; a refusal is answered in-band, the socket stays open.
 * - `frames`: each client frame, text or binary, is counted as the upgrade request itself; an
 *   exhausted counter ends the socket (4429), as no in-band answer exists for an unknown protocol.
 */
export const SOCKET_PROTOCOLS = ["agent-protocol-v2", "frames"] as const;
export type SocketProtocol = (typeof SOCKET_PROTOCOLS)[number];

const SocketRuleSchema = z.strictObject({
  /** Where the socket opens (a GET upgrade on this path). */
  path: PathPatternSchema,
  protocol: z.enum(SOCKET_PROTOCOLS),
  /** agent-protocol-v2: the HTTP twin each command is counted as; its `{uuid}` segments are the socket path's, in order. */
  commandsAs: z.strictObject({ method: z.enum(METHODS), path: z.string().min(1) }).optional(),
});

export const RuleFileSchema = z.strictObject({
  table: z.string().min(1),
  source: z.string().optional(),
  /**
   * Further roots the upstream serves the same endpoints under (the hosted API: `/api/v1`). Every
   * anchored pattern (exact, prefix, template) also matches below each of them.
   */
  aliasRoots: z.array(z.string().min(1)).default([]),
  rules: z.array(RuleSchema).min(1),
  /** Caps on what one identity holds open at once; optional, none by default. */
  concurrency: z.array(ConcurrencyRuleSchema).default([]),
  /** Where the upstream opens WebSockets and how their frames count (socket-rules.ts); none: every upgrade is refused. */
  sockets: z.array(SocketRuleSchema).default([]),
});

export type RuleFile = z.output<typeof RuleFileSchema>;
export type RuleData = RuleFile["rules"][number];
export type Matcher = RuleData["match"][number];
export type PathPattern = NonNullable<Matcher["path"]>;
/** A limit as the table publishes it: `count` requests per `interval` seconds (the limiter counts in ms: src/core/limiter/types.ts Limit). */
export type PublishedLimit = z.output<typeof PublishedLimitSchema>;
export type Mode = RuleData["mode"];
export type ConcurrencyRuleData = RuleFile["concurrency"][number];
/** A concurrency limit as the table publishes it: `count` requests held open at once. */
export type ConcurrencyLimit = z.output<typeof ConcurrencyLimitSchema>;
export type SocketRuleData = RuleFile["sockets"][number];
