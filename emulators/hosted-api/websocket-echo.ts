/**
 * The echo's WebSocket side: any upgrade is accepted, and every frame comes back as it was sent
 * (text as text, binary as binary), so a test through the gateway can see frames pass both ways
 * untouched. Closing passes both ways too:
 * - the client closes with a code and reason: the echo closes with the same ones;
 * - the client sends the text `close <code> <reason>`: the echo closes first, with those, so a
 *   test can see a close that starts on the upstream's side reach the client.
 */
export function acceptEchoSocket(headers: Headers): Response {
  const { 0: client, 1: server } = new WebSocketPair();
  // Binary frames as bytes (the runtime's standard default is Blob), sent back in order.
  server.binaryType = "arraybuffer";
  server.accept();
  server.addEventListener("message", (event) => {
    const asked = typeof event.data === "string" ? /^close (\d{4}) ?(.*)$/s.exec(event.data) : null;
    if (asked) server.close(Number(asked[1]), asked[2]);
    else server.send(event.data);
  });
  server.addEventListener("close", (event) => {
    // 1005 ("no status") and 1006 ("abnormal") are never sent on the wire: close without a code.
    if (event.code === 1005 || event.code === 1006) server.close();
    else server.close(event.code, event.reason);
  });
  return new Response(null, { status: 101, webSocket: client, headers });
}
