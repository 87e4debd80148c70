// Names a profiled frame of the bundle by its source: the dry run's source map (index.js.map beside
// the entry) read with Node's own SourceMap, so a frame reads src/gateway/app.ts:42 rather than a
// column of index.js. Without the map, frames keep the bundle's positions.
import { readFile } from "node:fs/promises";
import { SourceMap, type SourceMapPayload } from "node:module";
import { basename, dirname, relative, resolve } from "node:path";
import type { Origin } from "./cpu-profile.ts";

/**
 * The origin of frames in the bundle whose entry is `entry`, file names relative to `root`; undefined
 * when the bundle has no source map.
 */
export async function bundleOrigin(entry: string, root: string): Promise<Origin | undefined> {
  let payload: SourceMapPayload;
  try {
    payload = JSON.parse(await readFile(`${entry}.map`, "utf8")) as SourceMapPayload;
  } catch {
    return undefined;
  }
  const map = new SourceMap(payload);
  const entryName = basename(entry);
  const files = new Map<string, string>();
  const nameOf = (source: string) => {
    let name = files.get(source);
    if (name === undefined) files.set(source, (name = relative(root, resolve(dirname(entry), source))));
    return name;
  };
  return (frame) => {
    // workerd names the entry module by its file name (or a path ending in it).
    if (basename(frame.url) !== entryName) return undefined;
    const found = map.findEntry(frame.lineNumber, frame.columnNumber);
    if (!("originalSource" in found) || !found.originalSource) return undefined;
    return { file: nameOf(found.originalSource), line: found.originalLine + 1 };
  };
}
