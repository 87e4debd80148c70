import { Annotation, StateGraph, type LangGraphRunnableConfig } from "@langchain/langgraph";
import { setTimeout as sleep } from "node:timers/promises";

const SlowState = Annotation.Root({
  steps: Annotation<number>({ reducer: (_, next) => next, default: () => 3 }),
  delay_ms: Annotation<number>({ reducer: (_, next) => next, default: () => 100 }),
  done: Annotation<number>({ reducer: (_, next) => next, default: () => 0 }),
});

/**
 * The graph `slow`: one node, `wait`, that takes `steps` steps of `delay_ms` each (input fields;
 * 3 of 100 ms by default), writing a custom event `{step}` after each, so a run lasts as long as a
 * test needs (a long `join` or `runs/wait`: 35 steps of 1 s) and its events come apart in time.
 * One node, not one per step, so no step count meets the recursion limit.
 */
export const graph = new StateGraph(SlowState)
  .addNode("wait", async (state, config: LangGraphRunnableConfig) => {
    for (let step = 1; step <= state.steps; step++) {
      await sleep(state.delay_ms, undefined, { signal: config.signal });
      config.writer?.({ step });
    }
    return { done: state.steps };
  })
  .addEdge("__start__", "wait")
  .compile();
