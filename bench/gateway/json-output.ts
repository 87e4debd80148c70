// `--json` promises stdout holds the JSON report and nothing else, but what the run loads writes
// there on its own: wrangler's logger prints "Using secrets defined in .dev.vars" with console.log
// as it reads the gateway's config. While the run lasts, stdout's writes go to stderr with the
// progress; the report is printed once it is restored.

/** The one method of a stream this needs (process.stdout, process.stderr). */
export interface Writable {
  write: (...args: never[]) => boolean;
}

/**
 * Runs `run` with every write to `stdout` sent to `stderr` instead, and puts `stdout` back however
 * `run` ends. console.log writes through process.stdout.write, so it is caught too.
 */
export async function withStdoutOnStderr<T>(run: () => Promise<T>, stdout: Writable = process.stdout, stderr: Writable = process.stderr): Promise<T> {
  const write = stdout.write;
  stdout.write = ((...args: never[]) => stderr.write(...args)) as Writable["write"];
  try {
    return await run();
  } finally {
    stdout.write = write;
  }
}
