import { createGateway } from "./gateway/app.ts";

export { RateLimiter } from "./durable-objects/rate-limiter.ts";
export { HostedApiEcho } from "./emulators/hosted-api-echo.ts";

export default createGateway();
