import { z } from "zod";
import { checkedString } from "../../shared/pydantic/value-error.ts";

/**
 * Container image references, as the distribution reference grammar (the one `docker pull`
 * accepts) defines them: `[domain[:port]/]path[:tag][@digest]`. Pure: imports only zod.
 */

const ALNUM = "[a-z0-9]+";
const SEPARATOR = "(?:[._]|__|-+)";
const PATH_COMPONENT = `${ALNUM}(?:${SEPARATOR}${ALNUM})*`;
const DOMAIN_COMPONENT = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
const DOMAIN = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[0-9A-Fa-f:]+\\])(?::\\d+)?`;
const TAG = "\\w[\\w.-]{0,127}";
const DIGEST = "[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}";
const REFERENCE = new RegExp(`^((?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*)(?::${TAG})?(?:@${DIGEST})?$`);
/** The reference grammar's cap on the repository name (domain and path, without tag or digest). */
const NAME_MAX_LENGTH = 255;

/** The registry of an image without a domain (`python:3.12`), as Docker resolves it. */
export const DEFAULT_REGISTRY = "docker.io";

/** Why `image` is not a valid image reference, or nothing. */
export function checkImageReference(image: string): string | undefined {
  if (image.includes("://")) return `'${image}' is a URL: give an image reference without a scheme (e.g. ghcr.io/org/app:1.0)`;
  const match = REFERENCE.exec(image);
  if (!match) {
    return `'${image}' is not a valid image reference: [registry/]repository[:tag][@digest] with a lowercase repository, e.g. python:3.12-slim or ghcr.io/org/app:1.0`;
  }
  if (match[1]!.length > NAME_MAX_LENGTH) return `the repository name of '${image}' is longer than ${NAME_MAX_LENGTH} characters`;
  return undefined;
}

/**
 * The registry an image is pulled from: its first path component when that looks like a host
 * (has a `.` or `:`, is `localhost`, or has capitals, which a repository path may not), else
 * Docker Hub. The same rule `docker pull` applies.
 *
 * @example
 * registryOf("python:3.12") // "docker.io"
 * registryOf("ghcr.io/org/app:1.0") // "ghcr.io"
 */
export function registryOf(image: string): string {
  const slash = image.indexOf("/");
  if (slash === -1) return DEFAULT_REGISTRY;
  const first = image.slice(0, slash);
  const isHost = /[.:]/.test(first) || first === "localhost" || first !== first.toLowerCase();
  if (!isHost || first === "index.docker.io") return DEFAULT_REGISTRY;
  return first;
}

/** `image`: required, a valid image reference. */
export const ImageReference = checkedString(checkImageReference, z.string().max(512));
