// Resident memory of a gateway process under keyed creates (docs/benchmarks.md#idempotency-memory-under-keyed-creates):
// one gateway child on a SQLite file (or PostgreSQL), `count` POST /adjustments with a fresh
// Idempotency-Key each, at most `concurrency` in flight, and the child's resident memory (VmRSS,
// read from /proc) sampled as it goes. Bounded in count; loopback only.
//
//   npm run bench:idempotency-soak -- [count=40000] [keyed|unkeyed] [sqlite|postgres]
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Database, createApiKey, createDatabase, migrateOrThrow } from '@pits/persistence';
import { connectTenant, seedTenantWorld } from '@pits/persistence/testing';
import { type Child, ROOT, createPostgresDatabase, dropPostgresDatabase, freePort, startNode } from './bench-harness.js';

const countArgument = process.argv[2] ?? '40000';
const count = Number(countArgument);
if (!/^\d+$/.test(countArgument) || !Number.isSafeInteger(count) || count < 1) {
  throw new Error(`count: a positive whole number of creates, got "${countArgument}" (npm run bench:idempotency-soak -- [count=40000] [keyed|unkeyed] [sqlite|postgres])`);
}
const keyed = (process.argv[3] ?? 'keyed') === 'keyed';
const dialect = process.argv[4] === 'postgres' ? 'postgres' : 'sqlite';
const concurrency = 4;
const adminUrl = process.env['TEST_POSTGRES_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

const dir = mkdtempSync(join(tmpdir(), 'pits-soak-'));
// The harness drops a database of this name before creating it: the random part keeps two runs
// (or a pid reused since a run that was killed) from dropping each other's.
const pgName = `pits_soak_${process.pid}_${randomBytes(4).toString('hex')}`;
let pgCreated = false;
let database: Database | undefined;
let child: Child | undefined;
const samples: { done: number; rss: number }[] = [];
let seconds = 0;
// Whatever fails (a create answered other than 201, the child not coming up), the child is
// stopped, the PostgreSQL database dropped and the temporary directory removed.
try {
  let url: string;
  if (dialect === 'sqlite') url = join(dir, 'soak.sqlite');
  else {
    url = await createPostgresDatabase(adminUrl, pgName);
    pgCreated = true;
  }
  database = createDatabase(dialect === 'sqlite' ? { dialect, location: url } : { dialect, url, poolSize: 2 });
  await migrateOrThrow(database);
  const w = await seedTenantWorld(database, { openingGood: '10' });
  const key = (await createApiKey(database, w.partner.id, { environment: 'test' }, new Date())).secret;
  await connectTenant(database, { partnerId: w.partner.id, tenantId: w.tenant.id, daysConnected: 1, installationType: 'custom' }, new Date());
  await database.destroy();
  database = undefined;

  // Rate limits count in memory: this measures the gateway, not a Redis client.
  delete process.env['REDIS_URL'];
  const port = await freePort();
  const gateway = await startNode([join(ROOT, 'apps/gateway/dist/main.js')], {
    DATABASE_URL: url,
    CREDENTIALS_KEY: 'c'.repeat(64),
    GATEWAY_HOST: '127.0.0.1',
    GATEWAY_PORT: String(port),
    LOG_LEVEL: 'warn',
    RATE_LIMIT_SMALL: '1000000',
    RATE_LIMIT_OPERATION: '1000000',
  }, port, '/readyz');
  child = gateway;
  const rssMb = (): number => {
    const status = readFileSync(`/proc/${gateway.process.pid}/status`, 'utf8');
    const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
    if (kb === undefined) throw new Error(`no VmRSS line in /proc/${gateway.process.pid}/status`);
    return Number(kb) / 1024;
  };

  const body = JSON.stringify({ location_id: w.locations[0]!.id, type: 'increase', stock_source: 'good', reason: 'count', items: [{ product_id: w.products[0]!.id, quantity: 1, unit_cost: 0.1 }] });
  const headers = (n: number): Record<string, string> => ({
    Authorization: `Bearer ${key}`,
    'X-Tenant-Id': w.tenant.id,
    'Content-Type': 'application/json',
    ...(keyed ? { 'Idempotency-Key': `soak-${n}` } : {}),
  });
  let next = 0;
  let done = 0;
  let failed = false;
  const step = Math.max(1, Math.floor(count / 10));
  samples.push({ done: 0, rss: rssMb() });
  const started = Date.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count && !failed) {
        const n = next++;
        const res = await fetch(`${gateway.url}/api/partner/v1/adjustments`, { method: 'POST', headers: headers(n), body });
        if (res.status !== 201) {
          failed = true;
          throw new Error(`request ${n}: ${res.status} ${await res.text()}`);
        }
        await res.arrayBuffer();
        done += 1;
        if (done % step === 0) samples.push({ done, rss: rssMb() });
      }
    }),
  );
  seconds = (Date.now() - started) / 1000;
} finally {
  await child?.stop();
  await database?.destroy();
  if (pgCreated) await dropPostgresDatabase(adminUrl, pgName);
  rmSync(dir, { recursive: true, force: true });
}

console.log(`${dialect}, ${keyed ? 'keyed' : 'unkeyed'} creates: ${count} in ${seconds.toFixed(0)} s`);
for (const s of samples) console.log(`${String(s.done).padStart(7)}  rss ${s.rss.toFixed(1)} MB`);
const warm = samples[1]!;
const last = samples.at(-1)!;
if (last.done > warm.done) {
  console.log(`growth after the first ${warm.done}: ${(last.rss - warm.rss).toFixed(1)} MB, ${(((last.rss - warm.rss) * 1024 * 1024) / (last.done - warm.done)).toFixed(0)} bytes per create`);
} else {
  console.log(`growth: too few creates (${count}) to measure any after the first sample`);
}
