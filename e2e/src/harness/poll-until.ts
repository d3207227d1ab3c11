// Waiting for something another process does in its own time (a webhook worker's delivery),
// with a bound, so a test never hangs on it.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Calls `probe` every `intervalMs` until it returns something other than undefined, and returns
 * that; throws naming `what` after `timeoutMs`.
 *
 * @example
 * const delivery = await pollUntil('delivery succeeded', 15_000, async () => (await list()).find((d) => d.status === 'succeeded'));
 */
export async function pollUntil<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined> | T | undefined, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for: ${what}`);
    await sleep(intervalMs);
  }
}
