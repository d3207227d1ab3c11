// A revoked API key fails at once (docs/identity-and-consent.md#api-keys), in every gateway process: two gateways share the
// database, a key works on both, the internal API revokes or rotates it, and the very next request
// on each gateway (no pause) is 401, on a tenant-scoped route and on one that is not. A revoked key
// is refused before the rate limiter counts it, so it never spends its partner's limit: after many
// requests with it, the partner's other key still has exactly the room it had. Run with counters in
// each process's memory and again with counters shared in Redis.
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildService } from '../harness/child-service.js';
import { e2eDialects } from '../harness/e2e-database.js';
import { expectError } from '../harness/error-envelope.js';
import { showOutputOnFailure } from '../harness/failure-output.js';
import { type GatewayClient, gatewayClient } from '../harness/gateway-client.js';
import type { GatewayResponse } from '../harness/gateway-response.js';
import { stopAfterLedgerCheck } from '../harness/ledger-check.js';
import { type OnboardedPartner, onboardPartner } from '../harness/partner-onboarding.js';
import { roomInWindow } from '../harness/rate-window.js';
import { redisForTests } from '../harness/redis-availability.js';
import { type ServiceStack, startStack } from '../harness/service-stack.js';
import { E2E_ANONYMOUS_LIMIT } from '../harness/start-gateway.js';

const TENANTS = '/api/partner/v1/tenants';
const LOCATIONS = '/api/partner/v1/tenants/locations';
const LIMIT = 20;
/**
 * A window of about an hour whose length is unique to this run: counter keys in a shared Redis
 * carry the window's start, which no other suite (nor an earlier run of this one) shares, so
 * nothing else counts into them. An hour also keeps a boundary out of any one test.
 */
const WINDOW_MS = 3_000_000 + randomInt(0, 600_000);
const LIMITED = { RATE_LIMIT_SMALL: String(LIMIT), RATE_LIMIT_WINDOW_MS: String(WINDOW_MS) };

const redis = await redisForTests();
const dialects = await e2eDialects();

