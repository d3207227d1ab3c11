// The internal API when its database fails, on every dialect: a call held up past its deadline
// is refused SERVICE_UNAVAILABLE (HTTP 503, Retry-After, a retryable tRPC code) and commits
// nothing afterwards; before migration it says it is starting.
import { randomUUID } from 'node:crypto';
import { type Database, createDatabase, withTransaction } from '@pits/persistence';
import { type TestDatabase, capabilitiesOf, openTestDatabase, testDialects } from '@pits/persistence/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRPCClientError, createInternalClient } from './client.js';
import { loadInternalApiConfig } from './config.js';
import { type InternalApi, createInternalApi } from './create-internal-api.js';
import { TEST_CREDENTIALS_KEY, TEST_SERVICE_TOKEN, silentLogger } from './testing/test-api.js';

const dialects = await testDialects();

function config(env: Record<string, string> = {}) {
  return loadInternalApiConfig({
    INTERNAL_API_PORT: '0',
    INTERNAL_API_TOKEN: TEST_SERVICE_TOKEN,
    CREDENTIALS_KEY: TEST_CREDENTIALS_KEY,
    LOG_LEVEL: 'silent',
    SHUTDOWN_TIMEOUT_MS: '2000',
    ...env,
  });
}

describe.each(dialects)('[%s] internal API under database faults', (dialect) => {
  let t: TestDatabase;
  const apis: InternalApi[] = [];
  beforeAll(async () => {
    t = await openTestDatabase(dialect, { file: true });
  });
  afterAll(async () => {
    for (const api of apis) await api.close();
    await t.cleanup();
  });

  async function start(database: Database, env: Record<string, string> = {}, ready = true) {
    const api = createInternalApi(config(env), { database, logger: silentLogger(), ready });
    apis.push(api);
    const { url } = await api.listen();
    return { api, url, client: createInternalClient(url, TEST_SERVICE_TOKEN) };
  }

  it('refuses a call held up by a lock with a retryable SERVICE_UNAVAILABLE within its deadline, and never commits it', async () => {
    // Where a write transaction holds the whole database, the lock wait is bounded by the statement deadline: it answers there.
    const database = createDatabase({ ...t.config, deadlines: { statementTimeoutMs: capabilitiesOf(dialect).hasRowLocks ? 5000 : 300 } });
    const { url, client } = await start(database, { REQUEST_DEADLINE_MS: '500' });
    const holder = t.connectAgain();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holding = withTransaction(holder, async (tx) => {
      await tx.dialect.testing.holdWriteLock(tx, 'tenants');
      locked();
      await held;
    });
    await isLocked;
    const name = `held-${randomUUID()}`;
    const started = performance.now();
    let refusal: unknown;
    try {
      await client.tenants.create.mutate({ name });
    } catch (error) {
      refusal = error;
    } finally {
      release();
      await holding;
    }
    const ms = performance.now() - started;
    expect(refusal).toBeInstanceOf(TRPCClientError);
    expect((refusal as TRPCClientError<never>).data).toMatchObject({ code: 'SERVICE_UNAVAILABLE', httpStatus: 503, kind: 'SERVICE_UNAVAILABLE' });
    expect(ms).toBeLessThan(2500);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await t.database.db.selectFrom('tenants').select('id').where('name', '=', name).execute()).toEqual([]);

    // The HTTP answer itself carries 503 and Retry-After, for callers without the typed client.
    const raw = await fetch(`${url}/trpc/tenants.create`, { method: 'POST', headers: { authorization: `Bearer ${TEST_SERVICE_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'fine now' }) });
    expect(raw.status).toBe(200);
    await database.destroy();
  }, 20_000);

  it('before its database is migrated: /healthz 200, /readyz and calls 503 with Retry-After; then serves', async () => {
    const { api, url, client } = await start(t.database, {}, false);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect((await fetch(`${url}/readyz`)).status).toBe(503);
    const call = await fetch(`${url}/trpc/tenants.list?input=${encodeURIComponent('{}')}`, { headers: { authorization: `Bearer ${TEST_SERVICE_TOKEN}` } });
    expect(call.status).toBe(503);
    expect(call.headers.get('retry-after')).toBe('2');
    api.markReady();
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    expect((await client.tenants.list.query({})).tenants).toBeInstanceOf(Array);
  });
});
