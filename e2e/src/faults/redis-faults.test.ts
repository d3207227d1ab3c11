// Redis faults (docs/rate-limits.md#when-the-store-fails, docs/operating-guarantees.md): the gateway's rate-limit counters live in Redis, reached
// through a TCP fault proxy. While Redis is cut, partner calls are still served (the limiter fails
// open) within the store's timeout, and a gateway started meanwhile starts and serves; after
// pass() the gateways share their counters again. The database is never touched by the fault, so
// one dialect is enough: the first this run tests.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildService } from '../harness/child-service.js';
import { e2eDialects } from '../harness/e2e-database.js';
import { showOutputOnFailure } from '../harness/failure-output.js';
import { redisForTests } from '../harness/redis-availability.js';
import { printFaultTable } from './fault-report.js';
import { type ProbeResult, type Recovery, expectFaultContained, probeHttp, runScenario } from './fault-scenario.js';
import { FAULT_SETTINGS, type FaultStack, MARGIN_MS, startFaultStack } from './fault-stack.js';

const redis = await redisForTests();
const [dialect] = await e2eDialects();
const READ = '/api/engine/v1/adjustments?per_page=1';

interface CountedRead {
  status: number;
  /** X-RateLimit-Remaining; absent when the call was not counted (the limiter failed open). */
  remaining?: number;
  reset?: string;
}

/** One partner read through `gateway`: its status and the rate-limit headers it carried. */
async function countedRead(gateway: ChildService, key: string, tenant: string): Promise<CountedRead> {
  const res = await fetch(`${gateway.url}${READ}`, { headers: { authorization: `Bearer ${key}`, 'x-tenant-id': tenant }, signal: AbortSignal.timeout(5000) });
  await res.body?.cancel();
  const remaining = res.headers.get('x-ratelimit-remaining');
  const reset = res.headers.get('x-ratelimit-reset');
  return { status: res.status, ...(remaining !== null ? { remaining: Number(remaining) } : {}), ...(reset !== null ? { reset } : {}) };
}

/**
 * Polls until reads alternating over `gateways` (A, B, A, B) are all counted and X-RateLimit-Remaining
 * falls with every one of them: the counters are shared again. Other traffic may count in between,
 * so the fall is strict, not by exactly one.
 */
async function sharedCounters(stack: FaultStack, gateways: readonly ChildService[], since: number, timeoutMs = 20_000): Promise<Recovery> {
  const deadline = since + timeoutMs;
  while (performance.now() < deadline) {
    const seen: CountedRead[] = [];
    for (let i = 0; i < 4; i += 1) seen.push(await countedRead(gateways[i % gateways.length]!, stack.partner.key, stack.tenant));
    const counted = seen.every((s) => s.status === 200 && s.remaining !== undefined && s.reset === seen[0]!.reset);
    if (counted && seen.every((s, i) => i === 0 || s.remaining! < seen[i - 1]!.remaining!)) {
      const ms = performance.now() - since;
      return { ms, byProbe: { 'counters shared across both gateways': ms } };
    }
    await sleep(100);
  }
  return { ms: null, byProbe: { 'counters shared across both gateways': null } };
}

describe.skipIf('skip' in redis || dialect === undefined)(`[${dialect}] Redis faults against the real gateways`, () => {
  let stack: FaultStack;

  beforeAll(async () => {
    stack = await startFaultStack(dialect!, { proxied: false, redisUrl: (redis as { url: string }).url });
  });
  afterAll(async () => {
    try {
      printFaultTable();
    } finally {
      await stack?.stop();
    }
  });
  showOutputOnFailure(() => stack?.services() ?? [], 40);

  it('Redis cut for 4 s: partner calls still 2xx within the store timeout, a gateway started meanwhile serves, and after pass() the counters are shared again', async () => {
    const proxy = stack.redisProxy!;
    const before = await countedRead(stack.gateway, stack.partner.key, stack.tenant);
    expect(before.remaining, 'before the cut, calls are counted in Redis').toBeTypeOf('number');
    let late: ChildService | undefined;
    let duringCut: CountedRead | undefined;
    const auth = { authorization: `Bearer ${stack.partner.key}`, 'x-tenant-id': stack.tenant };

    const outcome = await runScenario({
      fault: 'redis: proxy cut 4 s',
      label: 'redis',
      stack,
      holdMs: 4000,
      inject: () => proxy.cut(),
      whileFaulted: async (): Promise<ProbeResult[]> => {
        await sleep(300);
        duringCut = await countedRead(stack.gateway, stack.partner.key, stack.tenant);
        late = await stack.startGateway({ name: 'gateway-redis-late', redis: true });
        return [await probeHttp('late gateway partner read', `${late.url}${READ}`, auth)];
      },
      heal: () => proxy.pass(),
      recover: (since) => sharedCounters(stack, [stack.gateway, late!], since),
    });
    await expectFaultContained(outcome, { latencyBoundMs: FAULT_SETTINGS.rateLimitStoreTimeoutMs + MARGIN_MS, unavailable: false });
    expect(duringCut, 'while Redis is cut, a call is served uncounted (the limiter fails open)').toEqual({ status: 200 });
    expect(outcome.during.map((p) => `${p.what} → ${p.status}`), 'a gateway started while Redis is cut serves').toEqual(['late gateway partner read → 200']);
    expect(late?.output().some((line) => line.includes('redis unreachable; rate limits fail open')), 'the late gateway says it fails open').toBe(true);
  });
});
