// Pure: the three things the bench measures, in the order each round starts them.
export const TARGET_NAMES = ["bare", "gateway", "peer"] as const;
export type TargetName = (typeof TARGET_NAMES)[number];

/** What each target is, for the table's legend. */
export const TARGET_TITLES: Readonly<Record<TargetName, string>> = {
  bare: "bare Hono Worker forwarding to the same upstream (the baseline)",
  gateway: "tollgate, wrangler.toml env us with the local bindings",
  peer: "hono-rate-limiter 0.5 + @hono-rate-limiter/cloudflare DurableObjectStore",
};
