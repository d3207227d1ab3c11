import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { underDeadline } from './deadline.js';

describe('underDeadline', () => {
  it('gives the work its result when it finishes in time, with its signal never aborted', async () => {
    let seen: AbortSignal | undefined;
    const result = await underDeadline(1000, () => new Error('late'), async (deadline) => {
      seen = deadline.signal;
      return 42;
    });
    expect(result).toBe(42);
    expect(seen?.aborted).toBe(false);
  });

  it('refuses at the deadline while the work still waits, and aborts the work\'s signal', async () => {
    let seen: AbortSignal | undefined;
    const started = performance.now();
    const outcome = underDeadline(50, () => new Error('too slow'), async (deadline) => {
      seen = deadline.signal;
      await sleep(2000);
      return 'never seen';
    });
    await expect(outcome).rejects.toThrow('too slow');
    expect(performance.now() - started).toBeLessThan(1500);
    expect(seen?.aborted).toBe(true);
  });

  it('hands out one signal, made when first asked, and already aborted when first asked past the deadline', async () => {
    let late: AbortSignal | undefined;
    let same = false;
    const outcome = underDeadline(30, () => new Error('too slow'), async (deadline) => {
      same = deadline.signal === deadline.signal;
      await sleep(2000).then(() => undefined);
      return 'never seen';
    });
    const lateAsker = underDeadline(30, () => new Error('too slow'), async (deadline) => {
      await sleep(80);
      late = deadline.signal;
    });
    await expect(outcome).rejects.toThrow('too slow');
    await expect(lateAsker).rejects.toThrow('too slow');
    await sleep(100);
    expect(same).toBe(true);
    expect(late?.aborted).toBe(true);
  });

  it('turns work that throws before returning a promise into a rejection', async () => {
    const outcome = underDeadline(1000, () => new Error('late'), () => {
      throw new Error('thrown at once');
    });
    await expect(outcome).rejects.toThrow('thrown at once');
  });

  it('passes the work\'s own failure through', async () => {
    await expect(underDeadline(1000, () => new Error('late'), () => Promise.reject(new Error('broken')))).rejects.toThrow('broken');
  });
});
