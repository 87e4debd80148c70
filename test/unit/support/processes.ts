import { execFile } from "node:child_process";
import { promisify } from "node:util";

/** Runs a command to its end: its stdout and stderr, or a rejection carrying them and its exit `code`. */
export const execFileAsync = promisify(execFile);
