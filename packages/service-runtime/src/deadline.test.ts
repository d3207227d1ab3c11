import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { underDeadline } from './deadline.js';

describe('underDeadline', () => {
  it('gives the work its result when it finishes in time, with its signal never aborted', async () => {
    let seen: AbortSignal | undefined;
    const result = await underDeadline(1000, () => new Error('late'), async (signal) => {
      seen = signal;
      return 42;
    });
    expect(result).toBe(42);
    expect(seen?.aborted).toBe(false);
  });

  it('refuses at the deadline while the work still waits, and aborts the work\'s signal', async () => {
    let seen: AbortSignal | undefined;
    const started = performance.now();
    const outcome = underDeadline(50, () => new Error('too slow'), async (signal) => {
      seen = signal;
      await sleep(2000);
      return 'never seen';
    });
    await expect(outcome).rejects.toThrow('too slow');
    expect(performance.now() - started).toBeLessThan(1500);
    expect(seen?.aborted).toBe(true);
  });

  it('passes the work\'s own failure through', async () => {
    await expect(underDeadline(1000, () => new Error('late'), () => Promise.reject(new Error('broken')))).rejects.toThrow('broken');
  });
});
