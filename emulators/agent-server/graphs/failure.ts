import { FAILURE_MARKER } from "./messages.ts";

/** A node failed on purpose (the failure marker), as a model or tool error would fail it. */
export class EmulatedNodeError extends Error {
  override name = "EmulatedNodeError";
}

/**
 * Fails the node when the newest user message carries the failure marker; every graph's last
 * node calls it, so a client can make any run fail the same way.
 */
export function failOnMarker(node: string, text: string | undefined): void {
  if (text?.includes(FAILURE_MARKER)) {
    throw new EmulatedNodeError(`Node "${node}" failed on purpose: the last user message contains the failure marker ${FAILURE_MARKER}.`);
  }
}
