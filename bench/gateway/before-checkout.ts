// The gateway at another commit (`--before REV`): a detached git worktree of it in the bench's
// scratch directory, sharing this checkout's node_modules, removed when the bench ends. Its
// before-and-after figures then come from one command, the two builds alternating round by round
// on the same machine, instead of from two runs minutes apart on a machine whose speed moves.
import { execFile } from "node:child_process";
import { symlink } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { ROOT } from "./targets.ts";

const run = promisify(execFile);

export interface Checkout {
  /** The revision as given, and the commit it names. */
  readonly rev: string;
  readonly commit: string;
  readonly dir: string;
  remove(): Promise<void>;
}

/** @throws Error saying so when `rev` names no commit of this repository */
export async function checkoutAt(rev: string, dir: string): Promise<Checkout> {
  let commit: string;
  try {
    commit = (await run("git", ["rev-parse", "--verify", "--quiet", `${rev}^{commit}`], { cwd: ROOT })).stdout.trim();
  } catch {
    throw new Error(`--before: "${rev}" names no commit of ${ROOT}`);
  }
  await run("git", ["worktree", "add", "--detach", "--quiet", dir, commit], { cwd: ROOT });
  // Its dependencies are this checkout's: a commit whose package.json differs is built against
  // these, as `npm ci` there would not (said in the usage).
  await symlink(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
  return {
    rev,
    commit,
    dir,
    remove: async () => {
      await run("git", ["worktree", "remove", "--force", dir], { cwd: ROOT });
    },
  };
}
