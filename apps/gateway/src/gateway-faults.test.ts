// The assembled gateway when its dependencies fail, on every dialect: a locked or silent
// database answers 503 SERVICE_UNAVAILABLE with Retry-After within the deadline and commits
// nothing after it, a gateway that is not migrated yet says so, an unreachable Redis stops
// nothing, and the retention job purges what is past its time while what is within it replays.
import { once } from 'node:events';
import { type AddressInfo, type Server, type Socket, createServer } from 'node:net';
import { type Database, claimIdempotencyKey, completeIdempotencyKey, createApiKey, createDatabase, withTransaction } from '@pits/persistence';
import { type TestDatabase, capabilitiesOf, type TenantWorld, connectTenant, executeWrite, openTestDatabase, seedTenantWorld, testDialects } from '@pits/persistence/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadGatewayConfig } from './config.js';
import { type Gateway, createGateway } from './create-gateway.js';

const dialects = await testDialects();
const KEY = 'k'.repeat(64);

interface Answer {
  status: number;
  ms: number;
  retryAfter: string | null;
  body: { error?: { code: string }; data?: { adjustment?: { id: string } } };
}

async function timed(url: string, init: RequestInit = {}): Promise<Answer> {
  const started = performance.now();
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(15_000) });
  const body = (await res.json()) as Answer['body'];
  return { status: res.status, ms: performance.now() - started, retryAfter: res.headers.get('retry-after'), body };
}

