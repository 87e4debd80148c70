import { createWorker } from "./worker.ts";

// The gateway's own classes only: the emulators are Workers of their own (emulators/), bound as
// services in local runs, and none of their code is in this bundle (test/unit/build/bundle.test.ts).
export { CounterObject } from "./durable-objects/counter-object.ts";
export { OverridesStore } from "./durable-objects/overrides-store.ts";
export { MetricsStore } from "./durable-objects/metrics-store.ts";
export { SlotsObject } from "./durable-objects/slots-object.ts";

export default createWorker();
