import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findKeyOwner } from '@pits/persistence';
import { testDialects } from '@pits/persistence/testing';
import { TEST_NOW, type TestApi, openTestApi, refusal } from './testing/test-api.js';

const dialects = await testDialects();

describe.each(dialects)('[%s] API keys', (dialect) => {
  let api: TestApi;
  let partnerId: number;
  let otherPartnerId: number;
  beforeAll(async () => {
    api = await openTestApi(dialect);
    partnerId = (await api.caller.partners.create({ name: 'Keyholder', email: 'k@k.example', tier: 'small' })).id;
    otherPartnerId = (await api.caller.partners.create({ name: 'Other', email: 'o@o.example', tier: 'small' })).id;
  });
  afterAll(() => api.t.cleanup());

  it('creates live and test keys: the secret is returned once, with its prefix, and authenticates the partner', async () => {
    const live = await api.caller.apiKeys.create({ partnerId, environment: 'live', label: 'production' });
    const test = await api.caller.apiKeys.create({ partnerId, environment: 'test' });
    expect(live.secret).toMatch(/^pk_live_[A-Za-z0-9_-]{43}$/);
    expect(test.secret).toMatch(/^pk_test_[A-Za-z0-9_-]{43}$/);
    expect(live.key).toEqual({ id: live.key.id, partnerId, prefix: 'pk_live_', last4: live.secret.slice(-4), label: 'production', createdAt: TEST_NOW.toISOString(), revokedAt: null });
    expect(test.key.label).toBe('');
    expect(await findKeyOwner(api.t.database, live.secret)).toMatchObject({ keyId: live.key.id, partnerId, name: 'Keyholder' });
  });

  it('lists prefix and last 4 only: no secret and no hash ever comes back', async () => {
    const { secret } = await api.caller.apiKeys.create({ partnerId, environment: 'live' });
    const keys = await api.caller.apiKeys.list({ partnerId });
    expect(keys.length).toBeGreaterThanOrEqual(1);
    for (const key of keys) expect(Object.keys(key).sort()).toEqual(['createdAt', 'id', 'label', 'last4', 'partnerId', 'prefix', 'revokedAt']);
    const text = JSON.stringify(keys);
    expect(text).not.toContain(secret);
    expect(text).not.toContain(secret.slice(8, 20));
    expect(keys.some((k) => k.last4 === secret.slice(-4) && k.prefix === 'pk_live_')).toBe(true);
    expect(await api.caller.apiKeys.list({ partnerId: otherPartnerId })).toEqual([]);
  });

  it('rotate issues a new key of the same environment and label and revokes the old one at once', async () => {
    const old = await api.caller.apiKeys.create({ partnerId, environment: 'test', label: 'ci' });
    const rotated = await api.caller.apiKeys.rotate({ partnerId, keyId: old.key.id });
    expect(rotated.secret).toMatch(/^pk_test_/);
    expect(rotated.secret).not.toBe(old.secret);
    expect(rotated.key).toMatchObject({ prefix: 'pk_test_', label: 'ci', revokedAt: null, last4: rotated.secret.slice(-4) });
    expect(rotated.revoked).toMatchObject({ id: old.key.id, revokedAt: TEST_NOW.toISOString() });
    expect(await findKeyOwner(api.t.database, old.secret)).toBeNull();
    expect(await findKeyOwner(api.t.database, rotated.secret)).toMatchObject({ keyId: rotated.key.id, partnerId });
    const listed = await api.caller.apiKeys.list({ partnerId });
    expect(listed.find((k) => k.id === old.key.id)?.revokedAt).toBe(TEST_NOW.toISOString());
    expect(listed.find((k) => k.id === rotated.key.id)?.revokedAt).toBeNull();
  });

  it('revoke stops the key at once; revoking again keeps the first time; rotating a revoked key is a CONFLICT', async () => {
    const created = await api.caller.apiKeys.create({ partnerId, environment: 'live' });
    const revoked = await api.caller.apiKeys.revoke({ partnerId, keyId: created.key.id });
    expect(revoked.revokedAt).toBe(TEST_NOW.toISOString());
    expect(await findKeyOwner(api.t.database, created.secret)).toBeNull();
    expect(await api.caller.apiKeys.revoke({ partnerId, keyId: created.key.id })).toEqual(revoked);
    expect(await refusal(api.caller.apiKeys.rotate({ partnerId, keyId: created.key.id }))).toMatchObject({
      code: 'CONFLICT',
      kind: 'INVALID_STATE',
      field: 'keyId',
    });
  });

  it('unknown partners and keys are NOT_FOUND, and another partner cannot touch a key', async () => {
    for (const call of [
      () => api.caller.apiKeys.create({ partnerId: 999_999, environment: 'live' }),
      () => api.caller.apiKeys.list({ partnerId: 999_999 }),
      () => api.caller.apiKeys.rotate({ partnerId: 999_999, keyId: 1 }),
      () => api.caller.apiKeys.revoke({ partnerId: 999_999, keyId: 1 }),
    ]) {
      expect(await refusal(call())).toMatchObject({ code: 'NOT_FOUND', kind: 'NOT_FOUND', field: 'partnerId' });
    }
    const mine = await api.caller.apiKeys.create({ partnerId, environment: 'live' });
    expect(await refusal(api.caller.apiKeys.revoke({ partnerId: otherPartnerId, keyId: mine.key.id }))).toMatchObject({ code: 'NOT_FOUND', field: 'keyId' });
    expect(await refusal(api.caller.apiKeys.rotate({ partnerId: otherPartnerId, keyId: mine.key.id }))).toMatchObject({ code: 'NOT_FOUND', field: 'keyId' });
    expect(await refusal(api.caller.apiKeys.revoke({ partnerId, keyId: 999_999 }))).toMatchObject({ code: 'NOT_FOUND', field: 'keyId' });
    expect(await findKeyOwner(api.t.database, mine.secret)).not.toBeNull();
  });

  it('invalid inputs are BAD_REQUEST on the field', async () => {
    expect(await refusal(api.caller.apiKeys.create({ partnerId, environment: 'prod' as 'live' }))).toMatchObject({ code: 'BAD_REQUEST', kind: 'VALIDATION_ERROR', field: 'environment' });
    expect(await refusal(api.caller.apiKeys.create({ partnerId, environment: 'live', label: 'x'.repeat(101) }))).toMatchObject({ code: 'BAD_REQUEST', field: 'label' });
    expect(await refusal(api.caller.apiKeys.rotate({ partnerId, keyId: -1 }))).toMatchObject({ code: 'BAD_REQUEST', field: 'keyId' });
    expect(await refusal(api.caller.apiKeys.list({} as never))).toMatchObject({ code: 'BAD_REQUEST', field: 'partnerId' });
  });

  it('without the service token every API key procedure is UNAUTHORIZED, and nothing is created', async () => {
    const before = (await api.caller.apiKeys.list({ partnerId })).length;
    for (const call of [
      () => api.anonymous.apiKeys.create({ partnerId, environment: 'live' }),
      () => api.anonymous.apiKeys.list({ partnerId }),
      () => api.anonymous.apiKeys.rotate({ partnerId, keyId: 1 }),
      () => api.anonymous.apiKeys.revoke({ partnerId, keyId: 1 }),
    ]) {
      expect(await refusal(call())).toMatchObject({ code: 'UNAUTHORIZED', kind: 'UNAUTHORIZED' });
    }
    expect(await api.caller.apiKeys.list({ partnerId })).toHaveLength(before);
  });
});
