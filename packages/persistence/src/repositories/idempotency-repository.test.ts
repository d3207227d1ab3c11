import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPartner } from './partner-repository.js';
import {
  abandonIdempotencyKey,
  claimIdempotencyKey,
  completeIdempotencyKey,
  purgeExpiredIdempotencyKeys,
} from './idempotency-repository.js';
import { type TestDatabase, openTestDatabase, testDialects } from '../testing/index.js';

const dialects = await testDialects();
const T0 = Date.parse('2026-11-22T00:00:00.000Z');

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
    expect(await claimIdempotencyKey(t.database, partnerId, 'k1', 'fp', T0)).toEqual({ state: 'new' });
    expect(await claimIdempotencyKey(t.database, partnerId, 'k1', 'fp', T0 + 1)).toEqual({ state: 'in_progress' });
    expect(await claimIdempotencyKey(t.database, partnerId, 'k1', 'other', T0 + 1)).toEqual({ state: 'mismatch' });
    await completeIdempotencyKey(t.database, partnerId, 'k1', 201, { status: 'ok', data: { n: 1 } });
    expect(await claimIdempotencyKey(t.database, partnerId, 'k1', 'fp', T0 + 2)).toEqual({ state: 'replay', status: 201, body: { status: 'ok', data: { n: 1 } } });
    expect(await claimIdempotencyKey(t.database, partnerId, 'k1', 'other', T0 + 2)).toEqual({ state: 'mismatch' });
    // Keys are per partner.
    expect(await claimIdempotencyKey(t.database, other, 'k1', 'other', T0 + 2)).toEqual({ state: 'new' });
  });

  it('an abandoned or dead claim can be claimed again; an expired record too', async () => {
    expect((await claimIdempotencyKey(t.database, partnerId, 'k2', 'fp', T0)).state).toBe('new');
    await abandonIdempotencyKey(t.database, partnerId, 'k2');
    expect((await claimIdempotencyKey(t.database, partnerId, 'k2', 'fp', T0)).state).toBe('new');
    expect((await claimIdempotencyKey(t.database, partnerId, 'k2', 'fp', T0 + 61_000)).state).toBe('new');
    await completeIdempotencyKey(t.database, partnerId, 'k2', 200, null);
    expect((await claimIdempotencyKey(t.database, partnerId, 'k2', 'changed', T0 + 24 * 3600_000 + 61_001)).state).toBe('new');
  });

  it('20 concurrent claims of one key: exactly one wins', async () => {
    const claims = await Promise.all(Array.from({ length: 20 }, () => claimIdempotencyKey(t.database, partnerId, 'race', 'fp', T0)));
    expect(claims.filter((c) => c.state === 'new')).toHaveLength(1);
    expect(claims.filter((c) => c.state === 'in_progress')).toHaveLength(19);
  });

  it('purges expired records only', async () => {
    await claimIdempotencyKey(t.database, partnerId, 'old', 'fp', T0 - 48 * 3600_000);
    const purged = await purgeExpiredIdempotencyKeys(t.database, T0);
    expect(purged).toBeGreaterThanOrEqual(1);
    expect((await claimIdempotencyKey(t.database, partnerId, 'k1', 'fp', T0 + 3)).state).toBe('replay');
  });
});
