import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { abandonedBenchDatabases, cpuSeconds, processRunning, threadCpuNanoseconds } from './bench-harness.js';

const linux = process.platform === 'linux';

/** Gives up a spin after this much wall time. */
const SPIN_LIMIT_MS = 20_000;

/**
 * Busy on this thread until the process has used `seconds` more CPU by /proc/<pid>/stat's ticks (a
 * source apart from the one under test): CPU, not wall time, so a loaded machine only makes it slower.
 */
function spinCpu(seconds: number): void {
  const start = cpuSeconds(process.pid)!;
  const giveUp = Date.now() + SPIN_LIMIT_MS;
  while (cpuSeconds(process.pid)! - start < seconds) if (Date.now() > giveUp) throw new Error(`no CPU for ${SPIN_LIMIT_MS} ms`);
}

/**
 * A worker that spins until told to stop through shared memory (a busy thread reads no messages),
 * then stays alive until terminated: an ended thread leaves /proc/<pid>/task, and its time with it.
 */
const WORKER_SPIN = `
  const { workerData: stop } = require('node:worker_threads');
  while (Atomics.load(stop, 0) === 0);
  setInterval(() => {}, 1000);
`;

/** Runs `WORKER_SPIN` until the process has used `seconds` more CPU by the ticks, as `spinCpu` does on this thread. */
async function spinWorker(seconds: number): Promise<Worker> {
  const stop = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(WORKER_SPIN, { eval: true, workerData: stop });
  const start = cpuSeconds(process.pid)!;
  const giveUp = Date.now() + SPIN_LIMIT_MS;
  try {
    await new Promise<void>((resolve, reject) => {
      worker.once('error', reject);
      const poll = setInterval(() => {
        if (cpuSeconds(process.pid)! - start >= seconds) resolve();
        else if (Date.now() > giveUp) reject(new Error(`no CPU for ${SPIN_LIMIT_MS} ms`));
        else return;
        clearInterval(poll);
      }, 5);
    });
  } catch (error) {
    // Not left spinning (nor kept alive by its interval) behind a failed test.
    await worker.terminate();
    throw error;
  } finally {
    Atomics.store(stop, 0, 1);
  }
  return worker;
}

describe.skipIf(!linux)('threadCpuNanoseconds', () => {
  it('counts the main thread apart from the others, to the nanosecond, as the ticks do in all', async () => {
    const before = threadCpuNanoseconds(process.pid)!;
    const ticksBefore = cpuSeconds(process.pid)!;
    spinCpu(0.12);
    const middle = threadCpuNanoseconds(process.pid)!;
    // A second thread's work counts as the others' (this thread waits meanwhile).
    const worker = await spinWorker(0.12);
    const after = threadCpuNanoseconds(process.pid)!;
    const ticksAfter = cpuSeconds(process.pid)!;
    await worker.terminate();
    // The ticks round to 10 ms and count every thread: each side got at least 120 ms less a tick or two.
    expect((middle.main - before.main) / 1e6).toBeGreaterThanOrEqual(90);
    expect((after.others - middle.others) / 1e6).toBeGreaterThanOrEqual(90);
    // Not a whole number of 10 ms ticks, as /proc/<pid>/stat would give.
    expect((after.main - before.main) % 10_000_000).not.toBe(0);
    // Both count the same time, the ticks to within a few of them.
    const nsMs = (after.main + after.others - before.main - before.others) / 1e6;
    expect(Math.abs((ticksAfter - ticksBefore) * 1000 - nsMs)).toBeLessThan(60);
  });

  it('gives null for a process that is not there', () => {
    expect(threadCpuNanoseconds(2 ** 22 + 7)).toBeNull();
    expect(threadCpuNanoseconds(undefined)).toBeNull();
  });
});

describe('abandonedBenchDatabases', () => {
  it("names only the mode's databases whose run is gone, never a running one's or another mode's", () => {
    const names = ['pits_paired_old_100', 'pits_paired_main_100', 'pits_paired_old_200', 'pits_instructions_old_100', 'pits_paired_extra_100', 'pits_paired_old_x', 'test'];
    const running = (pid: number) => pid === 200;
    expect(abandonedBenchDatabases(names, 'paired', running)).toEqual(['pits_paired_old_100', 'pits_paired_main_100']);
    expect(abandonedBenchDatabases(names, 'instructions', running)).toEqual(['pits_instructions_old_100']);
    expect(abandonedBenchDatabases(names, 'paired', () => true)).toEqual([]);
  });

  it('asks the machine whether a process runs', () => {
    expect(processRunning(process.pid)).toBe(true);
    expect(processRunning(2 ** 22 + 1)).toBe(false);
  });
});
