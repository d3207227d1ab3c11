import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { cpuSeconds, threadCpuNanoseconds } from './bench-harness.js';

const linux = process.platform === 'linux';

/** Busy for `ms` of wall time on the calling thread. */
function spin(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

describe.skipIf(!linux)('threadCpuNanoseconds', () => {
  it('counts the main thread apart from the others, to the nanosecond, as the ticks do in all', async () => {
    const before = threadCpuNanoseconds(process.pid)!;
    const ticksBefore = cpuSeconds(process.pid)!;
    spin(120);
    // A second thread's work counts as the others'.
    const worker = new Worker('const end = performance.now() + 120; while (performance.now() < end); require("node:worker_threads").parentPort.postMessage("done");', { eval: true });
    await new Promise((resolve) => worker.once('message', resolve));
    const after = threadCpuNanoseconds(process.pid)!;
    const ticksAfter = cpuSeconds(process.pid)!;
    await worker.terminate();
    const mainMs = (after.main - before.main) / 1e6;
    const othersMs = (after.others - before.others) / 1e6;
    expect(mainMs).toBeGreaterThanOrEqual(100);
    expect(othersMs).toBeGreaterThanOrEqual(100);
    // Not a whole number of 10 ms ticks, as /proc/<pid>/stat would give.
    expect((after.main - before.main) % 10_000_000).not.toBe(0);
    // Both count the same time, the ticks to within a few of them.
    expect(Math.abs((ticksAfter - ticksBefore) * 1000 - (mainMs + othersMs))).toBeLessThan(60);
  });

  it('gives null for a process that is not there', () => {
    expect(threadCpuNanoseconds(2 ** 22 + 7)).toBeNull();
    expect(threadCpuNanoseconds(undefined)).toBeNull();
  });
});
