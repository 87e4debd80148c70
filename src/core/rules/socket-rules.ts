/*
 * Where an upstream opens WebSockets and how their frames count (a rule file's `sockets`;
 * docs/rules.md, "WebSockets"). A socket carries calls, so the gateway relays one only where it
 * knows how to count them: an upgrade no socket rule names is refused before any counter.
 */
import { pathMatches } from "./match.ts";
import { pathSegments } from "./request-facts.ts";
import type { PathPattern, SocketProtocol, SocketRuleData } from "./schema.ts";

/** A socket rule as the gateway uses it. */
export interface SocketRule {
  readonly path: PathPattern;
  readonly protocol: SocketProtocol;
  readonly commandsAs?: { readonly method: string; readonly path: string };
}

/** The request a socket's frame is counted as. */
export interface FrameTwin {
  readonly method: string;
  readonly path: string;
}

/** Problems with a file's socket rules, each naming the entry and field (load.ts reports them with the rest). */
export function socketRuleProblems(sockets: readonly SocketRuleData[], patternProblem: (kind: string, pattern: string) => string | undefined): string[] {
  const problems: string[] = [];
  sockets.forEach((socket, index) => {
    const where = `sockets[${index}]`;
    const why = patternProblem(socket.path.kind, socket.path.pattern);
    if (why) problems.push(`${where}, field path.pattern: ${why}`);
    if (socket.path.kind !== "exact" && socket.path.kind !== "template") {
      problems.push(`${where}, field path.kind: a socket opens on one route: "exact" or "template", not "${socket.path.kind}"`);
    }
    if (socket.protocol === "agent-protocol-v2" && !socket.commandsAs) {
      problems.push(`${where}, field commandsAs: agent-protocol-v2 commands must name the HTTP request they count as`);
    }
    if (socket.protocol === "frames" && socket.commandsAs) {
      problems.push(`${where}, field commandsAs: a "frames" socket counts each frame as its upgrade; commandsAs is for agent-protocol-v2`);
    }
    if (socket.commandsAs) {
      const twin = patternProblem("exact", socket.commandsAs.path.replaceAll("{uuid}", "x"));
      if (twin) problems.push(`${where}, field commandsAs.path: ${twin}`);
      const wanted = placeholders(socket.commandsAs.path);
      if (wanted > placeholders(socket.path.pattern)) {
        problems.push(`${where}, field commandsAs.path: it has ${wanted} {uuid} segment(s); the socket's path has ${placeholders(socket.path.pattern)}`);
      }
    }
  });
  return problems;
}

/**
 * The socket rule for a WebSocket upgrade on `path` (canonical), or undefined when the upstream
 * opens no socket there that the gateway knows how to count.
 */
export function socketRuleFor(sockets: readonly SocketRule[], path: string): SocketRule | undefined {
  return sockets.find((socket) => pathMatches(socket.path, path));
}

/**
 * The request a frame of a socket opened on `path` under `socket` is counted as: its commands'
 * HTTP twin with the socket path's `{uuid}` segments filled in, or (`frames`) the upgrade itself.
 *
 * @example
 * frameTwin({ path: { kind: "template", pattern: "/threads/{uuid}/stream/events" }, protocol: "agent-protocol-v2",
 *   commandsAs: { method: "POST", path: "/threads/{uuid}/commands" } }, "/threads/5e1c.../stream/events")
 * // { method: "POST", path: "/threads/5e1c.../commands" }
 */
export function frameTwin(socket: SocketRule, path: string): FrameTwin {
  if (!socket.commandsAs) return { method: "GET", path };
  const have = pathSegments(path);
  const uuids = pathSegments(socket.path.pattern).flatMap((segment, i) => (segment === "{uuid}" ? [have[i]!] : []));
  let next = 0;
  const twin = pathSegments(socket.commandsAs.path).map((segment) => (segment === "{uuid}" ? uuids[next++]! : segment));
  return { method: socket.commandsAs.method, path: `/${twin.join("/")}` };
}

const placeholders = (pattern: string) => pathSegments(pattern).filter((s) => s === "{uuid}").length;
