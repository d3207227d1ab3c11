import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPartner } from './partner-repository.js';
import { type IdempotencyClaim, abandonIdempotencyKey, claimIdempotencyKey, completeIdempotencyKey } from './idempotency-repository.js';
import { createTenant } from './tenant-repository.js';
import { withTransaction } from '../transaction.js';
import { type TestDatabase, openTestDatabase, testDialects } from '../testing/index.js';

const dialects = await testDialects();
const T0 = Date.parse('2026-11-22T00:00:00.000Z');

function tokenOf(claim: IdempotencyClaim): string {
  if (claim.state !== 'new') throw new Error(`expected a new claim, got ${claim.state}`);
  return claim.token;
}

describe.each(dialects)('[%s] idempotency records', (dialect) => {
  let t: TestDatabase;
  let partnerId: number;
  let other: number;
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
    partnerId = (await createPartner(t.database, { name: 'P', email: 'p@x', tier: 'small' }, new Date(T0))).id;
    other = (await createPartner(t.database, { name: 'Q', email: 'q@x', tier: 'small' }, new Date(T0))).id;
  });
  afterAll(() => t.cleanup());

  it('claims once, then replays the stored response to the same fingerprint and refuses another', async () => {
    const token = tokenOf(await claimIdempotencyKey(t.database, partnerId, 'k1', 'fp', T0));
    expect(await claimIdempotencyKey(t.database, partnerId, 'k1', 'fp', T0 + 1)).toEqual({ state: 'in_progress' });
    expect(await claimIdempotencyKey(t.database, partnerId, 'k1', 'other', T0 + 1)).toEqual({ state: 'mismatch' });
    expect(await completeIdempotencyKey(t.database, partnerId, 'k1', token, 201, { status: 'ok', data: { n: 1 } })).toBe(true);
    expect(await claimIdempotencyKey(t.database, partnerId, 'k1', 'fp', T0 + 2)).toEqual({ state: 'replay', status: 201, body: { status: 'ok', data: { n: 1 } } });
    expect(await claimIdempotencyKey(t.database, partnerId, 'k1', 'other', T0 + 2)).toEqual({ state: 'mismatch' });
    // Completing twice, or with the token of a finished claim, writes nothing.
    expect(await completeIdempotencyKey(t.database, partnerId, 'k1', token, 500, { other: true })).toBe(false);
    // Keys are per partner.
    expect((await claimIdempotencyKey(t.database, other, 'k1', 'other', T0 + 2)).state).toBe('new');
  });

  it('an abandoned or dead claim can be claimed again; an expired record too', async () => {
    const first = tokenOf(await claimIdempotencyKey(t.database, partnerId, 'k2', 'fp', T0));
    await abandonIdempotencyKey(t.database, partnerId, 'k2', first);
    const second = tokenOf(await claimIdempotencyKey(t.database, partnerId, 'k2', 'fp', T0));
    const third = tokenOf(await claimIdempotencyKey(t.database, partnerId, 'k2', 'fp', T0 + 61_000));
    expect(new Set([first, second, third]).size).toBe(3);
    expect(await completeIdempotencyKey(t.database, partnerId, 'k2', third, 200, null)).toBe(true);
    expect((await claimIdempotencyKey(t.database, partnerId, 'k2', 'changed', T0 + 24 * 3600_000 + 61_001)).state).toBe('new');
  });

  it('a claim taken over after its lease can neither complete nor release the newer claim', async () => {
    const stale = tokenOf(await claimIdempotencyKey(t.database, partnerId, 'k3', 'fp', T0));
    const fresh = tokenOf(await claimIdempotencyKey(t.database, partnerId, 'k3', 'fp', T0 + 60_000));
    expect(await completeIdempotencyKey(t.database, partnerId, 'k3', stale, 201, { from: 'stale' })).toBe(false);
    await abandonIdempotencyKey(t.database, partnerId, 'k3', stale);
    expect(await claimIdempotencyKey(t.database, partnerId, 'k3', 'fp', T0 + 60_001)).toEqual({ state: 'in_progress' });
    expect(await completeIdempotencyKey(t.database, partnerId, 'k3', fresh, 201, { from: 'fresh' })).toBe(true);
    expect(await claimIdempotencyKey(t.database, partnerId, 'k3', 'fp', T0 + 60_002)).toEqual({ state: 'replay', status: 201, body: { from: 'fresh' } });
  });

  it('the stored response commits with the work or not at all', async () => {
    const token = tokenOf(await claimIdempotencyKey(t.database, partnerId, 'k4', 'fp', T0));
    const tenantId = '7b0c4a52-6f7e-4f6e-9d0a-2f0c9f3b8a11';
    // The work fails after the response was written: both roll back, and the claim stays open.
    await expect(
      withTransaction(t.database, async (tx) => {
        await createTenant(tx, { id: tenantId, name: 'Rolled back' }, new Date(T0));
        expect(await completeIdempotencyKey(tx, partnerId, 'k4', token, 201, { tenant: tenantId })).toBe(true);
        throw new Error('crash before commit');
      }),
    ).rejects.toThrow('crash before commit');
    expect(await t.database.db.selectFrom('tenants').select('id').where('id', '=', tenantId).execute()).toEqual([]);
    expect(await claimIdempotencyKey(t.database, partnerId, 'k4', 'fp', T0 + 1)).toEqual({ state: 'in_progress' });
    // The retry after the lease does the work once, with its response.
    const retry = tokenOf(await claimIdempotencyKey(t.database, partnerId, 'k4', 'fp', T0 + 60_000));
    await withTransaction(t.database, async (tx) => {
      await createTenant(tx, { id: tenantId, name: 'Committed' }, new Date(T0));
      expect(await completeIdempotencyKey(tx, partnerId, 'k4', retry, 201, { tenant: tenantId })).toBe(true);
    });
    expect(await t.database.db.selectFrom('tenants').select('name').where('id', '=', tenantId).execute()).toEqual([{ name: 'Committed' }]);
    expect(await claimIdempotencyKey(t.database, partnerId, 'k4', 'fp', T0 + 60_001)).toEqual({ state: 'replay', status: 201, body: { tenant: tenantId } });
  });

  it('20 concurrent claims of one key: exactly one wins', async () => {
    const claims = await Promise.all(Array.from({ length: 20 }, () => claimIdempotencyKey(t.database, partnerId, 'race', 'fp', T0)));
    expect(claims.filter((c) => c.state === 'new')).toHaveLength(1);
    expect(claims.filter((c) => c.state === 'in_progress')).toHaveLength(19);
  });
});
