// A deadline around a piece of work: past it the caller gets `refusal()` at once, whatever the work
// waits on, and the signal handed to the work is aborted, so a transaction still running rolls back
// instead of committing. The gateway's requests and the internal API's calls both run under it.

/**
 * @example
 * await underDeadline(10_000, () => new AppError(domainError('SERVICE_UNAVAILABLE', 'too slow')), (signal) => work(signal));
 */
export async function underDeadline<T>(timeoutMs: number, refusal: () => Error, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(refusal());
    }, timeoutMs);
  });
  try {
    // The race keeps a late failure of the work handled; a late success finds the answer given.
    return await Promise.race([work(controller.signal), expired]);
  } finally {
    clearTimeout(timer);
  }
}
