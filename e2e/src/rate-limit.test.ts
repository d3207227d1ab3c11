// Rate limits across processes (docs/rate-limits.md#several-processes): two gateway processes sharing one Redis accept at
// most the tier limit per window between them; without Redis each process counts in its own
// memory and enforces the limit on its own. And the budget per address of requests without a valid
// key (docs/rate-limits.md#without-a-valid-key).
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildService } from './harness/child-service.js';
import { expectError } from './harness/error-envelope.js';
import { showOutputOnFailure } from './harness/failure-output.js';
import { type GatewayClient, gatewayClient } from './harness/gateway-client.js';
import { type GatewayResponse, readGatewayResponse } from './harness/gateway-response.js';
import { expectContract } from './harness/openapi-contract.js';
import { onboardPartner } from './harness/partner-onboarding.js';
import { nextWindow, roomInWindow } from './harness/rate-window.js';
import { redisForTests } from './harness/redis-availability.js';
import { type ServiceStack, startStack } from './harness/service-stack.js';
import { stopAfterLedgerCheck } from './harness/ledger-check.js';

const LIMIT = 30;
const WINDOW_MS = 60_000;
const REQUESTS = 100;
const TENANTS = '/api/partner/v1/tenants';
const LIMITED_ENV = { RATE_LIMIT_SMALL: String(LIMIT), RATE_LIMIT_WINDOW_MS: String(WINDOW_MS) };

const redis = await redisForTests();

interface Outcome {
  process: number;
  res: GatewayResponse;
}

/**
 * `count` requests spread round-robin over `targets`, at most `concurrency` in flight. The contract
 * check (CPU-heavy in this process) is left to `checkContract` after the burst, so it does not slow
 * the gateways' machine while they count.
 */
async function burst(targets: GatewayClient[], key: string, count: number, concurrency = 8, offset = 0): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const n = next;
      next += 1;
      const process = (n + offset) % targets.length;
      const { url } = targets[process]!;
      const res = await fetch(`${url}${TENANTS}`, { headers: { authorization: `Bearer ${key}` } });
      outcomes.push({ process, res: await readGatewayResponse(url, 'GET', TENANTS, res) });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return outcomes;
}

async function checkContract(outcomes: Outcome[]): Promise<void> {
  for (const { res } of outcomes) await expectContract(res, 'GET', TENANTS);
}

/**
 * Starts early enough in a window and checks, with one request, that this partner's counter is
 * fresh in it (remaining = limit - 1): a shared Redis may hold another run's counts for the same
 * partner id in this window, in which case the next window is used.
 */
async function freshWindow(probe: GatewayClient, key: string): Promise<Outcome> {
  for (let attempt = 0; attempt < 3; attempt += 1) {
    await roomInWindow(WINDOW_MS, 8_000);
    const res = await probe.get(TENANTS, { key });
    if (res.status === 200 && res.headers['x-ratelimit-remaining'] === String(LIMIT - 1)) return { process: 0, res };
    console.warn(`[rate-limit] counter not fresh (status ${res.status}, remaining ${res.headers['x-ratelimit-remaining']}); waiting for the next window`);
    await nextWindow(WINDOW_MS);
  }
  throw new Error('no fresh rate-limit window after 3 attempts');
}

