import { Hono } from "hono";
import { detail, refusal } from "../../../shared/answer.ts";
import { readJsonBody } from "../../../shared/request-body.ts";
import { validate } from "../../../shared/validate.ts";
import type { AgentServerEnv } from "../../env.ts";
import { ThreadIdParam } from "../../ids.ts";
import { stepDelayMs } from "../../settings.ts";
import { protocolOf, stateOf } from "../../state-access.ts";

/**
 * Protocol v2 (the 2026 description's "Streaming" tag), mounted under /threads: commands, the SSE
 * event stream, and the WebSocket on the stream's path, which the state object accepts itself
 * (protocols/v2/sockets.ts) so the run engine's events reach it directly. docs/agent-server.md,
 * "Protocol v2".
 */
export const protocolRoutes = new Hono<AgentServerEnv>()
  .post("/:thread_id/commands", validate("param", ThreadIdParam), async (c) => {
    // Any body that is not JSON is a malformed envelope: 400 with a ProtocolError, as documented.
    const body = await readJsonBody(c, { anyContentType: true });
    if (!body.ok) return c.json({ type: "error", id: null, error: "invalid_argument", message: "The body must be a JSON command {id, method, params}." }, 400);
    using protocol = protocolOf(c.env);
    const { status, answer } = await protocol.command(c.req.valid("param").thread_id, body.value, stepDelayMs(c.env));
    return c.json(answer, status);
  })
  .post("/:thread_id/stream/events", validate("param", ThreadIdParam), async (c) => {
    const body = await readJsonBody(c, { anyContentType: true });
    if (!body.ok) return detail(c, 400, "The body must be a JSON object {channels, namespaces?, depth?, since?}.");
    using protocol = protocolOf(c.env);
    const opened = await protocol.events(c.req.valid("param").thread_id, body.value);
    return opened.ok ? opened.value : refusal(c, opened);
  })
  // A thread id that is no UUID is refused here, before any 101, as the REST routes refuse it: a
  // socket is never accepted only to be closed (docs/agent-server.md, "Protocol v2").
  .get("/:thread_id/stream/events", validate("param", ThreadIdParam), (c) => stateOf(c.env).fetch(c.req.raw));
