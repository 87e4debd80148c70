// Pure: what the relay bench measures, in the order a round starts them. `before` runs only with
// `--before REV`: the gateway as built from another commit, beside this checkout's.
export const RELAY_TARGET_NAMES = ["pass-through", "pair", "gateway", "before"] as const;
export type RelayTargetName = (typeof RELAY_TARGET_NAMES)[number];

/** Every ratio divides by this one. */
export const BASELINE: RelayTargetName = "pass-through";

/** The targets that are tollgate: given the bench's limits through the admin API before they are driven. */
export const isTollgate = (target: RelayTargetName): boolean => target === "gateway" || target === "before";

/** What each target is, for the report's legend. */
export const RELAY_TARGET_TITLES: Readonly<Record<RelayTargetName, string>> = {
  "pass-through": "a bare Worker returning the upstream's socket: the runtime joins them, no frame reaches JavaScript (the baseline)",
  pair: "a bare Worker holding both ends: a WebSocketPair to the client, the upstream's socket accepted, each message sent on",
  gateway: "tollgate as built (wrangler deploy --dry-run), env us with the local bindings",
  before: "tollgate at the --before revision (a git worktree of it), built and served the same way",
};