describe.each(dialects)('[%s] security: API key revocation', (dialect) => {
  describe.each(['memory', 'redis'] as const)('rate-limit counters in %s', (store) => {
    const redisUrl = 'url' in redis ? redis.url : undefined;
    const skip = store === 'redis' && redisUrl === undefined;
    let stack: ServiceStack;
    let second: ChildService;
    let gateways: [GatewayClient, GatewayClient];

    /** A tenant-scoped and a non-tenant call with `key` on `via`. */
    const both = async (via: GatewayClient, key: string, tenant: string): Promise<GatewayResponse[]> => [
      await via.get(LOCATIONS, { key, tenant }),
      await via.get(TENANTS, { key }),
    ];
    const expectServed = async (key: string, tenant: string) => {
      for (const via of gateways) for (const res of await both(via, key, tenant)) expect(res.status, `${via.url}${res.path}: ${res.text.slice(0, 200)}`).toBe(200);
    };
    /**
     * The very next requests on each gateway: 401 on Authorization, and the partner's limiter never
     * saw them: the only budget they count against is the address's, for requests without a valid
     * key (docs/rate-limits.md#without-a-valid-key).
     */
    const expectRevoked = async (key: string, tenant: string) => {
      for (const via of gateways) {
        for (const res of await both(via, key, tenant)) {
          expectError(res, 'UNAUTHORIZED', 'Authorization');
          expect(res.headers['x-ratelimit-limit'], `${res.path}: a refused key counts only against the address's keyless budget`).toBe(E2E_ANONYMOUS_LIMIT);
        }
      }
    };
    const onboard = (label: string) => onboardPartner(stack.internal, gateways[0], { label, tenants: 1, locations: 1 });
    const secondKey = async (partner: OnboardedPartner) => (await stack.internal.apiKeys.create.mutate({ partnerId: partner.id, environment: 'test', label: 'second' })).secret;

    beforeAll(async () => {
      if (skip) return;
      const shared = redisUrl !== undefined && store === 'redis' ? { redisUrl } : {};
      stack = await startStack(dialect, { gatewayEnv: LIMITED, ...shared });
      second = await stack.startGateway({ name: 'gateway-2', env: LIMITED, ...shared });
      gateways = [gatewayClient(stack.gateway.url), gatewayClient(second.url)];
    });
    afterAll(() => stopAfterLedgerCheck(stack));
    showOutputOnFailure(() => stack?.services() ?? []);

    it.skipIf(skip)('revoke: a key that works on both gateways is 401 on the very next request on each, tenant-scoped or not; the other key still works', async () => {
      const partner = await onboard('Revoked');
      const tenant = partner.tenants[0]!.id;
      const other = await secondKey(partner);
      await expectServed(partner.key, tenant);

      const revoked = await stack.internal.apiKeys.revoke.mutate({ partnerId: partner.id, keyId: partner.keyId });
      await expectRevoked(partner.key, tenant);
      expect(revoked.revokedAt).not.toBeNull();
      // Bare and Bearer forms alike.
      for (const via of gateways) expectError(await via.get(TENANTS, { authorization: partner.key }), 'UNAUTHORIZED', 'Authorization');
      await expectServed(other, tenant);
      const keys = await stack.internal.apiKeys.list.query({ partnerId: partner.id });
      expect(keys.map((k) => ({ revoked: k.id === partner.keyId, active: k.revokedAt === null })).sort((x, y) => Number(x.revoked) - Number(y.revoked))).toEqual([
        { revoked: false, active: true },
        { revoked: true, active: false },
      ]);
    });

    it.skipIf(skip)('rotate: the old key is 401 at once on both gateways, the new key is 200 on both', async () => {
      const partner = await onboard('Rotated');
      const tenant = partner.tenants[0]!.id;
      await expectServed(partner.key, tenant);
      const rotated = await stack.internal.apiKeys.rotate.mutate({ partnerId: partner.id, keyId: partner.keyId });
      await expectRevoked(partner.key, tenant);
      expect(rotated.revoked).toMatchObject({ id: partner.keyId });
      expect(rotated.revoked.revokedAt).not.toBeNull();
      expect(rotated.secret).toMatch(/^pk_test_/);
      expect(rotated.secret).not.toBe(partner.key);
      await expectServed(rotated.secret, tenant);
      await expectRevoked(partner.key, tenant);
    });

    it.skipIf(skip)(`a revoked key never spends the partner's limit: after ${3 * LIMIT} requests with it the other key has exactly the room it had`, async () => {
      const partner = await onboard('Spender');
      const tenant = partner.tenants[0]!.id;
      const other = await secondKey(partner);
      await roomInWindow(WINDOW_MS, 30_000);
      // The room each gateway reports now (with the memory store each process counts on its own).
      const baseline: GatewayResponse[] = [];
      for (const via of gateways) baseline.push(await via.get(TENANTS, { key: partner.key }));
      for (const res of baseline) expect(res.status, res.text).toBe(200);
      const room = baseline.map((res) => Number(res.headers['x-ratelimit-remaining']));
      expect(room[0]).toBeGreaterThan(LIMIT / 2);

      await stack.internal.apiKeys.revoke.mutate({ partnerId: partner.id, keyId: partner.keyId });
      for (let i = 0; i < 3 * LIMIT; i += 1) {
        const via = gateways[i % 2]!;
        const res = i % 4 < 2 ? await via.get(LOCATIONS, { key: partner.key, tenant }) : await via.get(TENANTS, { key: partner.key });
        expectError(res, 'UNAUTHORIZED', 'Authorization');
        expect(res.headers['x-ratelimit-limit'], 'counted only in the keyless budget of the address').toBe(E2E_ANONYMOUS_LIMIT);
      }

      const after: GatewayResponse[] = [];
      for (const via of gateways) after.push(await via.get(TENANTS, { key: other }));
      for (const res of after) expect(res.status, res.text).toBe(200);
      const reset = [...baseline, ...after].map((res) => res.headers['x-ratelimit-reset']);
      expect(new Set(reset).size, 'every counted request fell in one window').toBe(1);
      const left = after.map((res) => Number(res.headers['x-ratelimit-remaining']));
      if (store === 'memory') {
        // Each process: one request of the other key since its baseline.
        expect(left).toEqual([room[0]! - 1, room[1]! - 1]);
      } else {
        // One shared counter: baseline 2 was one after baseline 1, then one request on each gateway.
        expect(room[1]).toBe(room[0]! - 1);
        expect(left).toEqual([room[0]! - 2, room[0]! - 3]);
      }
    });
  });
});
