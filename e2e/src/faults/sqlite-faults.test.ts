// SQLite's fault (docs/operating-guarantees.md#database-outages): another connection holds the database's write lock. The
// processes share one file, so there is no connection to cut; what can happen is a writer that
// does not let go. Writes must answer 503 within the busy timeout (DB_STATEMENT_TIMEOUT_MS), reads
// keep answering from the WAL, and every write goes through once the lock is released, with no
// acknowledged write lost, doubled or half-applied.
import { setTimeout as sleep } from 'node:timers/promises';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eDialects } from '../harness/e2e-database.js';
import { showOutputOnFailure } from '../harness/failure-output.js';
import { printFaultTable, recordFaultRow } from './fault-report.js';
import { ANSWER_TIMEOUT_MS, describeRecord, expectFaultContained, expectRefusalsDocumented, measureRecovery, refusalSamples, runScenario } from './fault-scenario.js';
import { FAULT_SETTINGS, type FaultStack, MARGIN_MS, startFaultStack } from './fault-stack.js';
import { type TrafficRecord, createIntent, isSuccess, markerOf, retryUnacknowledged, sendIntent, sendToGateway } from './traffic-generator.js';
import { auditWrites } from './write-audit.js';

const dialects = await e2eDialects();

describe.skipIf(!dialects.includes('sqlite'))('[sqlite] database faults against the real processes', () => {
  let stack: FaultStack;
  const refusals: TrafficRecord[] = [];

  beforeAll(async () => {
    stack = await startFaultStack('sqlite', { proxied: false });
  });
  afterAll(async () => {
    try {
      printFaultTable();
    } finally {
      await stack?.stop();
    }
  });
  showOutputOnFailure(() => stack?.services() ?? [], 40);

  it('write lock: another connection holds BEGIN IMMEDIATE for 3 s; writes answer 503 within the busy timeout, reads keep answering 200, then all 2xx', async () => {
    let holder: BetterSqlite3.Database | undefined;
    let lockedAt = Number.NaN;
    let releasedAt = Number.NaN;
    const outcome = await runScenario({
      fault: 'sqlite: BEGIN IMMEDIATE held 3 s',
      label: 'sqlitelock',
      stack,
      holdMs: 3000,
      inject: async () => {
        holder = new BetterSqlite3(stack.database.url);
        holder.pragma('busy_timeout = 5000');
        holder.exec('begin immediate');
        lockedAt = performance.now();
      },
      heal: async () => {
        releasedAt = performance.now();
        if (holder?.inTransaction) holder.exec('rollback');
        holder?.close();
      },
    });
    refusals.push(...refusalSamples(outcome));
    await expectFaultContained(outcome, { latencyBoundMs: FAULT_SETTINGS.requestDeadlineMs + MARGIN_MS, unavailable: true });

    const underLock = outcome.records.filter((r) => r.startedAt >= lockedAt && r.endedAt <= releasedAt);
    const writes = underLock.filter((r) => r.op === 'create' || r.op === 'approve');
    const reads = underLock.filter((r) => r.op !== 'create' && r.op !== 'approve');
    expect(writes.length, 'writes were sent while the lock held').toBeGreaterThan(0);
    expect(reads.length, 'reads were sent while the lock held').toBeGreaterThan(0);
    expect(writes.filter((r) => r.status !== 503).map((r) => `${r.op} → ${r.status}`), 'every write under the lock: 503').toEqual([]);
    const slow = writes.filter((r) => r.latencyMs > FAULT_SETTINGS.statementTimeoutMs + MARGIN_MS).map((r) => `${r.op} ${Math.round(r.latencyMs)} ms`);
    expect.soft(slow, 'writes refused within DB_STATEMENT_TIMEOUT_MS (the busy timeout) + margin').toEqual([]);
    const slowest = (rs: TrafficRecord[]) => Math.round(Math.max(0, ...rs.map((r) => r.latencyMs)));
    console.log(`[sqlite lock] under the lock: ${writes.length} writes (slowest ${slowest(writes)} ms), ${reads.length} reads (slowest ${slowest(reads)} ms)`);
    expect(reads.filter((r) => !isSuccess(r.status)).map((r) => `${r.op} ${r.path} → ${r.status}`), 'every read under the lock: 200 (WAL)').toEqual([]);
  });

  it('four writes at once under a held write lock: each answers 503 within the busy timeout + margin, a read beside them answers at once, all four go through afterwards', async () => {
    const target = { gatewayUrl: stack.gateway.url, key: stack.partner.key, tenant: stack.tenant };
    const intents = [0, 1, 2, 3].map((i) => createIntent(`burst-c${i}`, stack.locationId, stack.products[i % stack.products.length]!.id));
    const holder = new BetterSqlite3(stack.database.url);
    let read: TrafficRecord | undefined;
    const lockedAt = performance.now();
    try {
      holder.exec('begin immediate');
      const sending = intents.map((intent) => sendIntent(target, intent, 'load', ANSWER_TIMEOUT_MS));
      // The read goes out once the writers are waiting for the lock.
      await sleep(150);
      read = (await sendToGateway(target, { op: 'list', method: 'GET', path: '/api/engine/v1/adjustments?per_page=1' }, 'load', ANSWER_TIMEOUT_MS)).record;
      await Promise.all(sending);
    } finally {
      if (holder.inTransaction) holder.exec('rollback');
      holder.close();
    }
    const releasedAt = performance.now();
    const recovery = await measureRecovery(stack, [stack.gateway], releasedAt);
    const writes = intents.map((i) => i.attempts[0]!);
    const retried = await retryUnacknowledged(target, intents, { notBefore: releasedAt + FAULT_SETTINGS.claimLeaseMs + 200, answerTimeoutMs: ANSWER_TIMEOUT_MS });
    const audit = await auditWrites(stack.inspector, stack.tenant, markerOf('burst-'), intents);
    const all = [...(read ? [read] : []), ...writes];
    const statuses: Record<string, number> = {};
    for (const r of all) statuses[String(r.status)] = (statuses[String(r.status)] ?? 0) + 1;
    recordFaultRow({
      fault: 'sqlite: 4 writes at once under BEGIN IMMEDIATE',
      dialect: 'sqlite',
      sent: all.length,
      writes: intents.length,
      acknowledged: writes.filter((r) => isSuccess(r.status)).length,
      retried: retried.length,
      lost: audit.lost.length,
      doubled: audit.doubled.length,
      halfApplied: audit.halfApplied.length,
      statusesDuringFault: statuses,
      maxLatencyDuringFaultMs: Math.max(...all.map((r) => r.latencyMs)),
      recoverMs: recovery.ms,
      recordedAt: new Date().toISOString(),
    });
    console.log(`[sqlite burst] lock held ${Math.round(releasedAt - lockedAt)} ms: ${all.map(describeRecord).join('; ')}`);

    // A writer waiting for the lock must not hold up anybody else: each refusal comes after its own busy timeout, not after the others'.
    expect.soft(writes.map(describeRecord).filter((_, i) => writes[i]!.status !== 503 || writes[i]!.latencyMs > FAULT_SETTINGS.statementTimeoutMs + MARGIN_MS), 'every write: 503 within DB_STATEMENT_TIMEOUT_MS + margin').toEqual([]);
    expect.soft(read?.status, 'the read beside them: 200 (WAL)').toBe(200);
    expect.soft(read?.latencyMs, `the read beside them answers within ${MARGIN_MS} ms, not after the writers' waits`).toBeLessThanOrEqual(MARGIN_MS);
    expect.soft(recovery.ms, 'the gateway serves again after the release').not.toBeNull();
    expect(audit, 'after the lock, every write went through once').toEqual({ lost: [], doubled: [], halfApplied: [], unresolved: [] });
  });

  // Last: it reads the 503s the scenario above collected.
  it('every 503 a partner saw is the one the contract documents (status, envelope, Retry-After)', async () => {
    await expectRefusalsDocumented(refusals);
  });
});
