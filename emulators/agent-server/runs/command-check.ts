import type { ValidationError } from "../../../src/http/fastapi-errors.ts";
import type { Graph } from "../graphs/graph.ts";
import { inputMessages } from "../graphs/messages.ts";
import type { JsonObject, JsonValue } from "../../shared/pydantic/json.ts";
import { invalid, ok, refuse, type Result } from "../../shared/result.ts";
import type { Thread } from "../threads/schema.ts";
import type { RunCommandBody } from "./schema.ts";

/** What a run keeps of its `command` (in its kwargs), checked against its graph and thread. */
export interface CheckedCommand {
  /** The update as an object (a list of `[key, value]` pairs read into one). */
  readonly update?: JsonObject;
  readonly resume?: JsonValue;
  /** The node to run next instead of the one the thread's checkpoint names. */
  readonly goto?: string;
}

/**
 * Checks what the graph must know before a run starts: breakpoints (`interrupt_before`,
 * `interrupt_after`) name nodes the graph has (422 otherwise: a typo would never stop the run),
 * and `command` is one the emulated graphs can follow:
 * - `resume` needs a thread that is `interrupted` (400 otherwise: there is nothing paused to hand
 *   the value to, and a run would silently drop it);
 * - `update` writes `messages` only, as a state update does (422 otherwise);
 * - `goto` names one node of the graph (its graphs run one node at a time); a Send (a node with
 *   its own input) is refused, the graphs keep one state;
 * - a command with none of them is 422, as LangGraph refuses an empty Command.
 */
export function checkRunGraphOptions(
  graph: Graph,
  thread: Thread | undefined,
  request: {
    readonly command?: RunCommandBody | undefined;
    readonly interruptBefore?: "*" | readonly string[] | undefined;
    readonly interruptAfter?: "*" | readonly string[] | undefined;
  },
): Result<CheckedCommand | undefined> {
  const names = graph.nodes.map((n) => n.name);
  const errors: ValidationError[] = [];
  for (const [field, nodes] of [
    ["interrupt_before", request.interruptBefore],
    ["interrupt_after", request.interruptAfter],
  ] as const) {
    if (nodes === undefined || nodes === "*") continue;
    nodes.forEach((node, index) => {
      if (!names.includes(node))
        errors.push(valueError(["body", field, index], node, `graph '${graph.graphId}' has no node '${node}'; its nodes are ${list(names)} (or "*" for all)`));
    });
  }
  const command = request.command;
  if (command === undefined) return errors.length ? invalid(errors) : ok(undefined);

  const checked: { update?: JsonObject; resume?: JsonValue; goto?: string } = {};
  if (command.update !== undefined) {
    const update = readUpdate(graph, command.update, errors);
    if (update) checked.update = update;
  }
  if (command.goto !== undefined) {
    const targets = Array.isArray(command.goto) ? command.goto : [command.goto];
    if (targets.some((t) => typeof t !== "string")) {
      errors.push(
        valueError(
          ["body", "command", "goto"],
          command.goto,
          "a Send (a node with its own input) is not supported by the agent-server emulator: its graphs keep one state; name the node and write its input with command.update",
        ),
      );
    } else if (targets.length !== 1) {
      errors.push(valueError(["body", "command", "goto"], command.goto, `the emulated graphs run one node at a time: name one of ${list(names)}`));
    } else if (!names.includes(targets[0] as string)) {
      errors.push(
        valueError(["body", "command", "goto"], command.goto, `graph '${graph.graphId}' has no node '${String(targets[0])}'; its nodes are ${list(names)}`),
      );
    } else checked.goto = targets[0] as string;
  }
  const resuming = command.resume !== undefined && command.resume !== null;
  if (resuming) checked.resume = command.resume as JsonValue;
  if (command.update === undefined && command.goto === undefined && !resuming) {
    errors.push(valueError(["body", "command"], command as JsonObject, "an empty command: give resume, update or goto"));
  }
  if (errors.length) return invalid(errors);
  if (resuming && thread?.status !== "interrupted") {
    return refuse(
      400,
      `Cannot resume: thread ${thread?.thread_id ?? "(new)"} is not interrupted (its status is ${thread?.status ?? "new"}), so no node is waiting for a resume value. Start a run with input instead, or resume once a run has paused (status "interrupted").`,
    );
  }
  return ok(checked);
}

/** `command.update` as an object with `messages` only (from a list of pairs too), or errors. */
function readUpdate(graph: Graph, update: JsonObject | JsonValue[], errors: ValidationError[]): JsonObject | undefined {
  let object: JsonObject;
  if (Array.isArray(update)) {
    const pairs = update.every((p) => Array.isArray(p) && p.length === 2 && typeof p[0] === "string");
    if (!pairs) {
      errors.push(valueError(["body", "command", "update"], update, "a list update is [[key, value], ...] pairs"));
      return undefined;
    }
    object = Object.fromEntries(update as [string, JsonValue][]);
  } else object = update;
  const unknown = Object.keys(object).filter((key) => key !== "messages");
  if (unknown.length > 0) {
    errors.push(valueError(["body", "command", "update", unknown[0]!], object[unknown[0]!], `the state of graph '${graph.graphId}' has only 'messages'`));
    return undefined;
  }
  try {
    inputMessages(object, () => "");
  } catch (error) {
    errors.push(valueError(["body", "command", "update", "messages"], object.messages, error instanceof Error ? error.message : String(error)));
    return undefined;
  }
  return object;
}

const list = (names: readonly string[]) => names.map((n) => `'${n}'`).join(", ");

function valueError(loc: ReadonlyArray<string | number>, input: unknown, reason: string): ValidationError {
  return { type: "value_error", loc, msg: `Value error, ${reason}`, ...(input === undefined ? {} : { input }) };
}
