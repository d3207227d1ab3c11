import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '@pits/domain';
import { createInbound, receiveInbound } from '@pits/persistence';
import { testDialects } from '@pits/persistence/testing';
import { TEST_NOW, type TestApi, openTestApi, refusal } from './testing/test-api.js';

const dialects = await testDialects();

describe.each(dialects)('[%s] inbound', (dialect) => {
  let api: TestApi;
  let clock = TEST_NOW.getTime();
  let tenantId: string;
  let otherTenantId: string;
  let jakarta: number;
  let surabaya: number;
  let kopi: number;
  let teh: number;
  let foreignLocation: number;
  let foreignProduct: number;
  let foreignTeh: number;
  let warehouse: Actor;

  /** A pending shipment of 10.5 kopi and 3 teh to Jakarta. */
  const pending = async (tenant = tenantId, locationId = jakarta, products = [kopi, teh]) =>
    api.caller.inbound.create({
      tenantId: tenant,
      locationId,
      sourceType: 'purchase_order',
      sourceId: 77,
      sourceCode: 'PO-77',
      lines: [
        { productId: products[0]!, expectedQuantity: '10.5' },
        { productId: products[1]!, expectedQuantity: 3 },
      ],
    });

  beforeAll(async () => {
    api = await openTestApi(dialect, { now: () => new Date(clock) });
    const partner = await api.caller.partners.create({ name: 'Gudang App', email: 'dev@gudang.example', tier: 'small' });
    warehouse = { id: partner.id, name: partner.name, email: partner.email };
    tenantId = (await api.caller.tenants.create({ name: 'Coffee Roaster' })).id;
    otherTenantId = (await api.caller.tenants.create({ name: 'Someone Else' })).id;
    jakarta = (await api.caller.locations.create({ tenantId, code: 'WH-JKT', name: 'Jakarta' })).id;
    surabaya = (await api.caller.locations.create({ tenantId, code: 'WH-SBY', name: 'Surabaya' })).id;
    kopi = (await api.caller.products.create({ tenantId, sku: 'KOPI-250', name: 'Kopi 250 g', costPrice: '12.5' })).id;
    teh = (await api.caller.products.create({ tenantId, sku: 'TEH-100', name: 'Teh 100 g', costPrice: '3.25' })).id;
    foreignLocation = (await api.caller.locations.create({ tenantId: otherTenantId, code: 'WH-X', name: 'Theirs' })).id;
    foreignProduct = (await api.caller.products.create({ tenantId: otherTenantId, sku: 'KOPI-250', name: 'Their Kopi' })).id;
    foreignTeh = (await api.caller.products.create({ tenantId: otherTenantId, sku: 'TEH-100', name: 'Their Teh' })).id;
  });
  afterAll(() => api.t.cleanup());

  it('creates a pending shipment with its lines; list and byId show the same shipment', async () => {
    const created = await api.caller.inbound.create({
      tenantId,
      locationId: jakarta,
      sourceType: 'purchase_order',
      sourceId: 501,
      sourceCode: 'PO-501',
      inboundDate: '2026-11-25T09:00:00+07:00',
      notes: 'first delivery of the season',
      lines: [
        { productId: kopi, expectedQuantity: '10.5' },
        { productId: teh, expectedQuantity: 0.0001, unit: 'box', unitPrice: '4', notes: 'fragile' },
      ],
    });
    const at = TEST_NOW.toISOString();
    expect(created).toEqual({
      id: expect.any(Number),
      tenantId,
      code: 'INB-20261122-000001',
      inboundDate: '2026-11-25T02:00:00.000Z',
      sourceType: 'purchase_order',
      sourceId: 501,
      sourceCode: 'PO-501',
      location: { id: jakarta, code: 'WH-JKT', name: 'Jakarta' },
      status: 'pending',
      notes: 'first delivery of the season',
      receivedAt: null,
      cancelledAt: null,
      createdBy: 'internal-api',
      updatedBy: 'internal-api',
      createdAt: at,
      updatedAt: at,
      lines: [
        {
          id: expect.any(Number),
          product: { id: kopi, sku: 'KOPI-250', name: 'Kopi 250 g' },
          expected: '10.5',
          receivedGood: '0',
          receivedDamaged: '0',
          pending: '10.5',
          unit: 'pcs',
          unitPrice: '12.50',
          notes: '',
          gridId: null,
          receivedAt: null,
          receivedBy: null,
        },
        {
          id: expect.any(Number),
          product: { id: teh, sku: 'TEH-100', name: 'Teh 100 g' },
          expected: '0.0001',
          receivedGood: '0',
          receivedDamaged: '0',
          pending: '0.0001',
          unit: 'box',
          unitPrice: '4.00',
          notes: 'fragile',
          gridId: null,
          receivedAt: null,
          receivedBy: null,
        },
      ],
    });
    const list = await api.caller.inbound.list({ tenantId });
    expect(list).toEqual({ inbounds: [created], pagination: { page: 1, perPage: 20, total: 1, lastPage: 1, from: 1, to: 1, hasMorePages: false } });
    expect(await api.caller.inbound.byId({ tenantId, id: created.id })).toEqual(created);

    // A code of the caller's own choosing; inboundDate defaults to now.
    clock += 60_000;
    const named = await api.caller.inbound.create({ tenantId, locationId: surabaya, sourceType: 'return', sourceId: 0, sourceCode: 'RMA-9', code: 'ASN-2026-0042', lines: [{ productId: kopi, expectedQuantity: 1 }] });
    expect(named).toMatchObject({ code: 'ASN-2026-0042', inboundDate: new Date(clock).toISOString(), location: { id: surabaya, code: 'WH-SBY', name: 'Surabaya' }, notes: '' });
    expect((await pending()).code).toBe('INB-20261122-000002');
  });

  it('lists newest first, filters by status and location, pages, and never shows another tenant', async () => {
    await pending(otherTenantId, foreignLocation, [foreignProduct, foreignTeh]);
    clock += 60_000;
    const newest = await pending(tenantId, surabaya);
    await api.caller.inbound.cancel({ tenantId, id: newest.id });
    const all = await api.caller.inbound.list({ tenantId, perPage: 100 });
    const ids = all.inbounds.map((s) => s.id);
    expect(ids[0]).toBe(newest.id);
    expect(all.inbounds.every((s) => s.tenantId === tenantId)).toBe(true);
    expect(all.pagination.total).toBe(ids.length);

    expect((await api.caller.inbound.list({ tenantId, status: 'cancelled' })).inbounds.map((s) => s.id)).toEqual([newest.id]);
    expect((await api.caller.inbound.list({ tenantId, status: 'pending' })).inbounds.map((s) => s.id)).toEqual(ids.filter((id) => id !== newest.id));
    const inSurabaya = await api.caller.inbound.list({ tenantId, locationId: surabaya });
    expect(inSurabaya.inbounds.every((s) => s.location.id === surabaya)).toBe(true);
    expect(inSurabaya.inbounds[0]?.id).toBe(newest.id);
    expect((await api.caller.inbound.list({ tenantId, status: 'received' })).inbounds).toEqual([]);

    const second = await api.caller.inbound.list({ tenantId, page: 2, perPage: 1 });
    expect(second.inbounds.map((s) => s.id)).toEqual([ids[1]]);
    expect(second.pagination).toEqual({ page: 2, perPage: 1, total: ids.length, lastPage: ids.length, from: 2, to: 2, hasMorePages: true });
    const past = await api.caller.inbound.list({ tenantId, page: 99 });
    expect(past).toEqual({ inbounds: [], pagination: { page: 99, perPage: 20, total: ids.length, lastPage: 1, from: null, to: null, hasMorePages: false } });
    const theirs = (await api.caller.inbound.list({ tenantId: otherTenantId })).inbounds;
    expect(theirs.map((s) => [s.tenantId, s.location.id])).toEqual([[otherTenantId, foreignLocation]]);
    expect(ids).not.toContain(theirs[0]?.id);
  });

  it('cancels a pending shipment once; cancelling it again is CONFLICT with kind INVALID_STATE', async () => {
    const shipment = await pending();
    clock += 60_000;
    const cancelled = await api.caller.inbound.cancel({ tenantId, id: shipment.id });
    expect(cancelled).toEqual({ ...shipment, status: 'cancelled', cancelledAt: new Date(clock).toISOString(), updatedAt: new Date(clock).toISOString() });
    expect(await refusal(api.caller.inbound.cancel({ tenantId, id: shipment.id }))).toMatchObject({ code: 'CONFLICT', kind: 'INVALID_STATE', field: 'status' });
    expect(await api.caller.inbound.byId({ tenantId, id: shipment.id })).toEqual(cancelled);
  });

  it('a shipment that has started arriving cannot be cancelled; its lines show what arrived and what is pending', async () => {
    const shipment = await pending();
    const [kopiLine, tehLine] = shipment.lines.map((l) => l.id) as [number, number];
    await receiveInbound(
      api.t.database,
      { tenantId, id: shipment.id, actor: warehouse, receipts: [{ itemId: kopiLine, quantity: '4' }, { itemId: kopiLine, quantity: '1.5', condition: 'damaged', gridId: 'G-7' }] },
      new Date(clock),
    );
    expect(await refusal(api.caller.inbound.cancel({ tenantId, id: shipment.id }))).toMatchObject({ code: 'CONFLICT', kind: 'INVALID_STATE', field: 'status' });
    const partial = await api.caller.inbound.byId({ tenantId, id: shipment.id });
    expect(partial.status).toBe('partial');
    expect(partial.cancelledAt).toBeNull();
    expect(partial.lines.map((l) => [l.expected, l.receivedGood, l.receivedDamaged, l.pending, l.gridId, l.receivedBy])).toEqual([
      ['10.5', '4', '1.5', '5', 'G-7', 'Gudang App'],
      ['3', '0', '0', '3', null, null],
    ]);

    await receiveInbound(
      api.t.database,
      { tenantId, id: shipment.id, actor: warehouse, receipts: [{ itemId: kopiLine, quantity: '5' }, { itemId: tehLine, quantity: 3 }] },
      new Date(clock),
    );
    expect(await refusal(api.caller.inbound.cancel({ tenantId, id: shipment.id }))).toMatchObject({ code: 'CONFLICT', kind: 'INVALID_STATE' });
    const received = await api.caller.inbound.byId({ tenantId, id: shipment.id });
    expect(received).toMatchObject({ status: 'received', receivedAt: new Date(clock).toISOString(), cancelledAt: null });
    expect(received.lines.map((l) => l.pending)).toEqual(['0', '0']);
    expect((await api.caller.stock.levels({ tenantId, locationId: jakarta, productId: kopi })).levels[0]).toMatchObject({ good: '9', damaged: '1.5' });
  });

  it('refuses a product listed twice, and a location or product that is not the tenant’s, naming the field; nothing is written', async () => {
    const before = await api.caller.inbound.list({ tenantId, perPage: 100 });
    const base = { tenantId, locationId: jakarta, sourceType: 'purchase_order', sourceId: 1, sourceCode: 'PO-1' };
    const twice = await refusal(
      api.caller.inbound.create({ ...base, lines: [{ productId: kopi, expectedQuantity: 1 }, { productId: teh, expectedQuantity: 1 }, { productId: kopi, expectedQuantity: 2 }] }),
    );
    expect(twice).toMatchObject({ code: 'BAD_REQUEST', kind: 'VALIDATION_ERROR', field: 'lines[2].productId' });
    expect(twice.issues[0]?.issue).toContain('lines[0].productId');
    expect(await refusal(api.caller.inbound.create({ ...base, locationId: foreignLocation, lines: [{ productId: kopi, expectedQuantity: 1 }] }))).toMatchObject({
      code: 'BAD_REQUEST',
      kind: 'VALIDATION_ERROR',
      field: 'locationId',
    });
    const products = await refusal(
      api.caller.inbound.create({ ...base, lines: [{ productId: kopi, expectedQuantity: 1 }, { productId: foreignProduct, expectedQuantity: 1 }, { productId: 999_999, expectedQuantity: 1 }] }),
    );
    expect(products).toMatchObject({ code: 'BAD_REQUEST', kind: 'VALIDATION_ERROR', field: 'lines[1].productId' });
    expect(products.issues.map((i) => i.field)).toEqual(['lines[1].productId', 'lines[2].productId']);
    expect(await api.caller.inbound.list({ tenantId, perPage: 100 })).toEqual(before);
  });

  it('refuses malformed inputs with BAD_REQUEST on the field', async () => {
    const base = { tenantId, locationId: jakarta, sourceType: 'purchase_order', sourceId: 1, sourceCode: 'PO-1', lines: [{ productId: kopi, expectedQuantity: 1 }] };
    const line = (changes: Record<string, unknown>) => ({ ...base, lines: [{ productId: kopi, expectedQuantity: 1, ...changes }] });
    for (const [input, field] of [
      [{ ...base, lines: [] }, 'lines'],
      [{ ...base, lines: Array.from({ length: 501 }, (_, i) => ({ productId: i + 1, expectedQuantity: 1 })) }, 'lines'],
      [line({ expectedQuantity: 0 }), 'lines[0].expectedQuantity'],
      [line({ expectedQuantity: '-1' }), 'lines[0].expectedQuantity'],
      [line({ expectedQuantity: '1.23456' }), 'lines[0].expectedQuantity'],
      [line({ unitPrice: '1.234' }), 'lines[0].unitPrice'],
      [line({ unitPrice: 5 }), 'lines[0].unitPrice'],
      [line({ unit: '' }), 'lines[0].unit'],
      [{ ...base, inboundDate: '2026-11-31' }, 'inboundDate'],
      [{ ...base, sourceType: ' ' }, 'sourceType'],
      [{ ...base, sourceId: 1.5 }, 'sourceId'],
      [{ ...base, code: 'INB-20261122-000099' }, 'code'],
      [{ ...base, surprise: true }, 'surprise'],
    ] as const) {
      expect(await refusal(api.caller.inbound.create(input as never)), field).toMatchObject({ code: 'BAD_REQUEST', kind: 'VALIDATION_ERROR', field });
    }
    expect(await refusal(api.caller.inbound.list({ tenantId, status: 'lost' as 'pending' }))).toMatchObject({ code: 'BAD_REQUEST', field: 'status' });
    expect(await refusal(api.caller.inbound.list({ tenantId, perPage: 101 }))).toMatchObject({ code: 'BAD_REQUEST', field: 'perPage' });
  });

  it('a code the tenant already uses is BAD_REQUEST on code; another tenant may use it', async () => {
    const input = { tenantId, locationId: jakarta, sourceType: 'transfer', sourceId: 9, sourceCode: 'TRF-9', code: 'ASN-DUP', lines: [{ productId: kopi, expectedQuantity: 2 }] };
    await api.caller.inbound.create(input);
    const before = await api.caller.inbound.list({ tenantId, perPage: 100 });
    expect(await refusal(api.caller.inbound.create(input))).toMatchObject({ code: 'BAD_REQUEST', kind: 'VALIDATION_ERROR', field: 'code' });
    expect(await api.caller.inbound.list({ tenantId, perPage: 100 })).toEqual(before);
    const theirs = await api.caller.inbound.create({ ...input, tenantId: otherTenantId, locationId: foreignLocation, lines: [{ productId: foreignProduct, expectedQuantity: 2 }] });
    expect(theirs.code).toBe('ASN-DUP');
  });

  it('a generated code taken by a code stored earlier is BAD_REQUEST on code, and naming a code gets past it', async () => {
    const store = (await api.caller.tenants.create({ name: 'Legacy Store' })).id;
    const locationId = (await api.caller.locations.create({ tenantId: store, code: 'WH-L', name: 'Legacy' })).id;
    const productId = (await api.caller.products.create({ tenantId: store, sku: 'OLD', name: 'Old' })).id;
    const lines = [{ productId, expectedQuantity: '1' }];
    // Imported before generated codes were reserved: the persistence layer takes any code.
    await createInbound(api.t.database, { tenantId: store, locationId, sourceType: 'import', sourceId: 1, sourceCode: 'LEGACY', code: 'INB-20261122-000001', createdBy: 'import', lines }, new Date(clock));
    const base = { tenantId: store, locationId, sourceType: 'po', sourceId: 2, sourceCode: 'PO-2', lines };
    const taken = await refusal(api.caller.inbound.create(base));
    expect(taken).toMatchObject({ code: 'BAD_REQUEST', kind: 'VALIDATION_ERROR', field: 'code' });
    expect(taken.issues[0]?.issue).toContain('give a code');
    expect((await api.caller.inbound.create({ ...base, code: 'PO-2-ASN' })).code).toBe('PO-2-ASN');
  });

  it("another tenant's shipment is NOT_FOUND on id, exactly like an unknown one, and is not touched; an unknown tenant is NOT_FOUND on tenantId", async () => {
    const theirs = await pending(otherTenantId, foreignLocation, [foreignProduct, foreignTeh]);
    for (const call of [
      () => api.caller.inbound.byId({ tenantId, id: theirs.id }),
      () => api.caller.inbound.cancel({ tenantId, id: theirs.id }),
      () => api.caller.inbound.byId({ tenantId, id: 999_999 }),
      () => api.caller.inbound.cancel({ tenantId, id: 999_999 }),
    ]) {
      expect(await refusal(call())).toMatchObject({ code: 'NOT_FOUND', kind: 'NOT_FOUND', field: 'id' });
    }
    expect((await api.caller.inbound.byId({ tenantId: otherTenantId, id: theirs.id })).status).toBe('pending');

    const ghost = randomUUID();
    for (const call of [
      () => pending(ghost),
      () => api.caller.inbound.cancel({ tenantId: ghost, id: theirs.id }),
      () => api.caller.inbound.list({ tenantId: ghost }),
      () => api.caller.inbound.byId({ tenantId: ghost, id: theirs.id }),
    ]) {
      expect(await refusal(call())).toMatchObject({ code: 'NOT_FOUND', kind: 'NOT_FOUND', field: 'tenantId' });
    }
  });

  it('without the service token every inbound procedure is UNAUTHORIZED, and nothing changes', async () => {
    const shipment = await pending();
    const before = await api.caller.inbound.list({ tenantId, perPage: 100 });
    for (const call of [
      () => api.anonymous.inbound.create({ tenantId, locationId: jakarta, sourceType: 'po', sourceId: 1, sourceCode: 'PO-1', lines: [{ productId: kopi, expectedQuantity: 1 }] }),
      () => api.anonymous.inbound.cancel({ tenantId, id: shipment.id }),
      () => api.anonymous.inbound.list({ tenantId }),
      () => api.anonymous.inbound.byId({ tenantId, id: shipment.id }),
    ]) {
      expect(await refusal(call())).toMatchObject({ code: 'UNAUTHORIZED', kind: 'UNAUTHORIZED' });
    }
    expect(await api.caller.inbound.list({ tenantId, perPage: 100 })).toEqual(before);
  });
});
