// The gateway counts in fixed windows aligned to the epoch (a window of 60 s is one wall-clock
// minute), and this machine shares the gateway's clock. A test that needs a burst to land in one
// window starts it early enough in a window.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Milliseconds left in the current window. */
export function msLeftInWindow(windowMs: number, now = Date.now()): number {
  return windowMs - (now % windowMs);
}

/**
 * Returns at once when at least `neededMs` remain in the current window; otherwise waits until the
 * next window has begun (plus a small margin) and returns how long it waited.
 *
 * @example
 * await roomInWindow(60_000, 10_000);
 */
export async function roomInWindow(windowMs: number, neededMs: number): Promise<number> {
  const left = msLeftInWindow(windowMs);
  if (left >= neededMs) return 0;
  await sleep(left + 50);
  return left + 50;
}

/** Waits until the next window begins (plus a small margin). */
export async function nextWindow(windowMs: number): Promise<void> {
  await sleep(msLeftInWindow(windowMs) + 50);
}
