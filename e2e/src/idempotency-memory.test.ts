// Resident memory of a gateway on SQLite under keyed creates (docs/benchmarks.md#idempotency-memory-under-keyed-creates):
// a child gateway, a bounded count of POST /adjustments each with a fresh Idempotency-Key, and its
// resident memory (VmRSS, from /proc) after a warm-up and at the end. V8's own heap heuristics let
// it climb about 8 KB per create until the first full collection; with the gateway's bounded heap
// growth it stays flat. Loopback only; counts, not timings, decide the outcome.
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createDatabase, migrateOrThrow } from '@pits/persistence';
import { connectTenant, seedTenantWorld } from '@pits/persistence/testing';
import type { ChildService } from './harness/child-service.js';
import { startGatewayProcess } from './harness/start-gateway.js';

const WARM_UP = 2_000;
const CREATES = 4_000;
const CONCURRENCY = 4;
/** Growth allowed after the warm-up: SQLite's page cache (16 MB) fills as the file grows, plus slack. V8's own heuristics grew 24 to 34 MB over the same run. */
const BOUND_MB = 18;

const linux = process.platform === 'linux';

/** VmRSS of `pid` in MB; throws when /proc does not show it (a 0 would pass any bound). */
function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
  if (kb === undefined) throw new Error(`no VmRSS line in /proc/${pid}/status (has the gateway exited?)`);
  return Number(kb) / 1024;
}

describe.skipIf(!linux)('resident memory of a SQLite gateway under keyed creates', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pits-e2e-soak-'));
  const file = join(dir, 'soak.sqlite');
  let gateway: ChildService;
  let key = '';
  let tenantId = '';
  let body = '';

  beforeAll(async () => {
    const database = createDatabase({ dialect: 'sqlite', location: file });
    await migrateOrThrow(database);
    const w = await seedTenantWorld(database, { openingGood: '10' });
    key = (await createApiKey(database, w.partner.id, { environment: 'test' }, new Date())).secret;
    await connectTenant(database, { partnerId: w.partner.id, tenantId: w.tenant.id, daysConnected: 1, installationType: 'custom' }, new Date());
    await database.destroy();
    tenantId = w.tenant.id;
    body = JSON.stringify({ location_id: w.locations[0]!.id, type: 'increase', stock_source: 'good', reason: 'count', items: [{ product_id: w.products[0]!.id, quantity: 1, unit_cost: 0.1 }] });
    gateway = await startGatewayProcess({
      databaseUrl: file,
      credentialsKey: 'c'.repeat(64),
      name: 'gateway-soak',
      env: { LOG_LEVEL: 'warn', RATE_LIMIT_SMALL: '1000000', RATE_LIMIT_OPERATION: '1000000', ...(process.env['SOAK_HEAP_GROWING_PERCENT'] ? { GATEWAY_HEAP_GROWING_PERCENT: process.env['SOAK_HEAP_GROWING_PERCENT'] } : {}) },
    });
  }, 60_000);

  afterAll(async () => {
    await gateway?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function creates(from: number, count: number): Promise<void> {
    let next = from;
    const end = from + count;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < end) {
          const n = next++;
          const res = await fetch(`${gateway.url}/api/partner/v1/adjustments`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'x-tenant-id': tenantId, 'content-type': 'application/json', 'idempotency-key': `soak-${n}` },
            body,
          });
          if (res.status !== 201) throw new Error(`create ${n}: ${res.status} ${await res.text()}`);
          await res.arrayBuffer();
        }
      }),
    );
  }

  it(`stays within ${BOUND_MB} MB of its size after ${WARM_UP} creates over ${CREATES} more`, async () => {
    await creates(0, WARM_UP);
    const warm = rssMb(gateway.pid);
    let peak = warm;
    for (let done = 0; done < CREATES; done += 500) {
      await creates(WARM_UP + done, 500);
      peak = Math.max(peak, rssMb(gateway.pid));
    }
    const growth = peak - warm;
    console.log(`[soak] resident memory after warm-up ${warm.toFixed(1)} MB, peak ${peak.toFixed(1)} MB over ${CREATES} keyed creates (+${growth.toFixed(1)} MB)`);
    expect(growth, `resident memory grew ${growth.toFixed(1)} MB over ${CREATES} keyed creates`).toBeLessThan(BOUND_MB);
  }, 180_000);
});