/** A TCP server that accepts connections and never says a word: a database that stopped answering. */
async function silentServer(): Promise<{ port: number; close(): void }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    close() {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

describe.each(dialects)('[%s] gateway under database faults', (dialect) => {
  let t: TestDatabase;
  let w: TenantWorld;
  let secret: string;
  const gateways: Gateway[] = [];

  async function start(env: Record<string, string>, database: Database = t.database, ready = true): Promise<{ gateway: Gateway; url: string; logged: string[] }> {
    const logged: string[] = [];
    const config = loadGatewayConfig({ CREDENTIALS_KEY: KEY, GATEWAY_HOST: '127.0.0.1', GATEWAY_PORT: '0', ...env });
    const gateway = createGateway(config, { database, ready, logger: pino({ level: 'info' }, { write: (line: string) => void logged.push(line) }) });
    gateways.push(gateway);
    return { gateway, url: (await gateway.listen()).url, logged };
  }

  const headers = () => ({ Authorization: `Bearer ${secret}`, 'X-Tenant-Id': w.tenant.id, 'Content-Type': 'application/json' });
  const createBody = (reason: string) =>
    JSON.stringify({ location_id: w.locations[0].id, type: 'increase', stock_source: 'good', reason, items: [{ product_id: w.products[0]!.id, quantity: 1, unit_cost: 1 }] });
  const adjustmentsWithReason = async (reason: string) =>
    (await t.database.db.selectFrom('adjustments').select('number').where('reason', '=', reason).execute()).length;

  /** Holds the tenant's ADJ sequence row (SQLite: the whole write lock) until released. */
  async function holdSequence(): Promise<() => Promise<void>> {
    const other = t.connectAgain();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holder = withTransaction(other, async (tx) => {
      await executeWrite(
        tx,
        tx.db
          .insertInto('document_sequences')
          .values({ tenant_id: w.tenant.id, prefix: 'ADJ', last_value: 1000 })
          .onConflict((oc) => oc.columns(['tenant_id', 'prefix']).doUpdateSet({ last_value: 1000 })),
      );
      locked();
      await held;
    });
    await isLocked;
    return async () => {
      release();
      await holder;
    };
  }

  beforeAll(async () => {
    t = await openTestDatabase(dialect, { file: true });
    w = await seedTenantWorld(t.database, { openingGood: '10' });
    secret = (await createApiKey(t.database, w.partner.id, { environment: 'test' }, new Date())).secret;
    await connectTenant(t.database, { partnerId: w.partner.id, tenantId: w.tenant.id, daysConnected: 1, installationType: 'custom' }, new Date());
  });
  afterAll(async () => {
    for (const g of gateways) await g.close();
    await t.cleanup();
  });

  it('answers a write held up by a lock with 503 and Retry-After within the deadline, and never commits it afterwards', async () => {
    // Where a write transaction holds the whole database, the lock wait is bounded by the statement deadline: it answers first there.
    const database = createDatabase({ ...t.config, deadlines: { statementTimeoutMs: capabilitiesOf(dialect).hasRowLocks ? 5000 : 300 } });
    const { url } = await start({ REQUEST_DEADLINE_MS: '600', IDEMPOTENCY_CLAIM_LEASE_MS: '5000' }, database);
    const release = await holdSequence();
    let answer: Answer;
    try {
      answer = await timed(`${url}/api/partner/v1/adjustments`, { method: 'POST', headers: { ...headers(), 'Idempotency-Key': 'held-1' }, body: createBody('held by a lock') });
    } finally {
      await release();
    }
    expect(answer.status).toBe(503);
    expect(answer.body.error?.code).toBe('SERVICE_UNAVAILABLE');
    expect(answer.retryAfter).toBe('2');
    expect(answer.ms).toBeLessThan(2500);
    // The request's work went on once the lock was released; it must not have committed.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await adjustmentsWithReason('held by a lock')).toBe(0);
    // The key was released with the 503: a retry does the work once, and replays it after.
    const retry = await timed(`${url}/api/partner/v1/adjustments`, { method: 'POST', headers: { ...headers(), 'Idempotency-Key': 'held-1' }, body: createBody('held by a lock') });
    expect(retry.status).toBe(201);
    const replay = await timed(`${url}/api/partner/v1/adjustments`, { method: 'POST', headers: { ...headers(), 'Idempotency-Key': 'held-1' }, body: createBody('held by a lock') });
    expect(replay.body.data?.adjustment?.id).toBe(retry.body.data?.adjustment?.id);
    expect(await adjustmentsWithReason('held by a lock')).toBe(1);
    await database.destroy();
  }, 20_000);

  it('stores an Idempotency-Key response in the transaction of its work', async () => {
    const { url } = await start({});
    const created = await timed(`${url}/api/partner/v1/adjustments`, { method: 'POST', headers: { ...headers(), 'Idempotency-Key': 'atomic-1' }, body: createBody('atomic') });
    expect(created.status).toBe(201);
    const record = await t.database.db.selectFrom('idempotency_records').selectAll().where('key', '=', 'atomic-1').executeTakeFirstOrThrow();
    expect(record).toMatchObject({ state: 'complete', status_code: 201, claim_token: null });
    expect((JSON.parse(record.response_body!) as Answer['body']).data?.adjustment?.id).toBe(created.body.data?.adjustment?.id);
  });

  it('before its database is migrated it answers 503 to partners and /readyz, 200 to /healthz; then serves', async () => {
    const { gateway, url } = await start({}, t.database, false);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const notReady = await timed(`${url}/readyz`);
    expect(notReady).toMatchObject({ status: 503, retryAfter: '2' });
    const call = await timed(`${url}/api/partner/v1/tenants`, { headers: headers() });
    expect(call).toMatchObject({ status: 503, retryAfter: '2', body: { error: { code: 'SERVICE_UNAVAILABLE' } } });
    gateway.markReady();
    expect((await timed(`${url}/readyz`)).status).toBe(200);
    expect((await timed(`${url}/api/partner/v1/tenants`, { headers: headers() })).status).toBe(200);
  });

  it('keeps serving with Redis unreachable from the start: rate limits fail open', async () => {
    const silent = await silentServer();
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    closed.close();
    try {
      const { url, logged } = await start({ REDIS_URL: `redis://127.0.0.1:${port}`, RATE_LIMIT_STORE_TIMEOUT_MS: '50' });
      for (let i = 0; i < 3; i += 1) {
        const res = await timed(`${url}/api/partner/v1/tenants`, { headers: headers() });
        expect(res.status).toBe(200);
        expect(res.ms).toBeLessThan(2000);
      }
      expect(logged.filter((line) => line.includes('redis unreachable'))).toHaveLength(1);
    } finally {
      silent.close();
    }
  });

  it('retention: purges records past their time, while a key within 24 h still replays', async () => {
    const { gateway, url, logged } = await start({});
    const fresh = await timed(`${url}/api/partner/v1/adjustments`, { method: 'POST', headers: { ...headers(), 'Idempotency-Key': 'keep-me' }, body: createBody('kept key') });
    expect(fresh.status).toBe(201);
    const old = await claimIdempotencyKey(t.database, w.partner.id, 'expired-key', 'fp', Date.now() - 25 * 60 * 60 * 1000);
    if (old.state !== 'new') throw new Error('a new claim was expected');
    await completeIdempotencyKey(t.database, w.partner.id, 'expired-key', old.token, 201, {});
    const purged = await gateway.retention.runOnce();
    expect(purged.idempotencyRecords).toBe(1);
    const keys = (await t.database.db.selectFrom('idempotency_records').select('key').where('partner_id', '=', w.partner.id).execute()).map((r) => r.key);
    expect(keys).toContain('keep-me');
    expect(keys).not.toContain('expired-key');
    expect(logged.some((line) => line.includes('retention purge deleted expired records') && line.includes('"idempotencyRecords":1'))).toBe(true);
    const replay = await fetch(`${url}/api/partner/v1/adjustments`, { method: 'POST', headers: { ...headers(), 'Idempotency-Key': 'keep-me' }, body: createBody('kept key') });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(((await replay.json()) as Answer['body']).data?.adjustment?.id).toBe(fresh.body.data?.adjustment?.id);
  });
});

describe.runIf(dialects.includes('postgres'))('[postgres] gateway with a database that stopped answering', () => {
  it('answers /readyz 503 within its deadline and partner calls 503 within theirs', async () => {
    const silent = await silentServer();
    // The connect deadline is longer than the request's, so the request deadline is what answers.
    const database = createDatabase({ dialect: 'postgres', url: `postgres://postgres@127.0.0.1:${silent.port}/test`, deadlines: { connectTimeoutMs: 2000, statementTimeoutMs: 5000 } });
    const config = loadGatewayConfig({ CREDENTIALS_KEY: KEY, GATEWAY_HOST: '127.0.0.1', GATEWAY_PORT: '0', READY_TIMEOUT_MS: '300', REQUEST_DEADLINE_MS: '800' });
    const gateway = createGateway(config, { database, logger: pino({ level: 'silent' }) });
    const { url } = await gateway.listen();
    try {
      const ready = await timed(`${url}/readyz`);
      expect(ready).toMatchObject({ status: 503, retryAfter: '2' });
      expect(ready.ms).toBeLessThan(1300);
      const call = await timed(`${url}/api/partner/v1/tenants`, { headers: { Authorization: 'Bearer pk_test_whatever_key_that_needs_a_lookup_000' } });
      expect(call).toMatchObject({ status: 503, retryAfter: '2', body: { error: { code: 'SERVICE_UNAVAILABLE' } } });
      expect(call.ms).toBeLessThan(1800);
    } finally {
      await gateway.close();
      silent.close();
      await database.destroy().catch(() => undefined);
    }
  }, 20_000);
});
