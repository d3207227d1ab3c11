import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialects } from '@pits/persistence/testing';
import { TEST_NOW, type TestApi, openTestApi, refusal } from './testing/test-api.js';

const dialects = await testDialects();

const CREDENTIALS = { username: 'jne-merchant-01', password: 'Sup3r-Secret-Pass', apiKey: 'ak_9f8e7d6c5b4a3210', apiSecret: 'as_0123456789abcdef' };

describe.each(dialects)('[%s] logistic preferences', (dialect) => {
  let api: TestApi;
  let tenantId: string;
  let otherTenantId: string;
  beforeAll(async () => {
    api = await openTestApi(dialect);
    tenantId = (await api.caller.tenants.create({ name: 'Shipper' })).id;
    otherTenantId = (await api.caller.tenants.create({ name: 'Other Shipper' })).id;
  });
  afterAll(() => api.t.cleanup());

  const rawRow = (id: number) => api.t.database.db.selectFrom('logistic_preferences').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it('creates a preference: credentials come back masked, all but the last 4 characters', async () => {
    const created = await api.caller.logisticPreferences.create({
      tenantId,
      logisticProviderId: 7,
      logisticProviderName: 'JNE',
      availableServiceTypes: { regular: true, express: false },
      isDefault: true,
      accountId: 'ACC-1',
      ...CREDENTIALS,
    });
    expect(created).toMatchObject({
      tenantId,
      logisticProviderId: 7,
      logisticProviderName: 'JNE',
      availableServiceTypes: { regular: true, express: false },
      isDefault: true,
      isActive: true,
      username: '***********t-01',
      password: '*************Pass',
      apiKey: `${'*'.repeat(CREDENTIALS.apiKey.length - 4)}3210`,
      apiSecret: `${'*'.repeat(CREDENTIALS.apiSecret.length - 4)}cdef`,
      accountId: 'ACC-1',
      accountName: null,
      createdBy: 'internal-api',
      createdAt: TEST_NOW.toISOString(),
    });
  });

  it('stores credentials encrypted with the configured key: the raw row holds no plaintext', async () => {
    const created = await api.caller.logisticPreferences.create({ tenantId, logisticProviderId: 8, logisticProviderName: 'SiCepat', ...CREDENTIALS });
    const row = await rawRow(created.id);
    const text = JSON.stringify(row);
    for (const plain of Object.values(CREDENTIALS)) expect(text).not.toContain(plain);
    expect(row.username_enc).toMatch(/^v1\./);
    expect(api.cipher.decrypt(row.username_enc)).toBe(CREDENTIALS.username);
    expect(api.cipher.decrypt(row.password_enc)).toBe(CREDENTIALS.password);
    expect(api.cipher.decrypt(row.api_key_enc)).toBe(CREDENTIALS.apiKey);
    expect(api.cipher.decrypt(row.api_secret_enc)).toBe(CREDENTIALS.apiSecret);
  });

  it('short credentials are masked entirely', async () => {
    const created = await api.caller.logisticPreferences.create({ tenantId, logisticProviderId: 9, logisticProviderName: 'POS', username: 'abc', password: 'abcd', apiKey: '', apiSecret: 'abcde' });
    expect(created).toMatchObject({ username: '***', password: '****', apiKey: '', apiSecret: '*bcde' });
  });

  it('update re-encrypts a changed credential and keeps the rest', async () => {
    const created = await api.caller.logisticPreferences.create({ tenantId, logisticProviderId: 10, logisticProviderName: 'J&T', ...CREDENTIALS });
    const before = await rawRow(created.id);
    const updated = await api.caller.logisticPreferences.update({ tenantId, id: created.id, changes: { password: 'new-password-9876', isActive: false, accountName: 'Main' } });
    expect(updated).toEqual({ ...created, password: '*************9876', isActive: false, accountName: 'Main' });
    const after = await rawRow(created.id);
    expect(JSON.stringify(after)).not.toContain('new-password-9876');
    expect(api.cipher.decrypt(after.password_enc)).toBe('new-password-9876');
    expect(after.username_enc).toBe(before.username_enc);
  });

  it("lists the tenant's preferences by id, masked, a page at a time", async () => {
    await api.caller.logisticPreferences.create({ tenantId: otherTenantId, logisticProviderId: 1, logisticProviderName: 'Theirs', ...CREDENTIALS });
    const all = await api.caller.logisticPreferences.list({ tenantId, perPage: 100 });
    expect(all.logisticPreferences.length).toBeGreaterThanOrEqual(3);
    expect(all.logisticPreferences.every((p) => p.tenantId === tenantId)).toBe(true);
    const ids = all.logisticPreferences.map((p) => p.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    const text = JSON.stringify(all);
    for (const plain of Object.values(CREDENTIALS)) expect(text).not.toContain(plain);
    const page2 = await api.caller.logisticPreferences.list({ tenantId, page: 2, perPage: 1 });
    expect(page2.logisticPreferences.map((p) => p.id)).toEqual([ids[1]]);
    expect(page2.pagination).toMatchObject({ page: 2, perPage: 1, total: ids.length, from: 2, to: 2 });
  });

  it('an unknown tenant is NOT_FOUND on tenantId; an unknown or foreign preference NOT_FOUND on id', async () => {
    const ghost = randomUUID();
    for (const call of [
      () => api.caller.logisticPreferences.create({ tenantId: ghost, logisticProviderId: 1, logisticProviderName: 'X', ...CREDENTIALS }),
      () => api.caller.logisticPreferences.update({ tenantId: ghost, id: 1, changes: {} }),
      () => api.caller.logisticPreferences.list({ tenantId: ghost }),
    ]) {
      expect(await refusal(call())).toMatchObject({ code: 'NOT_FOUND', kind: 'NOT_FOUND', field: 'tenantId' });
    }
    const theirs = await api.caller.logisticPreferences.list({ tenantId: otherTenantId });
    const foreignId = theirs.logisticPreferences[0]!.id;
    expect(await refusal(api.caller.logisticPreferences.update({ tenantId, id: foreignId, changes: { password: 'hijack' } }))).toMatchObject({ code: 'NOT_FOUND', field: 'id' });
    expect(api.cipher.decrypt((await rawRow(foreignId)).password_enc)).toBe(CREDENTIALS.password);
  });

  it('invalid inputs are BAD_REQUEST with the field path', async () => {
    const { password: _omitted, ...withoutPassword } = CREDENTIALS;
    expect(await refusal(api.caller.logisticPreferences.create({ tenantId, logisticProviderId: 1, logisticProviderName: 'X', ...withoutPassword } as never))).toMatchObject({
      code: 'BAD_REQUEST',
      kind: 'VALIDATION_ERROR',
      field: 'password',
    });
    expect(
      await refusal(api.caller.logisticPreferences.create({ tenantId, logisticProviderId: 1, logisticProviderName: 'X', availableServiceTypes: { express: 'yes' as unknown as boolean }, ...CREDENTIALS })),
    ).toMatchObject({ code: 'BAD_REQUEST', field: 'availableServiceTypes.express' });
    expect(await refusal(api.caller.logisticPreferences.update({ tenantId, id: 1, changes: { logisticProviderId: 0 } }))).toMatchObject({ code: 'BAD_REQUEST', field: 'changes.logisticProviderId' });
  });

  it('without the service token every logistic preference procedure is UNAUTHORIZED', async () => {
    for (const call of [
      () => api.anonymous.logisticPreferences.create({ tenantId, logisticProviderId: 1, logisticProviderName: 'X', ...CREDENTIALS }),
      () => api.anonymous.logisticPreferences.update({ tenantId, id: 1, changes: {} }),
      () => api.anonymous.logisticPreferences.list({ tenantId }),
    ]) {
      expect(await refusal(call())).toMatchObject({ code: 'UNAUTHORIZED', kind: 'UNAUTHORIZED' });
    }
  });
});
