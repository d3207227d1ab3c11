// PostgreSQL faults against the real processes (docs/errors.md#retry-after, docs/operating-guarantees.md#database-outages): the internal API, the
// gateway and a webhook worker each reach PostgreSQL through their own TCP fault proxy, with
// short deadlines, while steady traffic runs. Failover (pg_terminate_backend), outage (cut), stall,
// reset, a table lock, a start while the database is down, and a worker cut off: every call is
// answered in bounded time (503 SERVICE_UNAVAILABLE with Retry-After when it cannot be served),
// every process survives and serves again by itself, and no acknowledged write is lost, doubled or
// half-applied (audited in the database, ledger checked, after every scenario).
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { e2eDialects } from '../harness/e2e-database.js';
import { showOutputOnFailure } from '../harness/failure-output.js';
import { gatewayClient } from '../harness/gateway-client.js';
import { pollUntil } from '../harness/poll-until.js';
import { type WebhookReceiver, startWebhookReceiver } from '../harness/webhook-receiver.js';
import { printFaultTable } from './fault-report.js';
import {
  type ProbeResult,
  type Recovery,
  expectFaultContained,
  expectRefusalsDocumented,
  expectUnavailableProbes,
  probeHttp,
  refusalSamples,
  probeUnavailability,
  runScenario,
} from './fault-scenario.js';
import { FAULT_SETTINGS, type FaultStack, MARGIN_MS, startFaultStack } from './fault-stack.js';
import { type TrafficRecord, type WriteIntent, isSuccess } from './traffic-generator.js';

const BOUND_MS = FAULT_SETTINGS.requestDeadlineMs + MARGIN_MS;
const dialects = await e2eDialects();

