// What a caller sees when the database is slow or locked: an error that isDatabaseUnavailable
// recognises, within the configured deadline, and a database object that serves again afterwards
// without being reopened; transactions that join, roll back whole, and never commit too late.
// (Lost connections and silent servers are the networked dialect's own tests, in ./dialects.)
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from './create-database.js';
import { DatabaseUnavailableError, isDatabaseUnavailable } from './database-errors.js';
import { createTenant } from './repositories/tenant-repository.js';
import { withTransaction } from './transaction.js';
import { type TestDatabase, openTestDatabase, testDialects } from './testing/index.js';
import { executeWrite } from './execution/execute.js';

const dialects = await testDialects();
const NOW = new Date('2026-11-22T00:00:00.000Z');

async function failure(promise: Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = performance.now();
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  return { error, ms: performance.now() - started };
}

describe.each(dialects)('[%s] transactions and deadlines', (dialect) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase(dialect, { file: true });
  });
  afterAll(() => t.cleanup());

  it('a use case called with a transaction joins it: both commit or neither', async () => {
    const id = randomUUID();
    const { error } = await failure(
      withTransaction(t.database, async (outer) => {
        await withTransaction(outer, (inner) => createTenant(inner, { id, name: 'joined' }, NOW));
        throw new Error('outer fails after the inner work');
      }),
    );
    expect((error as Error).message).toBe('outer fails after the inner work');
    expect(await t.database.db.selectFrom('tenants').select('id').where('id', '=', id).execute()).toEqual([]);
  });

  it('rolls a transaction back whole when it throws', async () => {
    const id = randomUUID();
    const { error } = await failure(
      withTransaction(t.database, async (tx) => {
        await createTenant(tx, { name: 'rolled back', id }, NOW);
        throw new Error('boom');
      }),
    );
    expect((error as Error).message).toBe('boom');
    expect(await t.database.db.selectFrom('tenants').select('id').where('id', '=', id).execute()).toEqual([]);
  });

  it('never commits once the caller’s deadline has passed', async () => {
    const id = randomUUID();
    const deadline = new AbortController();
    const { error } = await failure(
      withTransaction({ ...t.database, signal: deadline.signal }, async (tx) => {
        await createTenant(tx, { id, name: 'too late' }, NOW);
        deadline.abort();
      }),
    );
    expect(error).toBeInstanceOf(DatabaseUnavailableError);
    expect(isDatabaseUnavailable(error)).toBe(true);
    expect(await t.database.db.selectFrom('tenants').select('id').where('id', '=', id).execute()).toEqual([]);
  });

  it('a writer held up by another writer gives up after the statement deadline, then works again', async () => {
    const other = createDatabase({ ...t.config, deadlines: { statementTimeoutMs: 300, connectTimeoutMs: 1000 } });
    const tenant = await createTenant(t.database, { name: 'locked' }, NOW);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holder = withTransaction(t.database, async (tx) => {
      await executeWrite(tx, tx.db.updateTable('tenants').set({ name: 'held' }).where('id', '=', tenant.id));
      locked();
      await held;
    });
    try {
      await isLocked;
      // While it waits, the process keeps running: timers fire (a synchronous busy wait would stop them).
      let ticks = 0;
      const ticker = setInterval(() => (ticks += 1), 10);
      const { error, ms } = await failure(withTransaction(other, (tx) => executeWrite(tx, tx.db.updateTable('tenants').set({ name: 'blocked' }).where('id', '=', tenant.id))));
      clearInterval(ticker);
      expect(isDatabaseUnavailable(error)).toBe(true);
      expect(ms).toBeGreaterThanOrEqual(250);
      expect(ms).toBeLessThan(3000);
      expect(ticks).toBeGreaterThanOrEqual(10);
    } finally {
      release();
      await holder;
    }
    await other.db.updateTable('tenants').set({ name: 'free again' }).where('id', '=', tenant.id).execute();
    expect((await t.database.db.selectFrom('tenants').select('name').where('id', '=', tenant.id).executeTakeFirst())?.name).toBe('free again');
    await other.destroy();
  });

  it('writers waiting for another process’s lock each give up after their own wait, and reads go on meanwhile', async () => {
    const other = createDatabase({ ...t.config, deadlines: { statementTimeoutMs: 400, connectTimeoutMs: 1000 } });
    const tenant = await createTenant(t.database, { name: 'queue' }, NOW);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holder = withTransaction(t.database, async (tx) => {
      await executeWrite(tx, tx.db.updateTable('tenants').set({ name: 'held' }).where('id', '=', tenant.id));
      locked();
      await held;
    });
    try {
      await isLocked;
      const writes = Array.from({ length: 4 }, () => failure(withTransaction(other, (tx) => executeWrite(tx, tx.db.updateTable('tenants').set({ name: 'w' }).where('id', '=', tenant.id)))));
      await new Promise((resolve) => setTimeout(resolve, 50));
      const started = performance.now();
      await other.db.selectFrom('tenants').select('id').where('id', '=', tenant.id).execute();
      const readMs = performance.now() - started;
      const results = await Promise.all(writes);
      for (const { error, ms } of results) {
        expect(isDatabaseUnavailable(error)).toBe(true);
        expect(ms).toBeLessThan(1200);
      }
      expect(readMs).toBeLessThan(200);
    } finally {
      release();
      await holder;
    }
    await other.destroy();
  });
});
