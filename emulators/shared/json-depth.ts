// The emulators read JSON nesting as the gateway reads a socket's frames: one bound, one scanner.
export { MAX_JSON_DEPTH, nestsDeeperThan } from "../../src/core/rules/json-depth.ts";
