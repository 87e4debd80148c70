/**
 * The secrets of /v2/auth: digests for what is only ever compared (a client secret, an
 * authorization code), random values for what the emulator issues. Digests are made in the Worker
 * before the store is called, so a raw secret never crosses into the Durable Object.
 */

/** Lower-case hex SHA-256 of `text`. */
export async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** `bytes` random bytes, base64url without padding (safe in a query string unescaped). */
export function randomSecret(bytes: number): string {
  const raw = crypto.getRandomValues(new Uint8Array(bytes));
  return btoa(String.fromCharCode(...raw))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

/** An access token of the emulator's stand-in provider: opaque, 256 random bits, good nowhere else. */
export const mintAccessToken = (): string => `emu_oauth_${randomSecret(32)}`;
