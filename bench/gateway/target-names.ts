// Pure: the things the bench measures, in the order each round starts them. `before` runs only
// with `--before REV`: the gateway as built from another commit, beside this checkout's.
export const TARGET_NAMES = ["bare", "gateway", "before", "peer"] as const;
export type TargetName = (typeof TARGET_NAMES)[number];

/** The targets that are tollgate: probed for their rows and read for how they decided. */
export const TOLLGATE_TARGETS: readonly TargetName[] = ["gateway", "before"];

export const isTollgate = (target: TargetName): boolean => TOLLGATE_TARGETS.includes(target);

/** What each target is, for the table's legend. */
export const TARGET_TITLES: Readonly<Record<TargetName, string>> = {
  bare: "bare Hono Worker forwarding to the same upstream (the baseline)",
  gateway: "tollgate, wrangler.toml env us with the local bindings",
  before: "tollgate at the --before revision (a git worktree of it), built and served the same way",
  peer: "hono-rate-limiter 0.5 + @hono-rate-limiter/cloudflare DurableObjectStore",
};
