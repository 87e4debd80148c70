import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root directory, wherever the tests run from. */
export const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** A path under the repository's root (`..` reaches the checkout's neighbours, such as ../shared). */
export const inRepo = (...parts: string[]): string => join(REPO_ROOT, ...parts);
