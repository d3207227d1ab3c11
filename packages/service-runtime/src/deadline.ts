// A deadline around a piece of work: past it the caller gets `refusal()` at once, whatever the work
// waits on, and the deadline handed to the work reads aborted, so a transaction still running rolls
// back instead of committing. The gateway's requests and the internal API's calls both run under it.

/**
 * What the work is told: `aborted` turns true once the deadline has passed. A plain flag, not an
 * AbortSignal: its one reader (a transaction deciding whether it may still commit) only asks
 * `aborted`, and an AbortController per request cost microseconds and garbage on every write.
 */
export interface Deadline {
  readonly aborted: boolean;
}

/**
 * @example
 * await underDeadline(10_000, () => new AppError(domainError('SERVICE_UNAVAILABLE', 'too slow')), (deadline) => work(deadline));
 */
export function underDeadline<T>(timeoutMs: number, refusal: () => Error, work: (deadline: Deadline) => Promise<T>): Promise<T> {
  const deadline = { aborted: false };
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      deadline.aborted = true;
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
