import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialects } from '@pits/persistence/testing';
import { TEST_NOW, type TestApi, openTestApi, refusal } from './testing/test-api.js';

const dialects = await testDialects();

describe.each(dialects)('[%s] locations', (dialect) => {
  let api: TestApi;
  let clock = TEST_NOW.getTime();
  let tenantId: string;
  let otherTenantId: string;
  beforeAll(async () => {
    api = await openTestApi(dialect, { now: () => new Date(clock) });
    tenantId = (await api.caller.tenants.create({ name: 'Warehouse Owner' })).id;
    otherTenantId = (await api.caller.tenants.create({ name: 'Someone Else' })).id;
  });
  afterAll(() => api.t.cleanup());

  it('creates a location from code and name with defaults for the rest', async () => {
    const created = await api.caller.locations.create({ tenantId, code: 'WH-JKT', name: 'Jakarta' });
    expect(created).toMatchObject({
      tenantId,
      code: 'WH-JKT',
      name: 'Jakarta',
      type: 'warehouse',
      country: 'Indonesia',
      latitude: '0',
      isDefault: false,
      isPickup: false,
      isReturn: false,
      status: 'active',
      originCode: null,
      receivingGrid: 'RCV-01',
      createdBy: 'internal-api',
      createdAt: TEST_NOW.toISOString(),
    });
  });

  it('creates a location with every field', async () => {
    const created = await api.caller.locations.create({
      tenantId,
      code: 'WH-SBY',
      name: 'Surabaya',
      type: 'store',
      address: 'Jl. Pemuda 2',
      city: 'Surabaya',
      state: 'Jawa Timur',
      zip: '60271',
      subdistrict: 'Embong Kaliasin',
      country: 'Indonesia',
      picName: 'Sari',
      phone: '+62315678',
      latitude: '-7.2653',
      longitude: '112.7425',
      isDefault: true,
      isPickup: true,
      isReturn: true,
      status: 'inactive',
      originCode: 'SUB',
      receivingGrid: 'RCV-09',
    });
    expect(created).toMatchObject({ city: 'Surabaya', picName: 'Sari', latitude: '-7.2653', longitude: '112.7425', isDefault: true, isReturn: true, status: 'inactive', originCode: 'SUB', receivingGrid: 'RCV-09' });
  });

  it('update changes the given fields only and stamps updatedAt', async () => {
    const created = await api.caller.locations.create({ tenantId, code: 'WH-BDG', name: 'Bandung', city: 'Bandung', phone: '+6222' });
    clock += 3_600_000;
    const updated = await api.caller.locations.update({ tenantId, id: created.id, changes: { name: 'Bandung Utara', isPickup: true, originCode: null } });
    expect(updated).toEqual({ ...created, name: 'Bandung Utara', isPickup: true, updatedAt: new Date(clock).toISOString() });
    const listed = await api.caller.locations.list({ tenantId, perPage: 100 });
    expect(listed.locations.find((l) => l.id === created.id)).toEqual(updated);
  });

  it("lists the tenant's locations by id, a page at a time, and never another tenant's", async () => {
    const own = await api.caller.locations.list({ tenantId, perPage: 100 });
    await api.caller.locations.create({ tenantId: otherTenantId, code: 'WH-JKT', name: 'Theirs' });
    const ids = own.locations.map((l) => l.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    const firstPage = await api.caller.locations.list({ tenantId, perPage: 1 });
    expect(firstPage.locations.map((l) => l.id)).toEqual([ids[0]]);
    expect(firstPage.pagination).toMatchObject({ page: 1, perPage: 1, total: own.pagination.total, hasMorePages: true });
    expect((await api.caller.locations.list({ tenantId, perPage: 100 })).locations.every((l) => l.tenantId === tenantId)).toBe(true);
    const theirs = await api.caller.locations.list({ tenantId: otherTenantId });
    expect(theirs.locations.map((l) => l.name)).toEqual(['Theirs']);
  });

  it('an unknown tenant is NOT_FOUND on tenantId; an unknown or foreign location NOT_FOUND on id', async () => {
    const ghost = randomUUID();
    for (const call of [
      () => api.caller.locations.create({ tenantId: ghost, code: 'X', name: 'X' }),
      () => api.caller.locations.update({ tenantId: ghost, id: 1, changes: { name: 'X' } }),
      () => api.caller.locations.list({ tenantId: ghost }),
    ]) {
      expect(await refusal(call())).toMatchObject({ code: 'NOT_FOUND', kind: 'NOT_FOUND', field: 'tenantId' });
    }
    const foreign = await api.caller.locations.create({ tenantId: otherTenantId, code: 'WH-FOREIGN', name: 'Foreign' });
    expect(await refusal(api.caller.locations.update({ tenantId, id: foreign.id, changes: { name: 'Mine now' } }))).toMatchObject({ code: 'NOT_FOUND', field: 'id' });
    expect(await refusal(api.caller.locations.update({ tenantId, id: 999_999, changes: { name: 'X' } }))).toMatchObject({ code: 'NOT_FOUND', field: 'id' });
  });

  it('a code taken for the tenant is BAD_REQUEST on the code field', async () => {
    const a = await api.caller.locations.create({ tenantId, code: 'DUP-1', name: 'A' });
    await api.caller.locations.create({ tenantId, code: 'DUP-2', name: 'B' });
    expect(await refusal(api.caller.locations.create({ tenantId, code: 'DUP-1', name: 'Again' }))).toMatchObject({ code: 'BAD_REQUEST', kind: 'VALIDATION_ERROR', field: 'code' });
    expect(await refusal(api.caller.locations.update({ tenantId, id: a.id, changes: { code: 'DUP-2' } }))).toMatchObject({ code: 'BAD_REQUEST', field: 'changes.code' });
  });

  it('invalid inputs are BAD_REQUEST with the field path', async () => {
    expect(await refusal(api.caller.locations.create({ tenantId, code: '', name: 'X' }))).toMatchObject({ code: 'BAD_REQUEST', field: 'code' });
    expect(await refusal(api.caller.locations.create({ tenantId, code: 'Y', name: 'Y', latitude: 'north' }))).toMatchObject({ code: 'BAD_REQUEST', field: 'latitude' });
    expect(await refusal(api.caller.locations.create({ tenantId: 'nope', code: 'Y', name: 'Y' }))).toMatchObject({ code: 'BAD_REQUEST', field: 'tenantId' });
    const r = await refusal(api.caller.locations.update({ tenantId, id: 1, changes: { status: 'closed' as 'active', isDefault: 'yes' as unknown as boolean } }));
    expect(r).toMatchObject({ code: 'BAD_REQUEST', kind: 'VALIDATION_ERROR' });
    expect(r.issues.map((i) => i.field).sort()).toEqual(['changes.isDefault', 'changes.status']);
    expect(await refusal(api.caller.locations.update({ tenantId, id: 1, changes: { picname: 'typo' } as never }))).toMatchObject({ code: 'BAD_REQUEST', field: 'changes.picname' });
    expect(await refusal(api.caller.locations.list({ tenantId, perPage: 0 }))).toMatchObject({ code: 'BAD_REQUEST', field: 'perPage' });
  });

  it('without the service token every location procedure is UNAUTHORIZED, and nothing changes', async () => {
    const before = await api.caller.locations.list({ tenantId, perPage: 100 });
    for (const call of [
      () => api.anonymous.locations.create({ tenantId, code: 'NOPE', name: 'Nope' }),
      () => api.anonymous.locations.update({ tenantId, id: before.locations[0]!.id, changes: { name: 'Nope' } }),
      () => api.anonymous.locations.list({ tenantId }),
    ]) {
      expect(await refusal(call())).toMatchObject({ code: 'UNAUTHORIZED', kind: 'UNAUTHORIZED' });
    }
    expect(await api.caller.locations.list({ tenantId, perPage: 100 })).toEqual(before);
  });
});
