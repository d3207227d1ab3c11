// PostgreSQL's connections under failure: a backend terminated from outside, a lock wait cut by
// statement_timeout, a server that accepts and never answers. Each surfaces as an error that
// isDatabaseUnavailable recognises, within its deadline, and the same database object serves again.
import { once } from 'node:events';
import { type AddressInfo, type Socket, connect, createServer } from 'node:net';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, createDatabase, isDatabaseReachable } from '../create-database.js';
import { isDatabaseUnavailable } from '../database-errors.js';
import { createTenant } from '../repositories/tenant-repository.js';
import { withSession, withTransaction } from '../transaction.js';
import { type TestDatabase, openTestDatabase, testDialects, testPostgresUrl } from '../testing/index.js';
import { execute } from '../execution/execute.js';

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

describe.runIf(dialects.includes('postgres'))('[postgres] lost connections and silent servers', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase('postgres');
  });
  afterAll(() => t.cleanup());

  /** Ends every backend of one application name from outside, as a failover or an idle reaper does. */
  async function terminate(applicationName: string): Promise<number> {
    const admin = new pg.Client({ connectionString: testPostgresUrl() });
    await admin.connect();
    try {
      // Only backends of this test's own throwaway database: other suites share the server.
      const ownDatabase = t.config.dialect === 'postgres' ? decodeURIComponent(new URL(t.config.url).pathname.slice(1)) : '';
      const { rows } = await admin.query<{ pid: number }>('select pg_terminate_backend(pid) as pid from pg_stat_activity where datname = $1 and application_name = $2', [ownDatabase, applicationName]);
      return rows.length;
    } finally {
      await admin.end();
    }
  }

  it('survives pg_terminate_backend of idle and busy connections and serves again without reopening', async () => {
    const applicationName = `pits-test-${randomUUID()}`;
    if (t.config.dialect !== 'postgres') throw new Error('a PostgreSQL test database was expected');
    const database: Database = createDatabase({ ...t.config, applicationName, poolSize: 4 });
    try {
      // Four connections in the pool, one of them checked out by an open transaction.
      await Promise.all(Array.from({ length: 4 }, () => sql`select pg_sleep(0.05)`.execute(database.db)));
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let inTransaction!: () => void;
      const open = new Promise<void>((resolve) => (inTransaction = resolve));
      const busy = failure(
        withTransaction(database, async (tx) => {
          await execute(tx, sql`select 1`);
          inTransaction();
          await held;
          await execute(tx, sql`select 1`);
        }),
      );
      await open;
      expect(await terminate(applicationName)).toBeGreaterThanOrEqual(1);
      await new Promise((resolve) => setTimeout(resolve, 200));
      release();
      const { error } = await busy;
      expect(isDatabaseUnavailable(error)).toBe(true);
      // The process is still here and the same database object answers.
      const rows = await sql<{ n: number }>`select 1 as n`.execute(database.db);
      expect(rows.rows).toEqual([{ n: 1 }]);
      expect(await isDatabaseReachable(database)).toBe(true);
    } finally {
      await database.destroy();
    }
  });

  it('a statement waiting on a lock is cut by statement_timeout and reported as unavailable', async () => {
    const blocked = createDatabase({ ...t.config, deadlines: { statementTimeoutMs: 300 } });
    const tenant = await createTenant(t.database, { name: 'row lock' }, NOW);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holder = withTransaction(t.database, async (tx) => {
      await execute(tx, tx.db.selectFrom('tenants').select('id').where('id', '=', tenant.id).forUpdate());
      locked();
      await held;
    });
    try {
      await isLocked;
      const { error, ms } = await failure(blocked.db.updateTable('tenants').set({ name: 'x' }).where('id', '=', tenant.id).execute());
      expect((error as { code?: string }).code).toBe('57014');
      expect(isDatabaseUnavailable(error)).toBe(true);
      expect(ms).toBeLessThan(2500);
    } finally {
      release();
      await holder;
      await blocked.destroy();
    }
  });

  /**
   * A TCP proxy to the test server that can stall: while `stalled`, nothing the server sends
   * reaches the client (a network or a server that stopped answering mid-session).
   */
  async function stallingProxy(): Promise<{ url: string; connections: () => number; stall: (on: boolean) => void; close: () => void }> {
    const target = new URL(testPostgresUrl());
    let stalled = false;
    let opened = 0;
    const sockets = new Set<Socket>();
    const proxy = createServer((client) => {
      opened += 1;
      const server = connect(Number(target.port || 5432), target.hostname);
      for (const socket of [client, server]) {
        sockets.add(socket);
        socket.on('error', () => undefined);
        socket.on('close', () => {
          client.destroy();
          server.destroy();
        });
      }
      client.on('data', (chunk) => server.write(chunk));
      server.on('data', (chunk) => {
        if (!stalled) client.write(chunk);
      });
    });
    proxy.listen(0, '127.0.0.1');
    await once(proxy, 'listening');
    const url = new URL(testPostgresUrl());
    url.host = `127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    return {
      url: url.toString(),
      connections: () => opened,
      stall: (on) => (stalled = on),
      close: () => {
        for (const socket of sockets) socket.destroy();
        proxy.close();
      },
    };
  }

  // Three lost answers, each waited out to its deadline and followed by a new connection: a loaded
  // machine needs more than the default five seconds for all of it.
  it('a query that gets no answer is abandoned at its deadline, and its connection destroyed rather than reused', async () => {
    if (t.config.dialect !== 'postgres') throw new Error('a PostgreSQL test database was expected');
    const proxy = await stallingProxy();
    const reported: unknown[] = [];
    const database = createDatabase({ ...t.config, url: proxy.url, poolSize: 1, deadlines: { statementTimeoutMs: 300 } }, { onQueryError: (e) => reported.push(e) });
    try {
      expect((await sql<{ n: number }>`select 1 as n`.execute(database.db)).rows).toEqual([{ n: 1 }]);
      expect(proxy.connections()).toBe(1);

      // Outside a transaction.
      proxy.stall(true);
      const outside = await failure(sql`select 2`.execute(database.db));
      expect(isDatabaseUnavailable(outside.error)).toBe(true);
      expect(outside.ms).toBeLessThan(3000);
      expect(reported).toContain(outside.error);
      expect(database.connections().total).toBe(0);
      proxy.stall(false);
      expect((await sql<{ n: number }>`select 3 as n`.execute(database.db)).rows).toEqual([{ n: 3 }]);
      expect(proxy.connections()).toBe(2);

      // Inside a transaction: the work fails at the deadline, no ROLLBACK waits behind the lost answer.
      const inside = failure(
        withTransaction(database, async (tx) => {
          await execute(tx, sql`select 4`);
          proxy.stall(true);
          await execute(tx, sql`select 5`);
        }),
      );
      const { error, ms } = await inside;
      expect(isDatabaseUnavailable(error)).toBe(true);
      expect(ms).toBeLessThan(3000);
      expect(database.connections().total).toBe(0);
      proxy.stall(false);
      expect((await sql<{ n: number }>`select 6 as n`.execute(database.db)).rows).toEqual([{ n: 6 }]);
      expect(proxy.connections()).toBe(3);

      // In a session: the statements after a lost answer are refused at once with its error (not
      // queued behind it for a deadline of their own), and the connection goes when the session ends.
      const after = await withSession(database, async (session) => {
        await execute(session, sql`select 7`);
        proxy.stall(true);
        const lost = await failure(execute(session, sql`select 8`));
        const next = await failure(execute(session, sql`select 9`));
        return { lost, next };
      });
      expect(isDatabaseUnavailable(after.lost.error)).toBe(true);
      expect(after.next.error).toBe(after.lost.error);
      expect(database.connections().total).toBe(0);
      proxy.stall(false);
      expect((await sql<{ n: number }>`select 10 as n`.execute(database.db)).rows).toEqual([{ n: 10 }]);
      expect(proxy.connections()).toBe(4);
    } finally {
      proxy.stall(false);
      await database.destroy().catch(() => undefined);
      proxy.close();
    }
  }, 30_000);

  it('a server that accepts but never answers: the query fails within the connect deadline, and readiness says no in time', async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
    });
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const { port } = silent.address() as AddressInfo;
    const database = createDatabase({ dialect: 'postgres', url: `postgres://postgres@127.0.0.1:${port}/test`, deadlines: { connectTimeoutMs: 300 } });
    try {
      const { error, ms } = await failure(sql`select 1`.execute(database.db));
      expect(isDatabaseUnavailable(error)).toBe(true);
      expect(ms).toBeLessThan(2000);
      const started = performance.now();
      expect(await isDatabaseReachable(database, 200)).toBe(false);
      expect(performance.now() - started).toBeLessThan(1000);
    } finally {
      await database.destroy().catch(() => undefined);
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });
});