// Only PostgreSQL has connections to cut; the SQLite counterpart is sqlite-faults.test.ts.
describe.skipIf(!dialects.includes('postgres'))('[postgres] database faults against the real processes', () => {
  let stack: FaultStack;
  /** One 503 per operation and scenario, checked against the contract at the end. */
  const refusals: TrafficRecord[] = [];

  beforeAll(async () => {
    stack = await startFaultStack('postgres', { proxied: true, worker: true });
  });
  afterAll(async () => {
    try {
      printFaultTable();
    } finally {
      await stack?.stop();
    }
  });
  showOutputOnFailure(() => stack?.services() ?? [], 40);
  afterEach((context) => {
    if (context.task.result?.state === 'fail' && stack?.worker) console.error(stack.worker.describe(30));
  });

  it('failover: pg_terminate_backend of every backend of the three processes, twice, under traffic', async () => {
    const terminated: number[] = [];
    const outcome = await runScenario({
      fault: 'failover: pg_terminate_backend ×2',
      label: 'failover',
      stack,
      holdMs: 0,
      inject: async () => {
        terminated.push(await stack.terminateBackends());
        await sleep(1500);
        terminated.push(await stack.terminateBackends());
      },
      heal: async () => undefined,
    });
    refusals.push(...refusalSamples(outcome));
    expect(terminated.every((n) => n > 0), `backends terminated each time: ${terminated.join(', ')}`).toBe(true);
    await expectFaultContained(outcome, { latencyBoundMs: BOUND_MS, unavailable: true });
    expect(outcome.firstTrafficSuccessMs, 'a 2xx soon after the second termination').not.toBeNull();
  });

  it('outage: every database connection cut for 4 s under traffic, then back', async () => {
    const outcome = await runScenario({
      fault: 'outage: proxy cut 4 s',
      label: 'outage',
      stack,
      holdMs: 4000,
      inject: () => stack.databaseFault('cut'),
      whileFaulted: () => probeUnavailability(stack, stack.gateway),
      heal: () => stack.databaseFault('pass'),
    });
    refusals.push(...refusalSamples(outcome));
    expectUnavailableProbes(outcome.during);
    await expectFaultContained(outcome, { latencyBoundMs: BOUND_MS, unavailable: true });
    expect(outcome.row.statusesDuringFault['503'], 'the outage was felt').toBeGreaterThan(0);
  });

  it('stall: the database holds every byte for 4 s; no call hangs, all serve again after', async () => {
    const outcome = await runScenario({
      fault: 'stall: proxy stall 4 s',
      label: 'stall',
      stack,
      holdMs: 4000,
      inject: () => stack.databaseFault('stall'),
      whileFaulted: () => probeUnavailability(stack, stack.gateway, 1000),
      heal: () => stack.databaseFault('pass'),
    });
    refusals.push(...refusalSamples(outcome));
    expectUnavailableProbes(outcome.during);
    await expectFaultContained(outcome, { latencyBoundMs: BOUND_MS, unavailable: true });
    expect(outcome.row.statusesDuringFault['503'], 'the stall was felt').toBeGreaterThan(0);
  });

  it('reset: every database connection dropped at once; at most a few 503s, then all 2xx', async () => {
    const outcome = await runScenario({
      fault: 'reset: every connection dropped',
      label: 'reset',
      stack,
      holdMs: 0,
      inject: () => stack.databaseFault('reset'),
      heal: async () => undefined,
    });
    refusals.push(...refusalSamples(outcome));
    await expectFaultContained(outcome, { latencyBoundMs: BOUND_MS, unavailable: true });
    const refused = outcome.records.filter((r) => !isSuccess(r.status)).length;
    // The requests in flight at the reset (four gateway loops, one internal loop), and pooled connections found dead on first use.
    expect(refused, 'at most a few 503s').toBeLessThanOrEqual(10);
  });

  it('lock: adjustments held ACCESS EXCLUSIVE for 3 s; adjustment calls answer 503 within the statement timeout, never hang', async () => {
    const holder = new pg.Client({ connectionString: stack.database.url, application_name: 'pits-fault-suite-lock' });
    await holder.connect();
    let lockedAt = Number.NaN;
    let releasedAt = Number.NaN;
    try {
      const outcome = await runScenario({
        fault: 'lock: LOCK TABLE adjustments 3 s',
        label: 'lock',
        stack,
        holdMs: 3000,
        inject: async () => {
          await holder.query('begin');
          await holder.query("set local lock_timeout = '5s'");
          await holder.query('lock table adjustments in access exclusive mode');
          lockedAt = performance.now();
        },
        heal: async () => {
          releasedAt = performance.now();
          await holder.query('rollback');
        },
      });
      refusals.push(...refusalSamples(outcome));
      await expectFaultContained(outcome, { latencyBoundMs: BOUND_MS, unavailable: true });
      // Every gateway call touches adjustments: one sent while the lock held is refused after the statement timeout, not the request deadline.
      const underLock = outcome.records.filter((r) => r.target === 'gateway' && r.startedAt >= lockedAt && r.endedAt <= releasedAt);
      expect(underLock.length, 'calls were made while the lock held').toBeGreaterThan(0);
      expect(underLock.filter((r) => r.status !== 503).map((r) => `${r.op} → ${r.status}`), 'every adjustment call under the lock: 503').toEqual([]);
      // A create can wait twice: for the tenant's document-sequence row, which an earlier create
      // holds while it waits out its own statement timeout on the lock, and then on the lock itself.
      // The request deadline bounds that chain; every other call waits once.
      const boundOf = (op: string) => (op === 'create' ? FAULT_SETTINGS.requestDeadlineMs : FAULT_SETTINGS.statementTimeoutMs) + MARGIN_MS;
      const slow = underLock.filter((r) => r.latencyMs > boundOf(r.op)).map((r) => `${r.op} ${Math.round(r.latencyMs)} ms`);
      expect(slow, 'refused within DB_STATEMENT_TIMEOUT_MS + margin').toEqual([]);
    } finally {
      await holder.end();
    }
  });

  it('start while the database is down: a new gateway is up (healthz) but not ready, refuses with 503, then migrates and serves without restart', async () => {
    const proxy = await stack.newDatabaseProxy();
    await proxy.cut();
    const late = await stack.startGateway({ name: 'gateway-late', databaseProxy: proxy, readyPath: '/healthz' });
    const auth = { authorization: `Bearer ${stack.partner.key}`, 'x-tenant-id': stack.tenant };
    const outcome = await runScenario({
      fault: 'start while the database is down (cut 3 s)',
      label: 'late',
      stack,
      gateway: late,
      faultedFromStart: true,
      holdMs: 3000,
      inject: async () => undefined,
      whileFaulted: async (): Promise<ProbeResult[]> =>
        Promise.all([probeHttp('healthz', `${late.url}/healthz`), probeHttp('readyz', `${late.url}/readyz`), probeHttp('partner read', `${late.url}/api/engine/v1/adjustments?per_page=1`, auth)]),
      heal: () => proxy.pass(),
    });
    refusals.push(...refusalSamples(outcome));
    const seen = Object.fromEntries(outcome.during.map((p) => [p.what, p]));
    expect(seen['healthz']?.status, 'the process is up').toBe(200);
    expect(seen['readyz']?.status, 'not ready without its database').toBe(503);
    expect(seen['readyz']!.ms).toBeLessThanOrEqual(FAULT_SETTINGS.readyTimeoutMs + MARGIN_MS);
    expect({ status: seen['partner read']?.status, code: seen['partner read']?.code }).toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    expect(seen['partner read']?.retryAfter).toMatch(/^[1-9]\d*$/);
    await expectFaultContained(outcome, { latencyBoundMs: BOUND_MS, unavailable: true });
    expect(late.output().some((line) => line.includes('database migrated; serving partner calls')), 'it migrated once the database was back').toBe(true);
  });

  describe('webhook worker', () => {
    let receiver: WebhookReceiver;
    beforeAll(async () => {
      receiver = await startWebhookReceiver('faults');
    });
    afterAll(() => receiver?.close());

    it('cut off from the database while adjustments change status: it survives, and after pass() the deliveries arrive', async () => {
      const worker = stack.worker!;
      const proxy = stack.databaseProxies.get('webhook-worker')!;
      const registered = await gatewayClient(stack.gateway.url).post(
        '/api/partner/v1/webhooks',
        { url: receiver.url, event_types: ['adjustment.status_changed'], description: 'fault suite' },
        { key: stack.partner.key },
      );
      expect(registered.status, registered.text).toBe(201);
      let cutSettledAt = Number.NaN;
      /** Adjustment numbers approved (acknowledged) from the moment the worker lost its database on. */
      const approvedSinceCut = (writes: readonly WriteIntent[]) =>
        writes
          .filter((w) => w.op === 'approve' && w.attempts.some((a) => isSuccess(a.status) && a.startedAt >= cutSettledAt))
          .map((w) => w.number!);
      const delivered = (number: string) => receiver.arrivals.some((a) => a.body.includes(`"${number}"`));
      let arrivedBeforePass: string[] = [];

      const outcome = await runScenario({
        fault: 'webhook worker: its database cut 4 s',
        label: 'webhook',
        stack,
        holdMs: 4000,
        inject: async () => {
          await proxy.cut();
          await pollUntil('the worker to notice the database is gone', 10_000, () =>
            worker.output().some((line) => line.includes('the database is unavailable; backing off')) ? true : undefined,
          );
          cutSettledAt = performance.now();
        },
        heal: async () => {
          arrivedBeforePass = receiver.arrivals.map((a) => a.body);
          await proxy.pass();
        },
        recover: async (since, traffic): Promise<Recovery> => {
          const numbers = approvedSinceCut(traffic.writes);
          expect(numbers.length, 'adjustments were approved while the worker was cut off').toBeGreaterThan(0);
          const arrived = await pollUntil(`deliveries for ${numbers.join(', ')}`, 20_000, () => (numbers.every(delivered) ? performance.now() - since : undefined), 50).catch(() => null);
          return { ms: arrived, byProbe: { 'deliveries of the events made during the cut': arrived } };
        },
      });
      // The gateway never lost its own database: every partner call was served.
      await expectFaultContained(outcome, { latencyBoundMs: BOUND_MS, unavailable: false });
      const numbers = approvedSinceCut(outcome.writes);
      expect(numbers.filter((n) => arrivedBeforePass.some((body) => body.includes(`"${n}"`))), 'nothing was delivered while the worker was cut off').toEqual([]);
      // Approvals made in the last moments of the traffic may still be on their way: wait for them, bounded.
      await pollUntil('every delivery', 15_000, () => (numbers.every(delivered) ? true : undefined), 50).catch(() => undefined);
      expect(numbers.filter((n) => !delivered(n)), 'every event made during the cut was delivered after pass()').toEqual([]);
      expect(worker.output().some((line) => line.includes('webhook worker resumed')), 'the worker says it resumed').toBe(true);
    });
  });

  // Last: it reads the 503s every scenario above collected.
  it('every 503 a partner saw is the one the contract documents (status, envelope, Retry-After)', async () => {
    await expectRefusalsDocumented(refusals);
  });
});
