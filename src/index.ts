import { createWorker } from "./worker.ts";

// The gateway's own classes only: the emulators are Workers of their own (emulators/), bound as
// services in local runs, and none of their code is in this bundle (test/unit/bundle.test.ts).
export { RateLimiter } from "./durable-objects/rate-limiter.ts";
export { ConfigStore } from "./durable-objects/config-store.ts";
export { MetricsStore } from "./durable-objects/metrics-store.ts";

export default createWorker();
