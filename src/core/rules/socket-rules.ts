/*
 * Where an upstream opens WebSockets and how their frames count (a rule file's `sockets`;
 * docs/rules.md, "WebSockets"). A socket carries calls, so the gateway relays one only where it
 * knows how to count them: an upgrade no socket rule names is refused before any counter.
 */
import { pathMatchesUnder } from "./match.ts";
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

/** A socket rule as a request met it: the rule, and the table root its path matched under. */
export interface SocketRoute {
  readonly rule: SocketRule;
  /** "/" or the alias root the socket's path was found under (as rows match: match.ts). */
  readonly root: string;
}

/**
 * The socket rule for a WebSocket upgrade on `path` (canonical), under the table's roots as its
 * rows match, or undefined when the upstream opens no socket there that the gateway knows how to
 * count.
 */
export function socketRuleFor(table: { readonly sockets: readonly SocketRule[]; readonly roots: readonly string[] }, path: string): SocketRoute | undefined {
  for (const rule of table.sockets) {
    const root = pathMatchesUnder(rule.path, path, table.roots);
    if (root !== undefined) return { rule, root };
  }
  return undefined;
}

/**
 * The request a frame of a socket opened on `path` is counted as: its commands' HTTP twin with
 * the socket path's `{uuid}` segments filled in, under the root the socket was found under, or
 * (`frames`) the upgrade itself.
 *
 * @example
 * frameTwin({ root: "/", rule: { path: { kind: "template", pattern: "/threads/{uuid}/stream/events" }, protocol: "agent-protocol-v2",
 *   commandsAs: { method: "POST", path: "/threads/{uuid}/commands" } } }, "/threads/5e1c.../stream/events")
 * // { method: "POST", path: "/threads/5e1c.../commands" }
 */
export function frameTwin({ rule, root }: SocketRoute, path: string): FrameTwin {
  if (!rule.commandsAs) return { method: "GET", path };
  const have = pathSegments(root === "/" ? path : path.slice(root.length));
  const uuids = pathSegments(rule.path.pattern).flatMap((segment, i) => (segment === "{uuid}" ? [have[i]!] : []));
  let next = 0;
  const twin = pathSegments(rule.commandsAs.path).map((segment) => (segment === "{uuid}" ? uuids[next++]! : segment));
  return { method: rule.commandsAs.method, path: `${root === "/" ? "" : root}/${twin.join("/")}` };
}

const placeholders = (pattern: string) => pathSegments(pattern).filter((s) => s === "{uuid}").length;
