import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testDialects } from '@pits/persistence/testing';
import { TEST_NOW, type TestApi, openTestApi, refusal } from './testing/test-api.js';

const dialects = await testDialects();

describe.each(dialects)('[%s] tenants', (dialect) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await openTestApi(dialect);
  });
  beforeEach(async () => {
    await api.t.database.db.deleteFrom('tenants').execute();
  });
  afterAll(() => api.t.cleanup());

  it('creates a tenant with a generated UUID, or with the id the platform gives, and finds it', async () => {
    const generated = await api.caller.tenants.create({ name: 'Toko Maju' });
    expect(generated).toEqual({ id: generated.id, name: 'Toko Maju', tenantType: 'live', createdAt: TEST_NOW.toISOString(), updatedAt: TEST_NOW.toISOString() });
    expect(generated.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const id = randomUUID();
    const given = await api.caller.tenants.create({ id, name: 'Sandbox Store', tenantType: 'sandbox' });
    expect(given).toMatchObject({ id, tenantType: 'sandbox' });
    expect(await api.caller.tenants.byId({ id })).toEqual(given);
  });

  it('lists tenants a page at a time with the paging facts', async () => {
    for (const name of ['A', 'B', 'C']) await api.caller.tenants.create({ name });
    const first = await api.caller.tenants.list({ perPage: 2 });
    expect(first.tenants.map((t) => t.name)).toHaveLength(2);
    expect(first.pagination).toEqual({ page: 1, perPage: 2, total: 3, lastPage: 2, from: 1, to: 2, hasMorePages: true });
    const second = await api.caller.tenants.list({ page: 2, perPage: 2 });
    expect(second.tenants).toHaveLength(1);
    expect(second.pagination).toMatchObject({ from: 3, to: 3, hasMorePages: false });
    expect([...first.tenants, ...second.tenants].map((t) => t.name).sort()).toEqual(['A', 'B', 'C']);
    const past = await api.caller.tenants.list({ page: 5, perPage: 2 });
    expect(past).toEqual({ tenants: [], pagination: { page: 5, perPage: 2, total: 3, lastPage: 2, from: null, to: null, hasMorePages: false } });
    expect((await api.caller.tenants.list()).pagination).toMatchObject({ page: 1, perPage: 20, total: 3 });
  });

  it('an unknown tenant is NOT_FOUND on id; a malformed id is BAD_REQUEST', async () => {
    expect(await refusal(api.caller.tenants.byId({ id: randomUUID() }))).toMatchObject({ code: 'NOT_FOUND', kind: 'NOT_FOUND', field: 'id' });
    expect(await refusal(api.caller.tenants.byId({ id: 'tenant-1' }))).toMatchObject({ code: 'BAD_REQUEST', kind: 'VALIDATION_ERROR', field: 'id' });
  });

  it('refuses a taken id, an empty name and out-of-range paging, naming the field', async () => {
    const id = randomUUID();
    await api.caller.tenants.create({ id, name: 'First' });
    expect(await refusal(api.caller.tenants.create({ id, name: 'Second' }))).toMatchObject({ code: 'BAD_REQUEST', kind: 'VALIDATION_ERROR', field: 'id' });
    expect((await api.caller.tenants.byId({ id })).name).toBe('First');
    expect(await refusal(api.caller.tenants.create({ name: '   ' }))).toMatchObject({ code: 'BAD_REQUEST', field: 'name' });
    expect(await refusal(api.caller.tenants.list({ perPage: 101 }))).toMatchObject({ code: 'BAD_REQUEST', field: 'perPage' });
    expect(await refusal(api.caller.tenants.list({ page: 0 }))).toMatchObject({ code: 'BAD_REQUEST', field: 'page' });
  });

  it('without the service token every tenant procedure is UNAUTHORIZED', async () => {
    for (const call of [() => api.anonymous.tenants.create({ name: 'X' }), () => api.anonymous.tenants.list(), () => api.anonymous.tenants.byId({ id: randomUUID() })]) {
      expect(await refusal(call())).toMatchObject({ code: 'UNAUTHORIZED', kind: 'UNAUTHORIZED' });
    }
    expect((await api.caller.tenants.list()).pagination.total).toBe(0);
  });
});
