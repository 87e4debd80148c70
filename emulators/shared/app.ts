import { Hono, type Env } from "hono";
import { HTTPException } from "hono/http-exception";
import { readBodyFirst } from "./request-body.ts";
import { SettingError } from "../../src/http/setting-error.ts";

/**
 * A Hono app that answers as a FastAPI service does around its routes: every body read before
 * anything answers (see `readBodyFirst`), `404 {"detail": "Not Found"}` for a path it does not
 * serve, `HTTPException`s as they are, a {@link SettingError} as a 500 naming the setting, and any
 * other failure as `500 {"detail": "Internal Server Error"}`, logged as `<service>_error`: never
 * a stack trace. Routes are added by the caller.
 *
 * @example
 * const app = createEmulatorApp<AgentServerEnv>("agent_server"); // the service's Hono environment
 * app.route("/threads", threadRoutes);
 */
export function createEmulatorApp<E extends Env>(service: string): Hono<E> {
  const app = new Hono<E>();
  app.use("*", readBodyFirst());
  app.notFound((c) => c.json({ detail: "Not Found" }, 404));
  app.onError((error, c) => {
    if (error instanceof HTTPException) return error.getResponse();
    if (error instanceof SettingError) return c.json({ detail: error.message }, 500);
    console.log(JSON.stringify({ event: `${service}_error`, error: String(error), path: c.req.path }));
    return c.json({ detail: "Internal Server Error" }, 500);
  });
  return app;
}
