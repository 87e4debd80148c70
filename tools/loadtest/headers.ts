// Pure: the gateway's rate-limit headers (draft-ietf-httpapi-ratelimit-headers-11, docs/rules.md, "Headers and the 429 response").

/** `RateLimit-Policy: "<name>";q=<count>;w=<interval s>` */
export function parsePolicy(value: string | undefined): { name: string; quota: number; window: number } | undefined {
  const m = value && /^"([^"]*)";q=(\d+);w=(\d+)$/.exec(value.trim());
  return m ? { name: m[1]!, quota: Number(m[2]), window: Number(m[3]) } : undefined;
}

/** `RateLimit: "<name>";r=<remaining>;t=<seconds until a unit frees>` */
export function parseRateLimit(value: string | undefined): { name: string; remaining: number; resetS: number } | undefined {
  const m = value && /^"([^"]*)";r=(\d+);t=(\d+)$/.exec(value.trim());
  return m ? { name: m[1]!, remaining: Number(m[2]), resetS: Number(m[3]) } : undefined;
}
