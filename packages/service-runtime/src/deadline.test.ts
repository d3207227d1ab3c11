import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { type Deadline, underDeadline } from './deadline.js';

describe('underDeadline', () => {
  it('gives the work its result when it finishes in time, its deadline never aborted', async () => {
    let seen: Deadline | undefined;
    const result = await underDeadline(1000, () => new Error('late'), async (deadline) => {
      seen = deadline;
      return 42;
    });
    expect(result).toBe(42);
    expect(seen?.aborted).toBe(false);
  });

  it("refuses at the deadline while the work still waits, and the work's deadline reads aborted from then on", async () => {
    let seen: Deadline | undefined;
    let abortedWhileRunning: boolean | undefined;
    const started = performance.now();
    const outcome = underDeadline(50, () => new Error('too slow'), async (deadline) => {
      seen = deadline;
      await sleep(300);
      // What a transaction asks before it commits: the answer was given, so it must not.
      abortedWhileRunning = deadline.aborted;
      return 'never seen';
    });
    await expect(outcome).rejects.toThrow('too slow');
    expect(performance.now() - started).toBeLessThan(250);
    expect(seen?.aborted).toBe(true);
    await sleep(400);
    expect(abortedWhileRunning).toBe(true);
  });

  it('gives each piece of work a deadline of its own', async () => {
    let late: Deadline | undefined;
    let timely: Deadline | undefined;
    await expect(
      underDeadline(30, () => new Error('too slow'), async (deadline) => {
        late = deadline;
        await sleep(200);
      }),
    ).rejects.toThrow('too slow');
    await underDeadline(1000, () => new Error('late'), async (deadline) => {
      timely = deadline;
    });
    expect(late?.aborted).toBe(true);
    expect(timely?.aborted).toBe(false);
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
