/**
 * A 64 KiB request body sent in 1 KiB chunks that records whether it was read to its end: the
 * emulators read a body whole before any answer, even a refusal, so an upload is never cut off.
 */
export function trackedUpload(): { body: ReadableStream<Uint8Array>; finished: () => boolean } {
  let finished = false;
  let chunks = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (chunks++ < 64) return controller.enqueue(new Uint8Array(1024).fill(0x20));
      finished = true;
      controller.close();
    },
  });
  return { body, finished: () => finished };
}
