/** A response carrying `body` as JSON with `status`, as an upstream would send it (`type` its content type). */
export const jsonResponse = (status: number, body: unknown, type = "application/json") =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": type } });
