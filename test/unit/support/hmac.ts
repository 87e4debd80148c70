import { createHmac } from "node:crypto";

/** HMAC-SHA256 of `text` under `secret`, in hex, by Node's crypto: the reference the gateway's digests are held to. */
export const hmacHex = (secret: string, text: string): string => createHmac("sha256", secret).update(text).digest("hex");
