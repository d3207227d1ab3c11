import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialects } from '@pits/persistence/testing';
import { TEST_NOW, type TestApi, openTestApi, refusal } from './testing/test-api.js';

const dialects = await testDialects();

describe.each(dialects)('[%s] partners', (dialect) => {
  let api: TestApi;
  let clock = TEST_NOW.getTime();
  beforeAll(async () => {
    api = await openTestApi(dialect, { now: () => new Date(clock) });
  });
  afterAll(() => api.t.cleanup());

  it('creates a partner with a public app id and key, and finds it by id and in the list', async () => {
    const created = await api.caller.partners.create({ name: 'Acme Apps', email: 'dev@acme.example', tier: 'medium' });
    expect(created).toMatchObject({ name: 'Acme Apps', email: 'dev@acme.example', tier: 'medium', createdAt: TEST_NOW.toISOString() });
    expect(created.appId).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.appKey).toMatch(/^app_[0-9a-f]{32}$/);
    expect(await api.caller.partners.byId({ id: created.id })).toEqual(created);
    expect((await api.caller.partners.list()).map((p) => p.id)).toContain(created.id);
  });

  it('trims the name and lists partners by id', async () => {
    const a = await api.caller.partners.create({ name: '  Beta  ', email: 'b@beta.example', tier: 'small' });
    const b = await api.caller.partners.create({ name: 'Gamma', email: 'g@gamma.example', tier: 'large' });
    expect(a.name).toBe('Beta');
    const ids = (await api.caller.partners.list()).map((p) => p.id);
    expect(ids.indexOf(a.id)).toBeLessThan(ids.indexOf(b.id));
  });

  it('sets the tier and stamps updatedAt', async () => {
    const created = await api.caller.partners.create({ name: 'Tiered', email: 't@t.example', tier: 'small' });
    clock += 60_000;
    const updated = await api.caller.partners.setTier({ id: created.id, tier: 'large' });
    expect(updated).toMatchObject({ id: created.id, tier: 'large', createdAt: created.createdAt, updatedAt: new Date(clock).toISOString() });
    expect((await api.caller.partners.byId({ id: created.id })).tier).toBe('large');
  });

  it('unknown partner ids are NOT_FOUND on id', async () => {
    expect(await refusal(api.caller.partners.byId({ id: 999_999 }))).toMatchObject({ code: 'NOT_FOUND', kind: 'NOT_FOUND', field: 'id' });
    expect(await refusal(api.caller.partners.setTier({ id: 999_999, tier: 'small' }))).toMatchObject({ code: 'NOT_FOUND', kind: 'NOT_FOUND', field: 'id' });
  });

  it('invalid inputs are BAD_REQUEST naming every offending field', async () => {
    const r = await refusal(api.caller.partners.create({ name: '', email: 'not-an-email', tier: 'huge' as 'small' }));
    expect(r).toMatchObject({ code: 'BAD_REQUEST', kind: 'VALIDATION_ERROR', field: 'name' });
    expect(r.issues.map((i) => i.field)).toEqual(['name', 'email', 'tier']);
    expect(r.message).toMatch(/^name: .*\(and 2 more\)$/);
    expect(await refusal(api.caller.partners.byId({ id: 0 }))).toMatchObject({ code: 'BAD_REQUEST', field: 'id' });
    expect(await refusal(api.caller.partners.byId({ id: 1.5 }))).toMatchObject({ code: 'BAD_REQUEST', field: 'id' });
    expect(await refusal(api.caller.partners.setTier({ id: 1, tier: 'gold' as 'small' }))).toMatchObject({ code: 'BAD_REQUEST', field: 'tier' });
    expect(await refusal(api.caller.partners.create({ name: 'X', email: 'x@x.example', tier: 'small', extra: 1 } as never))).toMatchObject({
      code: 'BAD_REQUEST',
      field: 'extra',
    });
  });

  it('without the service token every partner procedure is UNAUTHORIZED', async () => {
    for (const call of [
      () => api.anonymous.partners.create({ name: 'A', email: 'a@a.example', tier: 'small' }),
      () => api.anonymous.partners.list(),
      () => api.anonymous.partners.byId({ id: 1 }),
      () => api.anonymous.partners.setTier({ id: 1, tier: 'large' }),
    ]) {
      expect(await refusal(call())).toMatchObject({ code: 'UNAUTHORIZED', kind: 'UNAUTHORIZED', field: 'Authorization' });
    }
  });
});
