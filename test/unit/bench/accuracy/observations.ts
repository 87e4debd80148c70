import type { Observation } from "../../../../bench/accuracy/analysis.ts";

/** A request of isolate 0 sent at `sentAt` and admitted (200) at `receivedAt`, 5 ms later unless said. */
export const admitted = (sentAt: number, receivedAt = sentAt + 5, extra: Partial<Observation> = {}): Observation => ({
  isolate: 0,
  sentAt,
  receivedAt,
  status: 200,
  ...extra,
});

/** A request of isolate 0 sent at `sentAt` and refused (429, retry after 1 s) at `receivedAt`, 5 ms later unless said. */
export const refused = (sentAt: number, receivedAt = sentAt + 5, extra: Partial<Observation> = {}): Observation => ({
  isolate: 0,
  sentAt,
  receivedAt,
  status: 429,
  retryAfterMs: 1000,
  ...extra,
});
