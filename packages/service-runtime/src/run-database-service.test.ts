// The one main recipe with a fake database layer and a fake process: what it opens, in which
// order it runs the service's steps and the database's, and the lines it logs in the service's words.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { type BuiltService, type ServiceDatabaseLayer, runDatabaseService } from './run-database-service.js';
import { FakeProcess, until } from './testing/fake-process.js';


interface FakeDatabase {
  readonly applicationName: string;
  connections(): { total: number; idle: number; waiting: number };
  destroy(): Promise<void>;
}


/** A recipe whose steps (the service's and the database's) record themselves in `steps`; `lines` holds the log lines. */
function harness(options: { migrate?: ServiceDatabaseLayer<{ file: string }, FakeDatabase>['migrate']; service?: Partial<BuiltService> } = {}) {
  const steps: string[] = [];
  const lines: (Record<string, unknown> & { msg: string })[] = [];
  const proc = new FakeProcess();
  let opened: FakeDatabase | undefined;
  const layer: ServiceDatabaseLayer<{ file: string }, FakeDatabase> = {
    kinds: ['other'],
    classify: () => 'other',
    open(config, applicationName) {
      steps.push(`open ${config.file}`);
      opened = { applicationName, connections: () => ({ total: 1, idle: 1, waiting: 0 }), destroy: async () => void steps.push('destroy') };
      return opened;
    },
    describe: (config) => `file ${config.file}`,
    migrate: options.migrate ?? (async () => void steps.push('migrate')),
  };
  const exited = runDatabaseService({
    app: 'webhook-worker',
    loadConfig: () => ({ logLevel: 'info' as const, database: { file: 'a.db' }, port: 4002 }),
    database: layer,
    build: ({ database }) => {
      steps.push(`build ${database.applicationName}`);
      return {
        messages: { databaseUnavailable: 'database not reachable yet', stopping: 'worker stopping', stopped: 'worker stopped' },
        listen: async () => void steps.push('listen'),
        ready: () => void steps.push('ready'),
        stop: async () => void steps.push('stop'),
        ...options.service,
      };
    },
    process: proc,
    logDestination: new Writable({
      write(chunk: Buffer, _encoding, done) {
        const line = JSON.parse(chunk.toString()) as Record<string, unknown> & { msg: string };
        lines.push(line);
        steps.push(`log:${line.msg}`);
        done();
      },
    }),
  });
  return { steps, lines, proc, exited, database: () => opened };
}


describe('runDatabaseService', () => {
  it('opens the database named for the process, builds, listens, migrates, is ready; SIGTERM stops, then closes the database', async () => {
    const { steps, proc, exited } = harness();
    await until(steps, 'ready');
    expect(steps).toEqual(['open a.db', `build pits-webhook-worker-${process.pid}`, 'listen', 'migrate', 'ready']);
    proc.signal('SIGTERM');
    expect(await exited).toBe(0);
    expect(steps.slice(5)).toEqual(['log:worker stopping', 'stop', 'destroy', 'log:worker stopped']);
    expect(proc.exits).toEqual([0]);
  });

  it('warns in the service words while the database is not reachable, with the reason and the delay', async () => {
    let attempts = 0;
    const { steps, lines, proc, exited } = harness({
      migrate: async (_database, { onUnavailable }) => {
        attempts += 1;
        onUnavailable(new Error('connect ECONNREFUSED'), 250);
        steps.push('migrate');
      },
    });
    await until(steps, 'ready');
    expect(attempts).toBe(1);
    expect(lines.find((l) => l.msg === 'database not reachable yet')).toMatchObject({ level: 40, app: 'webhook-worker', reason: 'connect ECONNREFUSED', retry_in_ms: 250 });
    proc.signal('SIGINT');
    expect(await exited).toBe(0);
  });

  it('exits 1 when the migration fails: the fatal line names the service context and the database described', async () => {
    const { steps, lines, exited } = harness({ migrate: () => Promise.reject(new Error('migration failed at 012')) });
    expect(await exited).toBe(1);
    expect(steps.slice(2)).toEqual(['listen', 'log:cannot migrate the database', 'stop', 'destroy']);
    expect(lines.find((l) => l.msg === 'cannot migrate the database')).toMatchObject({ level: 60, port: 4002, database: 'file a.db', err: { message: 'migration failed at 012' } });
  });

  it("says 'cannot listen' unless the service has its own words, and closes the database", async () => {
    const { steps, exited } = harness({ service: { listen: () => Promise.reject(new Error('listen EADDRINUSE')) } });
    expect(await exited).toBe(1);
    expect(steps.slice(2)).toEqual(['log:cannot listen', 'destroy']);
  });
});
