/**
 * An SSE response that ends right after its first `values` frame, as a connection that drops
 * mid-run: a client reading it sees the stream fail there and reconnects. For the protocol v2
 * resume tests, in the Workers pool (through the gateway's fetch) and in Node (through npm start).
 */
export function cutAfterFirstValues(response: Response): Response {
  let text = "";
  let cut = false;
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  const body = response.body!.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (cut) return;
        text += decoder.decode(chunk, { stream: true });
        const at = text.indexOf("event: values\n");
        const end = at < 0 ? -1 : text.indexOf("\n\n", at);
        if (end < 0) return;
        cut = true;
        controller.enqueue(encoder.encode(text.slice(0, end + 2)));
        controller.error(new Error("connection dropped by the test"));
      },
    }),
  );
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}
