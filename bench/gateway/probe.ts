// Before anything is measured, checks that each target answers every route the shapes use, that
// the gateway counts each on the row the bench names (its own RateLimit-Policy header says which),
// and that a client-sent CF-Connecting-IP reaches the upstream unchanged. Without that last one,
// shape 5 would count every request on one IP. (Miniflare's entry Worker sets CF-Connecting-IP
// from the socket only when the request has none; wrangler dev's proxy keeps it too.)
import { usLimit } from "./rule-limits.ts";
import { ROUTES } from "./routes.ts";
import type { RunningTarget } from "./serving.ts";
import { isTollgate } from "./target-names.ts";

/** An address outside the 10.0.0.0/8 the shapes draw from (TEST-NET-1). */
const PROBE_IP = "192.0.2.77";

export class ProbeFailed extends Error {
  override name = "ProbeFailed";
}

export async function probe(target: RunningTarget): Promise<void> {
  for (const [name, route] of Object.entries(ROUTES)) {
    const headers: Record<string, string> = { "cf-connecting-ip": PROBE_IP };
    if (route.row !== ROUTES.newIps.row) headers["x-api-key"] = `bench-probe-${name}`;
    const response = await fetch(new URL(route.path, target.url), { method: route.method, headers });
    const body = await response.text();
    const where = `${target.name}: ${route.method} ${route.path}`;
    if (!response.ok) throw new ProbeFailed(`${where} answered ${response.status}: ${body.slice(0, 300)}`);

    if (isTollgate(target.name)) {
      const policy = response.headers.get("ratelimit-policy") ?? "";
      const expected = usLimit(route.row).name;
      if (!policy.startsWith(`"${expected}"`))
        throw new ProbeFailed(
          `${where} was counted as ${policy || "(no RateLimit-Policy)"}, not row ${route.row} "${expected}": the bench's routes no longer meet the rows it names (bench/gateway/routes.ts)`,
        );
    }
    // Bodies streamed back (POST) are empty here; the GET routes describe the request as JSON.
    if (route.method === "GET") {
      const seen = (JSON.parse(body) as { headers?: Record<string, string> }).headers?.["cf-connecting-ip"];
      if (seen !== PROBE_IP)
        throw new ProbeFailed(`${where}: sent CF-Connecting-IP ${PROBE_IP}, the upstream saw ${seen ?? "none"}; shape 5 cannot vary the client IP this way`);
    }
  }
}
