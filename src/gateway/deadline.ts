/** A call that did not answer within its deadline (withDeadline). */
export class DeadlineExceeded extends Error {
  override name = "DeadlineExceeded";
}

/**
 * `promise`, or a rejection once `ms` have passed: with `expired` itself when it is an Error (a
 * caller that tells its timeout apart by identity), with what it makes when it is a function (an
 * Error of the caller's own class, made only when the deadline passes: an Error made per call
 * costs every call its stack trace), otherwise with a DeadlineExceeded saying "`expired` did not
 * answer within `ms` ms". `onExpire` runs just after the rejection (so the
 * race has settled as timed out first), e.g. to abort the call. The timer is cleared as soon as
 * the race settles either way, so no timer outlives the call.
 *
 * @example
 * await withDeadline(stub.snapshot(), settings.counterTimeoutMs, "the overrides store");
 */
export function withDeadline<T>(promise: Promise<T>, ms: number, expired: string | Error | (() => Error), onExpire?: () => void): Promise<T> {
  // One promise settled by whichever comes first, not a race of two: this runs for every
  // forwarded request, and each promise and async frame it saves is per request.
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(
        typeof expired === "string" ? new DeadlineExceeded(`${expired} did not answer within ${ms} ms`) : typeof expired === "function" ? expired() : expired,
      );
      onExpire?.();
    }, ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
