// What the `npm start` test files share: one `npm start` (or `npm run start:eu`) per file, started
// as a user runs it and stopped with its whole process tree, and clients that reach it from an
// address of their own. Linux routes all of 127/8 to the loopback interface, and the local edge
// stamps CF-Connecting-IP from the client socket's address, so a client bound to 127.0.0.N is a
// caller of its own to the gateway's IP rules: keyless tests do not spend each other's counters.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import WebSocket from "ws";
import { REPO_ROOT } from "../../support/paths.ts";

export type Region = "us" | "eu";

/** A running `npm start`: where its edge listens, its private port, and what it printed until ready. */
export interface NpmStart {
  readonly region: Region;
  /** host:port of the local edge */
  readonly edge: string;
  readonly privatePort: number;
  readonly startup: string;
  stop(): Promise<void>;
}

/**
 * Starts `npm start` (US) or `npm run start:eu` on the given ports with a fresh state directory and
 * resolves once it says it is ready. Its own process group, so `stop` ends the whole tree (npm,
 * the edge, wrangler, workerd) and waits for it before removing the state directory. Not ready
 * within `readyWithinMs`, it is stopped and the start rejects with all it printed (a hook timeout
 * would say nothing, and leave the tree running).
 */
export async function startNpmStart(region: Region, edgePort: number, privatePort: number, readyWithinMs = 150_000): Promise<NpmStart> {
  try {
    return await startOnce(region, edgePort, privatePort, readyWithinMs);
  } catch (error) {
    // Once more when wrangler lost a race for one of the ports it picks itself (its Workers'
    // sockets) to another wrangler dev starting on this machine at the same moment.
    if (!String(error).includes("Address already in use")) throw error;
    return await startOnce(region, edgePort, privatePort, readyWithinMs);
  }
}

async function startOnce(region: Region, edgePort: number, privatePort: number, readyWithinMs: number): Promise<NpmStart> {
  const state = mkdtempSync(join(tmpdir(), `tollgate-npm-start-${region}-`));
  const script = region === "us" ? ["start"] : ["run", "start:eu"];
  const child = spawn("npm", [...script, "--", "--port", String(edgePort), "--private-port", String(privatePort), "--persist-to", state], {
    cwd: REPO_ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const edge = `127.0.0.1:${edgePort}`;
  let output = "";
  const stop = async () => {
    if (child.pid !== undefined) {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = once(child, "exit");
        process.kill(-child.pid, "SIGTERM");
        await exited;
      }
      // npm is gone; the rest of its group finishes shutting down before the state goes.
      while (groupAlive(child.pid)) await sleep(100);
    }
    rmSync(state, { recursive: true, force: true });
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      const read = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes(`tollgate is ready on http://${edge}`)) resolve();
      };
      child.stdout!.on("data", read);
      child.stderr!.on("data", read);
      child.once("exit", (code) => reject(new Error(`npm start exited (${code}) before it was ready:\n${output}`)));
      timer = setTimeout(() => reject(new Error(`npm start (${region}) was not ready within ${readyWithinMs} ms; it printed:\n${output}`)), readyWithinMs);
    });
  } catch (error) {
    await stop();
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return { region, edge, privatePort, startup: output, stop };
}

/** Whether any process of the group is still running (signal 0 only asks). */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Where a client connects from: a loopback address of its own (its own IP counters), or a key. */
export interface From {
  readonly localAddress?: string;
  readonly headers?: Record<string, string>;
}

/** A client socket through the edge, its frames queued and parsed; rejects with the response of a refused upgrade. */
export async function connect(edge: string, path: string, from: From = {}) {
  const socket = new WebSocket(`ws://${edge}${path}`, { headers: from.headers ?? {}, ...(from.localAddress && { localAddress: from.localAddress }) });
  const frames: string[] = [];
  const waiting: Array<() => void> = [];
  socket.on("message", (data: Buffer) => (frames.push(data.toString()), waiting.shift()?.()));
  const closed = new Promise<{ code: number; reason: string; at: number }>((resolve) =>
    socket.on("close", (code, reason) => resolve({ code, reason: reason.toString(), at: Date.now() })),
  );
  let res!: http.IncomingMessage;
  socket.once("upgrade", (upgraded) => (res = upgraded));
  // Every listener is in place before anything is awaited: `open` follows `upgrade` at once.
  await new Promise<void>((resolve, reject) => {
    socket.once("open", resolve);
    socket.once("unexpected-response", (_req, refused) => reject(Object.assign(new Error(`upgrade refused: ${refused.statusCode}`), { res: refused })));
    socket.once("error", reject);
  });
  /** The next frame from the server, parsed. */
  const next = async (): Promise<any> => {
    while (frames.length === 0) await new Promise<void>((resolve) => waiting.push(resolve));
    return JSON.parse(frames.shift()!);
  };
  /** Frames until `count` answers (success or error) have come, events skipped. */
  const answers = async (count: number): Promise<any[]> => {
    const got: any[] = [];
    while (got.length < count) {
      const frame = await next();
      if (frame.type !== "event") got.push(frame);
    }
    return got;
  };
  const send = (id: number, method: string, params: unknown = {}) => socket.send(JSON.stringify({ id, method, params }));
  return { socket, res, next, answers, send, closed };
}

export type Connected = Awaited<ReturnType<typeof connect>>;

/** The response to an upgrade the gateway refused, with its body; undefined if it was not refused. */
export async function refusedUpgrade(edge: string, path: string, from: From = {}) {
  const error = await connect(edge, path, from).then(
    (client) => (client.socket.close(), undefined),
    (e: Error & { res?: http.IncomingMessage }) => e,
  );
  const res = error?.res;
  if (!res) return undefined;
  let body = "";
  for await (const chunk of res) body += chunk;
  return { status: res.statusCode!, headers: res.headers, body };
}

/** An HTTP request through the edge from `from`, its body read (JSON when it parses). */
export async function request(edge: string, method: string, path: string, from: From = {}, body?: unknown) {
  const text = body === undefined ? undefined : JSON.stringify(body);
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: any }>((resolve, reject) => {
    const req = http.request(
      `http://${edge}${path}`,
      {
        method,
        headers: { ...(text !== undefined && { "content-type": "application/json" }), ...from.headers },
        ...(from.localAddress && { localAddress: from.localAddress }),
      },
      (res) => {
        let raw = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (raw += chunk));
        res.on("end", () => {
          let parsed: unknown = raw;
          try {
            parsed = JSON.parse(raw);
          } catch {
            // Not JSON: kept as text.
          }
          resolve({ status: res.statusCode!, headers: res.headers, body: parsed });
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(text);
  });
}

/** `r` of one member of a RateLimit header (`"<name>";r=<n>;t=<s>`), or undefined. */
export function remaining(header: string | string[] | undefined, name: string): number | undefined {
  const match = new RegExp(`"${name}";r=(\\d+)`).exec(String(header ?? ""));
  return match ? Number(match[1]) : undefined;
}

/** A fresh API key: each test counts on a key of its own. */
export const freshKey = () => `npm-start-${Math.random().toString(36).slice(2)}`;

/** A user message as a run's input. */
export const say = (content: string) => ({ messages: [{ role: "user", content }] });

/** The contents of a state's messages. */
export const contents = (values: any): string[] => (values?.messages ?? []).map((m: { content: string }) => m.content);
