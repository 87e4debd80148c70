import { createAgentServer } from "../../../emulators/agent-server/app.ts";
import { createControlPlane } from "../../../emulators/control-plane/app.ts";

/** One route an emulator serves, as its Hono app registered it. */
export interface EmulatorRoute {
  readonly emulator: "agent-server" | "control-plane";
  readonly method: string;
  /** Hono's pattern, e.g. `/threads/:thread_id/runs/:run_id`. */
  readonly path: string;
  /** The path parameters, in order. */
  readonly params: readonly string[];
}

/**
 * Every route of both emulator apps, read from the apps themselves (Hono's `routes`), so a route
 * added to either emulator is covered without touching the tests. Middleware (`ALL`) is not a
 * route, and a route with several handlers (validators, then the handler) is listed once.
 */
export function emulatorRoutes(): EmulatorRoute[] {
  const apps = [
    ["agent-server", createAgentServer()],
    ["control-plane", createControlPlane()],
  ] as const;
  const seen = new Map<string, EmulatorRoute>();
  for (const [emulator, app] of apps) {
    for (const { method, path } of app.routes) {
      if (method === "ALL") continue;
      const params = [...path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
      seen.set(`${method} ${path}`, { emulator, method, path, params });
    }
  }
  return [...seen.values()];
}

/** The route's path with each parameter replaced by the (already encoded) text given for it. */
export function fillPath(route: EmulatorRoute, values: Readonly<Record<string, string>>): string {
  return route.path.replace(/:(\w+)/g, (_, name: string) => values[name] ?? "");
}
