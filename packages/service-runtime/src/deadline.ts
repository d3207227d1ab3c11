// A deadline around a piece of work: past it the caller gets `refusal()` at once, whatever the work
// waits on, and the signal handed to the work is aborted, so a transaction still running rolls back
// instead of committing. The gateway's requests and the internal API's calls both run under it.

/** What the work is told: its `signal` is aborted once the deadline has passed. */
export interface Deadline {
  readonly signal: AbortSignal;
}

/**
 * The signal is made the first time the work asks for it (an AbortController costs microseconds
 * per request, and reads never ask), already aborted when asked past the deadline.
 *
 * @example
 * await underDeadline(10_000, () => new AppError(domainError('SERVICE_UNAVAILABLE', 'too slow')), (deadline) => work(deadline.signal));
 */
export function underDeadline<T>(timeoutMs: number, refusal: () => Error, work: (deadline: Deadline) => Promise<T>): Promise<T> {
  let controller: AbortController | undefined;
  let expired = false;
  const deadline: Deadline = {
    get signal() {
      if (controller === undefined) {
        controller = new AbortController();
        if (expired) controller.abort();
      }
      return controller.signal;
    },
  };
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      expired = true;
      controller?.abort();
      reject(refusal());
    }, timeoutMs);
    // Settling twice is a no-op: a late success or failure of the work finds the answer given.
    let running: Promise<T>;
    try {
      running = work(deadline);
    } catch (error) {
      running = Promise.reject(error as Error);
    }
    running.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error as Error);
      },
    );
  });
}
