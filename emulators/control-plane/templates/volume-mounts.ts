import { z } from "zod";
import { checkedString, uniqueBy } from "../../shared/pydantic/value-error.ts";

/** A Kubernetes volume name: an RFC 1123 label (what a pod spec requires of `volumes[].name`). */
const DNS_LABEL = /^[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?$/;

/** Why `name` is not a valid volume name, or nothing. */
export function checkVolumeName(name: string): string | undefined {
  if (DNS_LABEL.test(name)) return undefined;
  return `'${name}' is not a valid volume name: at most 63 lowercase letters, digits and -, starting and ending with a letter or digit`;
}

/** Why `path` is not a valid mount path (absolute, no `..` segment, as Kubernetes requires), or nothing. */
export function checkMountPath(path: string): string | undefined {
  if (!path.startsWith("/")) return `'${path}' is not absolute: a mount path starts with /`;
  if (/[\x00-\x1f\x7f]/.test(path)) return `'${path}' contains control characters`;
  if (path.split("/").includes("..")) return `'${path}' contains a '..' segment`;
  return undefined;
}

/** One `volume_mounts` item. */
export const VolumeMount = z.strictObject({
  volume_name: checkedString(checkVolumeName),
  mount_path: checkedString(checkMountPath, z.string().max(4096)),
});
export type VolumeMount = z.output<typeof VolumeMount>;

/** `volume_mounts`: defaults to none; two mounts cannot share a path (one would hide the other). */
export const VolumeMounts = z
  .array(VolumeMount)
  .max(64)
  .superRefine(uniqueBy((mount) => mount.mount_path, ["mount_path"], "mount path"))
  .default(() => []);
