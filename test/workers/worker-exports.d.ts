// Types `exports` from "cloudflare:workers" in the Workers-runtime tests: the gateway Worker's main
// module and its Durable Objects. Declared here, not beside src/env.ts, because the Worker's own
// modules never use `exports`, and a type import of src/index.ts from src/ would close a circle
// through every module it reaches.
declare global {
  namespace Cloudflare {
    interface GlobalProps {
      mainModule: typeof import("../../src/index.ts");
      durableNamespaces: "CounterObject" | "OverridesStore" | "MetricsStore" | "SlotsObject";
    }
  }
}

export {};
