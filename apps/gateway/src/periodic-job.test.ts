// The background-job schedule both gateway jobs share (periodic-job.ts): runs never overlap, the
// first run comes at start or after one wait, a failure is logged and the schedule goes on, and stop
// waits for the run in progress. Fake timers drive the waits; no test depends on the machine's speed.
import { DatabaseUnavailableError } from '@pits/persistence';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { periodicJob } from './periodic-job.js';

function capture() {
  const lines: { level: number; msg: string }[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }) });
  return { lines, logger };
}

/** A run that ends when the test says so. */
function controlledRun() {
  const ends: (() => void)[] = [];
  let calls = 0;
  const run = () => {
    calls += 1;
    return new Promise<void>((resolve) => ends.push(resolve));
  };
  return { run, calls: () => calls, finish: () => ends.shift()?.() };
}

describe('periodicJob', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('runs at start, and waits the interval from the end of a run, so a long run is never overlapped', async () => {
    const { logger } = capture();
    const job = controlledRun();
    const periodic = periodicJob({ name: 'test job', logger, intervalMs: 1000, runAtStart: true, run: job.run });
    periodic.start();
    expect(job.calls()).toBe(1);
    await vi.advanceTimersByTimeAsync(5000);
    expect(job.calls()).toBe(1);
    job.finish();
    await vi.advanceTimersByTimeAsync(999);
    expect(job.calls()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(job.calls()).toBe(2);
    job.finish();
    await periodic.stop();
  });

  it('without runAtStart, runs first after one interval', async () => {
    const { logger } = capture();
    const job = controlledRun();
    const periodic = periodicJob({ name: 'test job', logger, intervalMs: 1000, runAtStart: false, run: job.run });
    periodic.start();
    await vi.advanceTimersByTimeAsync(999);
    expect(job.calls()).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(job.calls()).toBe(1);
    job.finish();
    await periodic.stop();
  });

  it('keeps each wait within the jitter', async () => {
    const { logger } = capture();
    const job = controlledRun();
    const periodic = periodicJob({ name: 'test job', logger, intervalMs: 1000, jitter: 0.2, runAtStart: true, run: job.run });
    periodic.start();
    for (let i = 1; i <= 20; i += 1) {
      job.finish();
      await vi.advanceTimersByTimeAsync(799);
      expect(job.calls()).toBe(i);
      await vi.advanceTimersByTimeAsync(401);
      expect(job.calls()).toBe(i + 1);
    }
    job.finish();
    await periodic.stop();
  });

  it('logs a failed run, a database away as a warning, and goes on', async () => {
    const { lines, logger } = capture();
    const failures = [new DatabaseUnavailableError('gone'), new Error('boom')];
    let calls = 0;
    const periodic = periodicJob({
      name: 'test job',
      logger,
      intervalMs: 1000,
      runAtStart: true,
      run: async () => {
        calls += 1;
        const failure = failures.shift();
        if (failure) throw failure;
      },
    });
    periodic.start();
    await vi.advanceTimersByTimeAsync(2000);
    expect(calls).toBe(3);
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      [40, 'test job skipped: the database is unavailable; next run on schedule'],
      [50, 'test job failed'],
    ]);
    await periodic.stop();
  });

  it('stop waits for the run in progress and schedules no other', async () => {
    const { logger } = capture();
    const job = controlledRun();
    const periodic = periodicJob({ name: 'test job', logger, intervalMs: 1000, runAtStart: true, run: job.run });
    periodic.start();
    let stopped = false;
    const stopping = periodic.stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    job.finish();
    await stopping;
    expect(stopped).toBe(true);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(job.calls()).toBe(1);
  });
});
