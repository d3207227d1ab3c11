// Order holds through the assembled gateway (docs/holds.md): every success checked against the
// contract's strict response schemas, every refusal against the error envelope, and the stock that
// a hold takes and gives back read through GET /stock.
import { errorEnvelope, reservationListResponse, reservationResponse, stockLevelsResponse, stockMovementsResponse } from '@pits/contract';
import { createReservation } from '@pits/persistence';
import { type TenantWorld, ageReservation, seedTenantWorld, testDialects } from '@pits/persistence/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TenantGateway, openTenantGateway } from '../testing/tenant-gateway.js';

const dialects = await testDialects();
const BASE = '/api/partner/v1/reservations';
const SECOND = 1000;

describe.each(dialects)('[%s] reservation routes', (dialect) => {
  let g: TenantGateway;
  let w: TenantWorld;
  beforeAll(async () => {
    g = await openTenantGateway(dialect, { products: 8, openingGood: '10' });
    w = g.w;
  });
  afterAll(() => g.close());
  const call: TenantGateway['call'] = (...args) => g.call(...args);
  const jakarta = () => w.locations[0].id;
  const idOf = (index: number) => w.products[index]!.id;
  /** good, reserved, reserved_for_orders, available of a product at Jakarta. */
  const stockOf = async (index: number) => {
    const level = (await call(stockLevelsResponse, 'GET', `/api/partner/v1/stock?location_id=${jakarta()}&product_id=${idOf(index)}`)).data.stock[0]!;
    return [level.good, level.reserved, level.reserved_for_orders, level.available];
  };
  const hold = (reference: string, items: unknown[], extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
    call(reservationResponse, 'POST', BASE, { location_id: jakarta(), reference, items, ...extra }, 201, headers);

  it('creates a hold (201) that GET /stock counts in reserved_for_orders, and shows and lists it', async () => {
    const created = (await hold('ORD-1', [{ sku: 'SKU-1', quantity: 3 }, { product_id: String(idOf(1)), quantity: '1.5' }])).data.reservation;
    expect(created).toMatchObject({
      id: created.reservation_number,
      reference: 'ORD-1',
      location_id: jakarta(),
      status: 'active',
      consumed_at: null,
      released_at: null,
      release_reason: null,
      created_by: { id: w.partner.id, name: w.partner.name, email: w.partner.email },
    });
    expect(created.reservation_number).toMatch(/^RSV-\d{8}-000001$/);
    expect(created.items).toEqual([
      { product_id: String(idOf(0)), sku: 'SKU-1', product_name: 'Product 1', quantity: 3, consumed_quantity: 0, allocations: [] },
      { product_id: String(idOf(1)), sku: 'SKU-2', product_name: 'Product 2', quantity: 1.5, consumed_quantity: 0, allocations: [] },
    ]);
    // The default expiry: 900 seconds after creation, by the database's clock.
    expect(Date.parse(created.expires_at) - Date.parse(created.created_at)).toBe(900 * SECOND);
    expect(await stockOf(0)).toEqual([10, 3, 3, 7]);
    expect(await stockOf(1)).toEqual([10, 1.5, 1.5, 8.5]);
    const stock = (await call(stockLevelsResponse, 'GET', `/api/partner/v1/stock?product_id=${idOf(0)}`)).data.stock[0]!;
    expect(stock).toMatchObject({ reserved_for_transfers: 0, reserved_for_orders: 3 });

    expect((await call(reservationResponse, 'GET', `${BASE}/${created.id}`)).data.reservation).toEqual(created);
    const ids = async (query: string) => {
      const list = await call(reservationListResponse, 'GET', `${BASE}?${query}`);
      return { ids: list.data.reservations.map((r) => r.id), total: list.data.pagination.total };
    };
    expect(await ids('reference=ORD-1')).toEqual({ ids: [created.id], total: 1 });
    expect(await ids(`status=active&location_id=${jakarta()}&sku=SKU-2`)).toEqual({ ids: [created.id], total: 1 });
    expect(await ids(`product_id=${idOf(0)}`)).toEqual({ ids: [created.id], total: 1 });
    expect(await ids(`product_id=${idOf(7)}`)).toEqual({ ids: [], total: 0 });
    expect(await ids('status=consumed&reference=ORD-1')).toEqual({ ids: [], total: 0 });
    expect(await ids('sku=NO-SUCH-SKU')).toEqual({ ids: [], total: 0 });
    expect(await ids(`product_id=${idOf(0)}&sku=SKU-1`)).toEqual({ ids: [created.id], total: 1 });
    expect(await ids(`product_id=${idOf(0)}&sku=SKU-2`)).toEqual({ ids: [], total: 0 });
    const list = await call(reservationListResponse, 'GET', `${BASE}?reference=ORD-1`);
    expect(list.data.pagination).toEqual({ current_page: 1, per_page: 10, total: 1, last_page: 1 });
    expect(list.data.reservations[0]).toEqual(created);
  });

  it('extends an active hold from now, releases it with its reason, and refuses a second release with INVALID_STATE', async () => {
    const held = (await hold('ORD-2', [{ sku: 'SKU-3', quantity: 4 }], { expires_in: 60 })).data.reservation;
    expect(Date.parse(held.expires_at) - Date.parse(held.created_at)).toBe(60 * SECOND);
    const extended = (await call(reservationResponse, 'POST', `${BASE}/${held.id}/extend`, { expires_in: 3600 })).data.reservation;
    expect(extended.status).toBe('active');
    expect(Date.parse(extended.expires_at) - Date.parse(extended.updated_at)).toBe(3600 * SECOND);
    expect(await stockOf(2)).toEqual([10, 4, 4, 6]);

    const released = (await call(reservationResponse, 'POST', `${BASE}/${held.id}/release`, { reason: 'customer cancelled' })).data.reservation;
    expect(released).toMatchObject({ status: 'released', release_reason: 'customer cancelled', consumed_at: null, items: [{ quantity: 4, consumed_quantity: 0 }] });
    expect(released.released_at).not.toBeNull();
    expect(await stockOf(2)).toEqual([10, 0, 0, 10]);

    const again = await call(errorEnvelope, 'POST', `${BASE}/${held.id}/release`, {}, 422);
    expect(again.error).toMatchObject({ code: 'INVALID_STATE', details: { field: 'status' } });
    expect(again.error.message).toContain('released');
    for (const [action, body] of [['extend', { expires_in: 600 }], ['consume', {}]] as const) {
      expect((await call(errorEnvelope, 'POST', `${BASE}/${held.id}/${action}`, body, 422)).error.code).toBe('INVALID_STATE');
    }
    expect(await stockOf(2)).toEqual([10, 0, 0, 10]);
    // A release without a body, and a reference freed by the release can be held again.
    const next = (await hold('ORD-2', [{ sku: 'SKU-3', quantity: 1 }])).data.reservation;
    const bare = await fetch(`${g.url}${BASE}/${next.id}/release`, { method: 'POST', headers: { Authorization: g.key, 'X-Tenant-Id': w.tenant.id } });
    expect(bare.status).toBe(200);
    expect(reservationResponse.parse(await bare.json()).data.reservation).toMatchObject({ status: 'released', release_reason: null });
    // An empty reason is none.
    const third = (await hold('ORD-2', [{ sku: 'SKU-3', quantity: 1 }])).data.reservation;
    expect((await call(reservationResponse, 'POST', `${BASE}/${third.id}/release`, { reason: '' })).data.reservation).toMatchObject({ status: 'released', release_reason: null });
  });

  it('consumes a hold whole, or in part releasing the rest, with ledger rows caused by the reservation', async () => {
    const whole = (await hold('ORD-3', [{ sku: 'SKU-4', quantity: 2 }])).data.reservation;
    const consumed = (await call(reservationResponse, 'POST', `${BASE}/${whole.id}/consume`, {})).data.reservation;
    expect(consumed).toMatchObject({ status: 'consumed', released_at: null, items: [{ sku: 'SKU-4', quantity: 2, consumed_quantity: 2 }] });
    expect(consumed.consumed_at).not.toBeNull();
    expect(await stockOf(3)).toEqual([8, 0, 0, 8]);
    const movements = await call(stockMovementsResponse, 'GET', `/api/partner/v1/stock/movements?product_id=${idOf(3)}&limit=3`);
    expect(movements.data.movements.map((m) => [m.cause_type, m.document_number, m.bucket, m.quantity_change]).sort()).toEqual([
      ['reservation', whole.id, 'good', -2],
      ['reservation', whole.id, 'reserved', -2],
      ['reservation', whole.id, 'reserved', 2],
    ].sort());

    const part = (await hold('ORD-4', [{ sku: 'SKU-5', quantity: 5 }, { sku: 'SKU-6', quantity: 3 }])).data.reservation;
    const partial = (await call(reservationResponse, 'POST', `${BASE}/${part.id}/consume`, { items: [{ product_id: idOf(4), quantity: '2.5' }] })).data.reservation;
    expect(partial.status).toBe('consumed');
    expect(partial.items.map((i) => [i.sku, i.quantity, i.consumed_quantity])).toEqual([
      ['SKU-5', 5, 2.5],
      ['SKU-6', 3, 0],
    ]);
    expect(await stockOf(4)).toEqual([7.5, 0, 0, 7.5]);
    expect(await stockOf(5)).toEqual([10, 0, 0, 10]);
  });

  it('refuses more than is available with INSUFFICIENT_STOCK naming every short line, and holds nothing', async () => {
    const refused = await call(errorEnvelope, 'POST', BASE, {
      location_id: jakarta(),
      reference: 'ORD-5',
      items: [{ sku: 'SKU-7', quantity: 11 }, { sku: 'SKU-8', quantity: 2 }, { sku: 'SKU-1', quantity: '7.0001' }],
    }, 422);
    expect(refused.status).toBe('unprocessable_entity');
    expect(refused.error.code).toBe('INSUFFICIENT_STOCK');
    expect(refused.error.details.field).toBe('items[0].quantity');
    expect(refused.error.issues?.map((i) => (i as { field: string }).field)).toEqual(['items[0].quantity', 'items[2].quantity']);
    expect([await stockOf(6), await stockOf(7), await stockOf(0)]).toEqual([
      [10, 0, 0, 10],
      [10, 0, 0, 10],
      [10, 3, 3, 7],
    ]);
    expect((await call(reservationListResponse, 'GET', `${BASE}?reference=ORD-5`)).data.pagination.total).toBe(0);
  });

  it('refuses invalid input with VALIDATION_ERROR on the field at fault', async () => {
    const line = { sku: 'SKU-8', quantity: 1 };
    const body = { location_id: jakarta(), reference: 'ORD-6', items: [line] };
    const cases: [unknown, string, string][] = [
      [{ ...body, reference: undefined }, 'reference', 'is required'],
      [{ ...body, expires_in: 59 }, 'expires_in', 'must be at least 60'],
      [{ ...body, items: [{ product_id: idOf(7), quantity: 1 }, { product_id: String(idOf(7)), quantity: 1 }] }, 'items[1].product_id', 'is the same product as items[0].product_id'],
      [{ ...body, items: [line, { product_id: idOf(7), quantity: 1 }] }, 'items[1].product_id', 'is the same product as items[0]'],
      [{ ...body, items: [{ ...line, product_id: idOf(7) }] }, 'items[0].sku', 'must not be given together with product_id'],
      [{ ...body, reference: 'ORD-1' }, 'reference', 'an active reservation already holds stock for reference "ORD-1"'],
    ];
    for (const [input, field, issue] of cases) {
      const refused = await call(errorEnvelope, 'POST', BASE, input, 422);
      expect(refused.error, JSON.stringify(input)).toMatchObject({ code: 'VALIDATION_ERROR', details: { field, issue } });
    }
    const list = await call(errorEnvelope, 'GET', `${BASE}?status=pending`, undefined, 422);
    expect(list.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'status' } });
    const active = (await call(reservationListResponse, 'GET', `${BASE}?reference=ORD-1`)).data.reservations[0]!;
    const extend = await call(errorEnvelope, 'POST', `${BASE}/${active.id}/extend`, { expires_in: 604_801 }, 422);
    expect(extend.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'expires_in', issue: 'must be at most 604800' } });
    const consume = await call(errorEnvelope, 'POST', `${BASE}/${active.id}/consume`, { items: [{ sku: 'SKU-1', quantity: 4 }] }, 422);
    expect(consume.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'items[0].quantity', issue: 'must be at most the held quantity, 3' } });
    expect(await stockOf(7)).toEqual([10, 0, 0, 10]);
    expect((await call(reservationResponse, 'GET', `${BASE}/${active.id}`)).data.reservation.status).toBe('active');
  });

  it("answers 404 for another tenant's reservation and an unknown id, on every route", async () => {
    const other = await seedTenantWorld(g.t.database, { label: 'Other', products: 1, openingGood: '5' });
    // Numbers run per tenant: hold for the other tenant until it has a number this one lacks.
    const ours = new Set((await call(reservationListResponse, 'GET', `${BASE}?per_page=100`)).data.reservations.map((r) => r.id));
    const holdTheirs = (n: number) =>
      createReservation(g.t.database, {
        tenantId: other.tenant.id,
        partnerId: other.partner.id,
        actor: other.actor,
        locationId: other.locations[0].id,
        reference: `THEIR-ORDER-${n}`,
        expiresIn: 900,
        items: [{ productId: other.products[0]!.id, quantity: '0.01' }],
      });
    let theirs = await holdTheirs(0);
    for (let n = 1; ours.has(theirs.number); n += 1) theirs = await holdTheirs(n);
    for (const id of [theirs.number, 'RSV-20000101-000001', 'nope']) {
      expect((await call(errorEnvelope, 'GET', `${BASE}/${id}`, undefined, 404)).error.code).toBe('NOT_FOUND');
      for (const [action, body] of [['extend', { expires_in: 600 }], ['release', {}], ['consume', {}]] as const) {
        expect((await call(errorEnvelope, 'POST', `${BASE}/${id}/${action}`, body, 404)).error.code).toBe('NOT_FOUND');
      }
    }
    expect((await call(reservationListResponse, 'GET', `${BASE}?reference=${theirs.reference}`)).data.reservations).toEqual([]);
  });

  it('replays a create sent again with the same Idempotency-Key without holding twice', async () => {
    const headers = { 'Idempotency-Key': `hold-${dialect}` };
    const items = [{ sku: 'SKU-8', quantity: 2 }];
    const first = await hold('ORD-7', items, {}, headers);
    const again = await hold('ORD-7', items, {}, headers);
    expect(again.data).toEqual(first.data);
    expect(await stockOf(7)).toEqual([10, 2, 2, 8]);
    expect((await call(reservationListResponse, 'GET', `${BASE}?reference=ORD-7`)).data.pagination.total).toBe(1);
    const reused = await call(errorEnvelope, 'POST', BASE, { location_id: jakarta(), reference: 'ORD-8', items }, 422, headers);
    expect(reused.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('finds a hold past its expires_at expired: listed as expired, and every action is INVALID_STATE', async () => {
    const held = (await hold('ORD-9', [{ sku: 'SKU-7', quantity: 1 }])).data.reservation;
    await ageReservation(g.t.database, w.tenant.id, held.id);
    expect((await call(reservationResponse, 'GET', `${BASE}/${held.id}`)).data.reservation.status).toBe('expired');
    expect((await call(reservationListResponse, 'GET', `${BASE}?status=expired&reference=ORD-9`)).data.reservations.map((r) => r.id)).toEqual([held.id]);
    const before = await stockOf(6); // SKU-7
    for (const [action, body] of [['extend', { expires_in: 600 }], ['release', {}], ['consume', {}]] as const) {
      // With an Idempotency-Key the call runs in the request's transaction: the expiry it finds must still commit.
      const refused = await call(errorEnvelope, 'POST', `${BASE}/${held.id}/${action}`, body, 422, { 'Idempotency-Key': `expired-${action}-${held.id}` });
      expect(refused.error).toMatchObject({ code: 'INVALID_STATE', message: expect.stringContaining('expired') });
    }
    // The first refused call expired the hold for good: its unit is available again, given back once.
    expect(await stockOf(6)).toEqual([before[0], before[1]! - 1, before[2]! - 1, before[3]! + 1]);
    const stored = await g.t.database.db.selectFrom('reservations').select('status').where('number', '=', held.id).where('tenant_id', '=', w.tenant.id).executeTakeFirstOrThrow();
    expect(stored.status).toBe('expired');
  });
});
