// The process shell with a fake process: signals are emitted by the test, exits are recorded, and
// every step records when it ran, so the order of start-up and shutdown is what is checked.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { type ServiceDefinition, runService } from './run-service.js';
import { FakeProcess, tick, until } from './testing/fake-process.js';

/** A promise the test settles by hand. */
function gate<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

const LEVELS: Record<number, string> = { 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };


/** A service whose steps record themselves in `steps` (log lines too, as `log:<level>:<msg>`). */
function harness(overrides: Partial<ServiceDefinition> = {}) {
  const steps: string[] = [];
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'info' },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        const line = JSON.parse(chunk.toString()) as Record<string, unknown> & { level: number; msg: string };
        lines.push(line);
        steps.push(`log:${LEVELS[line.level] ?? line.level}:${line.msg}`);
        done();
      },
    }),
  );
  const proc = new FakeProcess();
  let preparedWith: AbortSignal | undefined;
  const service: ServiceDefinition = {
    logger,
    context: { port: 4000 },
    messages: { listenFailed: 'cannot listen', prepareFailed: 'cannot migrate the database', stopping: 'stopping', stopped: 'stopped' },
    listen: async () => void steps.push('listen'),
    prepare: async (signal) => {
      preparedWith = signal;
      steps.push('prepare');
    },
    ready: () => void steps.push('ready'),
    stop: async () => void steps.push('stop'),
    release: async () => void steps.push('release'),
    process: proc,
    ...overrides,
  };
  return { steps, lines, proc, service, signal: () => preparedWith };
}


describe('runService', () => {
  it('listens, prepares, then is ready; on SIGTERM stops serving, then releases, then exits 0', async () => {
    const { steps, proc, service, signal } = harness();
    const exited = runService(service);
    await until(steps, 'ready');
    expect(steps).toEqual(['listen', 'prepare', 'ready']);
    expect(signal()!.aborted).toBe(false);
    proc.signal('SIGTERM');
    expect(signal()!.aborted).toBe(true);
    expect(await exited).toBe(0);
    expect(steps).toEqual(['listen', 'prepare', 'ready', 'log:info:stopping', 'stop', 'release', 'log:info:stopped']);
    expect(proc.exits).toEqual([0]);
  });

  it('stops once however many signals come, SIGINT as well as SIGTERM', async () => {
    const stopping = gate();
    const { steps, proc, service, lines } = harness({ stop: () => stopping.promise.then(() => void steps.push('stop')) });
    const exited = runService(service);
    await until(steps, 'ready');
    proc.signal('SIGINT');
    proc.signal('SIGTERM');
    proc.signal('SIGINT');
    await tick();
    stopping.resolve();
    expect(await exited).toBe(0);
    proc.signal('SIGTERM');
    await tick();
    expect(steps.filter((s) => s === 'stop' || s === 'release')).toEqual(['stop', 'release']);
    expect(lines.find((l) => l.msg === 'stopping')).toMatchObject({ signal: 'SIGINT' });
    expect(proc.exits).toEqual([0]);
  });

  it('exits 1 when it cannot listen: the failure logged fatal with the context, the database released, nothing prepared', async () => {
    const { steps, proc, service, lines } = harness({ listen: () => Promise.reject(Object.assign(new Error('listen EADDRINUSE: address already in use'), { code: 'EADDRINUSE' })) });
    expect(await runService(service)).toBe(1);
    expect(steps).toEqual(['log:fatal:cannot listen', 'release']);
    expect(lines[0]).toMatchObject({ port: 4000, err: { message: 'listen EADDRINUSE: address already in use' } });
    proc.signal('SIGTERM');
    await tick();
    expect(proc.exits).toEqual([1]);
    expect(steps).not.toContain('stop');
  });

  it('exits 1 when preparing fails: never ready, stopped and released after the fatal line', async () => {
    const { steps, proc, service } = harness({ prepare: () => Promise.reject(new Error('relation "x" already exists')) });
    expect(await runService(service)).toBe(1);
    expect(steps).toEqual(['listen', 'log:fatal:cannot migrate the database', 'stop', 'release']);
    proc.signal('SIGTERM');
    await tick();
    expect(proc.exits).toEqual([1]);
    expect(steps.filter((s) => s === 'stop')).toHaveLength(1);
  });

  it('a stop while preparing aborts the preparation, exits 0 and never becomes ready, even if preparing then succeeds', async () => {
    const preparing = gate();
    const { steps, proc, service } = harness({ prepare: (abort) => ((steps.push('prepare'), abort.addEventListener('abort', () => steps.push('prepare aborted'))), preparing.promise) });
    const exited = runService(service);
    await until(steps, 'prepare');
    proc.signal('SIGTERM');
    expect(await exited).toBe(0);
    expect(steps).toEqual(['listen', 'prepare', 'prepare aborted', 'log:info:stopping', 'stop', 'release', 'log:info:stopped']);
    preparing.resolve();
    await tick();
    expect(steps).not.toContain('ready');
  });

  it('a preparation that fails because it was aborted is no failure: no fatal line, exit 0', async () => {
    const { steps, proc, service } = harness({
      prepare: (abort) => (steps.push('prepare'), new Promise((_, reject) => abort.addEventListener('abort', () => reject(new Error('aborted'))))),
    });
    const exited = runService(service);
    await until(steps, 'prepare');
    proc.signal('SIGTERM');
    expect(await exited).toBe(0);
    await tick();
    expect(steps.some((s) => s.startsWith('log:fatal'))).toBe(false);
    expect(proc.exits).toEqual([0]);
  });

  it('a stop while the ports are still opening waits for them, then stops without preparing', async () => {
    const opening = gate();
    const { steps, proc, service } = harness({ listen: () => opening.promise.then(() => void steps.push('listen')) });
    const exited = runService(service);
    proc.signal('SIGTERM');
    await tick();
    expect(steps).toEqual([]);
    opening.resolve();
    expect(await exited).toBe(0);
    expect(steps).toEqual(['listen', 'log:info:stopping', 'stop', 'release', 'log:info:stopped']);
  });

  it('exits 1 after an unclean shutdown (closing failed), still releasing the database', async () => {
    const { steps, proc, service } = harness({ stop: () => Promise.reject(new Error('server did not close')) });
    const exited = runService(service);
    await until(steps, 'ready');
    proc.signal('SIGTERM');
    expect(await exited).toBe(1);
    expect(steps.slice(3)).toEqual(['log:info:stopping', 'log:error:unclean shutdown', 'release']);
    expect(proc.exits).toEqual([1]);
  });

  it('exits 1 when becoming ready throws, after releasing', async () => {
    const { steps, service } = harness({ ready: () => { throw new Error('bug'); } });
    expect(await runService(service)).toBe(1);
    expect(steps).toEqual(['listen', 'prepare', 'log:fatal:service failed', 'release']);
  });

  it('listens for SIGTERM and SIGINT on the process it is given, and on nothing else', async () => {
    const { proc, service, steps } = harness();
    void runService(service);
    await until(steps, 'ready');
    expect(proc.eventNames().sort()).toEqual(['SIGINT', 'SIGTERM']);
  });
});