/** Checks every outcome, groups them by window (X-RateLimit-Reset), and returns the counts. */
function tally(outcomes: Outcome[]): { windows: Map<string, { accepted: number; refused: number; acceptedBy: number[] }> } {
  const windows = new Map<string, { accepted: number; refused: number; acceptedBy: number[] }>();
  for (const { process, res } of outcomes) {
    expect([200, 429], res.text).toContain(res.status);
    // Without these headers the limiter did not count the request: its store failed or was slower
    // than the gateway waits for it, and the request went through unlimited ("fail open").
    expect(res.headers['x-ratelimit-limit'], `every response reports the limit, so every request was counted (request ${res.headers['x-request-id']})`).toBe(String(LIMIT));
    const reset = res.headers['x-ratelimit-reset']!;
    expect(reset).toMatch(/^\d+$/);
    const window = windows.get(reset) ?? { accepted: 0, refused: 0, acceptedBy: [0, 0] };
    if (res.status === 200) {
      window.accepted += 1;
      window.acceptedBy[process] = (window.acceptedBy[process] ?? 0) + 1;
    } else {
      expectError(res, 'RATE_LIMITED');
      expect(res.headers['x-ratelimit-remaining']).toBe('0');
      const retryAfter = Number(res.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(Math.ceil(WINDOW_MS / 1000));
      window.refused += 1;
    }
    windows.set(reset, window);
  }
  return { windows };
}

describe('rate limits across gateway processes', () => {
  let stack: ServiceStack;
  let onboarding: GatewayClient;
  const extra: ChildService[] = [];

  beforeAll(async () => {
    stack = await startStack('sqlite');
    onboarding = gatewayClient(stack.gateway.url);
    // Redis counters are keyed by partner id, and every run starts a fresh database at id 1: a
    // random number of unused partners first makes it unlikely that a rerun within the same minute
    // meets the previous run's counters (freshWindow still detects it if it does).
    const unused = randomInt(0, 40);
    for (let i = 0; i < unused; i += 1) await stack.internal.partners.create.mutate({ name: `Unused ${i}`, email: `unused-${i}@e2e.example`, tier: 'small' });
  });
  afterAll(() => stopAfterLedgerCheck(stack));
  showOutputOnFailure(() => stack?.services() ?? [], 40);

  describe.skipIf('skip' in redis)('two processes sharing one Redis', () => {
    let gateways: GatewayClient[];
    beforeAll(async () => {
      const url = (redis as { url: string }).url;
      for (const name of ['gateway-redis-1', 'gateway-redis-2']) extra.push(await stack.startGateway({ name, redisUrl: url, env: LIMITED_ENV }));
      gateways = extra.slice(-2).map((g) => gatewayClient(g.url));
    });

    it(`${REQUESTS} concurrent requests over both processes: together they accept at most ${LIMIT} per window`, async () => {
      const partner = await onboardPartner(stack.internal, onboarding, { label: 'Shared', tenants: 0 });
      const probe = await freshWindow(gateways[0]!, partner.key);
      const outcomes = [probe, ...(await burst(gateways, partner.key, REQUESTS - 1, 8, 1))];
      const { windows } = tally(outcomes);
      await checkContract(outcomes);
      for (const [reset, window] of windows) expect(window.accepted, `accepted in the window ending ${reset}`).toBeLessThanOrEqual(LIMIT);
      expect(windows.size, 'the burst fitted in one window').toBe(1);
      const [only] = [...windows.values()];
      expect(only!.accepted, 'exactly the limit accepted').toBe(LIMIT);
      expect(only!.refused).toBe(REQUESTS - LIMIT);
      // Both processes took part: each refused requests, and their acceptances add up to the one limit.
      expect(outcomes.filter((o) => o.process === 1 && o.res.status === 429).length).toBeGreaterThan(0);
      expect(outcomes.filter((o) => o.process === 0 && o.res.status === 429).length).toBeGreaterThan(0);
    });
  });

  describe('requests without a valid key, from one address', () => {
    const ANONYMOUS = 25;
    const HOUR = 3_600_000;
    let gateway: GatewayClient;
    beforeAll(async () => {
      extra.push(await stack.startGateway({ name: 'gateway-anonymous', env: { RATE_LIMIT_ANONYMOUS: String(ANONYMOUS), RATE_LIMIT_WINDOW_MS: String(HOUR) } }));
      gateway = gatewayClient(extra.at(-1)!.url);
    });

    it(`a flood of unknown keys is refused 429 once over ${ANONYMOUS} per window, while a valid key from the same address is served`, async () => {
      const partner = await onboardPartner(stack.internal, onboarding, { label: 'Neighbour', tenants: 0 });
      await roomInWindow(HOUR, 60_000);
      expect((await gateway.get(TENANTS, { key: partner.key })).status).toBe(200);
      // The readiness polls at start-up spent part of the budget already: read what is left.
      const first = await gateway.get(TENANTS, { key: `pk_test_${randomInt(1e9)}` });
      expect(first.status).toBe(401);
      expect(first.headers['x-ratelimit-limit']).toBe(String(ANONYMOUS));
      const left = Number(first.headers['x-ratelimit-remaining']);
      expect(left).toBeLessThan(ANONYMOUS);
      const flood: GatewayResponse[] = [];
      for (let i = 0; i < left + 30; i += 1) flood.push(await gateway.get(TENANTS, { key: `pk_test_${randomInt(1e9)}_${i}` }));
      expect(flood.slice(0, left).map((r) => r.status)).toEqual(Array<number>(left).fill(401));
      for (const res of flood.slice(left)) {
        expectError(res, 'RATE_LIMITED');
        expect(res.headers['x-ratelimit-limit']).toBe(String(ANONYMOUS));
        expect(res.headers['x-ratelimit-remaining']).toBe('0');
        expect(res.headers['ratelimit-policy']).toBe(`${ANONYMOUS};w=3600`);
        expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      }
      for (const res of [first, ...flood]) await expectContract(res, 'GET', TENANTS);
      // The public endpoints share the address's budget.
      expect((await fetch(`${gateway.url}/openapi.json`)).status).toBe(429);
      // The partner keeps its own budget: served, with its tier's headers.
      const served = await gateway.get(TENANTS, { key: partner.key });
      expect(served.status).toBe(200);
      expect(served.headers['x-ratelimit-limit']).toBe('1000');
    });
  });

  describe('each process alone, counting in memory', () => {
    let gateways: GatewayClient[];
    beforeAll(async () => {
      for (const name of ['gateway-memory-1', 'gateway-memory-2']) extra.push(await stack.startGateway({ name, env: LIMITED_ENV }));
      gateways = extra.slice(-2).map((g) => gatewayClient(g.url));
    });

    it(`${REQUESTS} concurrent requests over two memory-store processes: each accepts at most ${LIMIT} per window`, async () => {
      const partner = await onboardPartner(stack.internal, onboarding, { label: 'Memory', tenants: 0 });
      const probe = await freshWindow(gateways[0]!, partner.key);
      const outcomes = [probe, ...(await burst(gateways, partner.key, REQUESTS - 1, 8, 1))];
      const { windows } = tally(outcomes);
      await checkContract(outcomes);
      expect(windows.size, 'the burst fitted in one window').toBe(1);
      const [only] = [...windows.values()];
      expect(only!.acceptedBy[0], 'process 1 accepted its limit').toBe(LIMIT);
      expect(only!.acceptedBy[1], 'process 2 accepted its limit').toBe(LIMIT);
      expect(only!.refused).toBe(REQUESTS - 2 * LIMIT);
    });

    it('a process keeps refusing for the rest of the window', async () => {
      const partner = await onboardPartner(stack.internal, onboarding, { label: 'Steady', tenants: 0 });
      await freshWindow(gateways[1]!, partner.key);
      const outcomes = await burst([gateways[1]!], partner.key, LIMIT + 10, 4);
      const accepted = outcomes.filter((o) => o.res.status === 200).length;
      expect(accepted).toBe(LIMIT - 1);
      tally(outcomes);
      await checkContract(outcomes);
    });
  });
});
