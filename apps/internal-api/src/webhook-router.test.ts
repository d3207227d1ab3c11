import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '@pits/domain';
import { claimDueDeliveries, receiveInbound, recordDeliveryAttempt } from '@pits/persistence';
import { connectTenant, testDialects } from '@pits/persistence/testing';
import { createInternalCaller } from './router.js';
import { TEST_NOW, type TestApi, openTestApi, refusal } from './testing/test-api.js';

const dialects = await testDialects();

describe.each(dialects)('[%s] webhooks', (dialect) => {
  let api: TestApi;
  let clock = TEST_NOW.getTime();
  let seq = 0;

  async function partner(): Promise<Actor> {
    seq += 1;
    const p = await api.caller.partners.create({ name: `Hooked ${seq}`, email: `dev${seq}@hooked.example`, tier: 'small' });
    return { id: p.id, name: p.name, email: p.email };
  }

  /** A tenant installed for the partner, with a location and a pending shipment of 5 of one product. */
  async function shipmentFor(actor: Actor) {
    const tenantId = (await api.caller.tenants.create({ name: `Store ${seq}` })).id;
    await connectTenant(api.t.database, { partnerId: actor.id, tenantId, daysConnected: 1, installationType: 'custom' }, new Date(clock));
    const locationId = (await api.caller.locations.create({ tenantId, code: 'WH-1', name: 'Main' })).id;
    const productId = (await api.caller.products.create({ tenantId, sku: 'KOPI', name: 'Kopi' })).id;
    const shipment = await api.caller.inbound.create({ tenantId, locationId, sourceType: 'po', sourceId: 1, sourceCode: 'PO-1', lines: [{ productId, expectedQuantity: 5 }] });
    return { tenantId, shipment };
  }

  beforeAll(async () => {
    api = await openTestApi(dialect, { now: () => new Date(clock) });
  });
  afterAll(() => api.t.cleanup());

  it('registers an endpoint: the whsec_ secret is returned once and stored only encrypted', async () => {
    const { id: partnerId } = await partner();
    const created = await api.caller.webhooks.create({ partnerId, url: 'https://partner.example/hooks/pits', eventTypes: ['inbound.status_changed', 'transfer.status_changed'], description: 'warehouse app' });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9_-]{32}$/);
    expect(created.endpoint).toEqual({
      id: expect.any(Number),
      partnerId,
      url: 'https://partner.example/hooks/pits',
      eventTypes: ['inbound.status_changed', 'transfer.status_changed'],
      description: 'warehouse app',
      isActive: true,
      createdAt: TEST_NOW.toISOString(),
      updatedAt: TEST_NOW.toISOString(),
    });
    const row = await api.t.database.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', created.endpoint.id).executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(created.secret.slice('whsec_'.length));
    expect(row.secret_enc).toMatch(/^v1\./);
    expect(api.cipher.decrypt(row.secret_enc)).toBe(created.secret);

    const other = await api.caller.webhooks.create({ partnerId, url: 'https://hooks.partner.example:8443/second', eventTypes: ['adjustment.status_changed'] });
    expect(other.endpoint.description).toBe('');
    expect(other.secret).not.toBe(created.secret);
  });

  it('lists the partner’s endpoints without any secret; another partner sees none of them', async () => {
    const { id: partnerId } = await partner();
    const { secret, endpoint } = await api.caller.webhooks.create({ partnerId, url: 'https://a.example/hook', eventTypes: ['inbound.status_changed'] });
    const second = await api.caller.webhooks.create({ partnerId, url: 'https://b.example/hook', eventTypes: ['transfer.status_changed'] });
    const list = await api.caller.webhooks.list({ partnerId });
    expect(list).toEqual([endpoint, second.endpoint]);
    for (const e of list) expect(Object.keys(e).sort()).toEqual(['createdAt', 'description', 'eventTypes', 'id', 'isActive', 'partnerId', 'updatedAt', 'url']);
    const text = JSON.stringify(list);
    expect(text).not.toContain(secret.slice('whsec_'.length));
    expect(text).not.toContain(second.secret.slice('whsec_'.length));
    expect(await api.caller.webhooks.list({ partnerId: (await partner()).id })).toEqual([]);
  });

  it('deletes an endpoint: the list is empty after; deleting it again, or another partner’s, is NOT_FOUND on id', async () => {
    const { id: partnerId } = await partner();
    const { id: strangerId } = await partner();
    const { endpoint } = await api.caller.webhooks.create({ partnerId, url: 'https://gone.example/hook', eventTypes: ['inbound.status_changed'] });
    expect(await refusal(api.caller.webhooks.delete({ partnerId: strangerId, id: endpoint.id }))).toMatchObject({ code: 'NOT_FOUND', kind: 'NOT_FOUND', field: 'id' });
    expect(await api.caller.webhooks.list({ partnerId })).toEqual([endpoint]);
    expect(await api.caller.webhooks.delete({ partnerId, id: endpoint.id })).toEqual(endpoint);
    expect(await api.caller.webhooks.list({ partnerId })).toEqual([]);
    expect(await refusal(api.caller.webhooks.delete({ partnerId, id: endpoint.id }))).toMatchObject({ code: 'NOT_FOUND', kind: 'NOT_FOUND', field: 'id' });
    expect(await refusal(api.caller.webhooks.delete({ partnerId, id: 999_999 }))).toMatchObject({ code: 'NOT_FOUND', field: 'id' });
  });

  it('updates an endpoint\'s event types and active flag; a paused one gets no new deliveries; others\' endpoints are NOT_FOUND on id', async () => {
    const actor = await partner();
    const partnerId = actor.id;
    const { id: strangerId } = await partner();
    const { endpoint } = await api.caller.webhooks.create({ partnerId, url: 'https://partner.example/changing', eventTypes: ['transfer.status_changed'] });
    const { tenantId, shipment } = await shipmentFor(actor);

    clock += 1000;
    const paused = await api.caller.webhooks.update({ partnerId, id: endpoint.id, eventTypes: ['inbound.status_changed', 'stock.level_changed'], active: false });
    expect(paused).toEqual({ ...endpoint, eventTypes: ['inbound.status_changed', 'stock.level_changed'], isActive: false, updatedAt: new Date(clock).toISOString() });
    expect(await api.caller.webhooks.list({ partnerId })).toEqual([paused]);
    await receiveInbound(api.t.database, { tenantId, id: shipment.id, actor, receipts: [{ itemId: shipment.lines[0]!.id, quantity: '1' }] }, new Date(clock));
    expect(await api.caller.webhooks.deliveries({ partnerId })).toEqual([]);

    clock += 1000;
    expect(await api.caller.webhooks.update({ partnerId, id: endpoint.id, active: true })).toMatchObject({ eventTypes: ['inbound.status_changed', 'stock.level_changed'], isActive: true });
    await receiveInbound(api.t.database, { tenantId, id: shipment.id, actor, receipts: [{ itemId: shipment.lines[0]!.id, quantity: '1' }] }, new Date(clock));
    // Still partly received: no status change, but the stock level changed.
    expect((await api.caller.webhooks.deliveries({ partnerId })).map((d) => [d.endpointId, d.eventType])).toEqual([[endpoint.id, 'stock.level_changed']]);

    for (const [input, field] of [
      [{ partnerId, id: endpoint.id }, ''],
      [{ partnerId, id: endpoint.id, active: 'no' }, 'active'],
      [{ partnerId, id: endpoint.id, eventTypes: [] }, 'eventTypes'],
      [{ partnerId, id: endpoint.id, eventTypes: ['stock.level_changed', 'stock.level_changed'] }, 'eventTypes[1]'],
      [{ partnerId, id: endpoint.id, eventTypes: ['api.update'] }, 'eventTypes[0]'],
      [{ partnerId, id: endpoint.id, active: true, url: 'https://elsewhere.example/hook' }, 'url'],
      [{ partnerId, id: 0, active: true }, 'id'],
    ] as const) {
      expect(await refusal(api.caller.webhooks.update(input as never)), JSON.stringify(input)).toMatchObject({ code: 'BAD_REQUEST', kind: 'VALIDATION_ERROR', field });
    }
    expect(await refusal(api.caller.webhooks.update({ partnerId: strangerId, id: endpoint.id, active: false }))).toMatchObject({ code: 'NOT_FOUND', kind: 'NOT_FOUND', field: 'id' });
    expect(await refusal(api.caller.webhooks.update({ partnerId, id: 999_999, active: false }))).toMatchObject({ code: 'NOT_FOUND', field: 'id' });
    expect(await api.caller.webhooks.list({ partnerId })).toMatchObject([{ id: endpoint.id, isActive: true }]);
    await api.caller.webhooks.delete({ partnerId, id: endpoint.id });
    expect(await refusal(api.caller.webhooks.update({ partnerId, id: endpoint.id, active: true }))).toMatchObject({ code: 'NOT_FOUND', field: 'id' });
  });

  it('lists the deliveries an inbound status change caused; redelivers a finished one, never a pending one or another partner’s', async () => {
    const actor = await partner();
    const partnerId = actor.id;
    const { id: strangerId } = await partner();
    const { endpoint } = await api.caller.webhooks.create({ partnerId, url: 'https://partner.example/inbound', eventTypes: ['inbound.status_changed'] });
    const { endpoint: unrelated } = await api.caller.webhooks.create({ partnerId, url: 'https://partner.example/transfers', eventTypes: ['transfer.status_changed'] });
    const { tenantId, shipment } = await shipmentFor(actor);
    expect(await api.caller.webhooks.deliveries({ partnerId })).toEqual([]);

    clock += 60_000;
    await receiveInbound(api.t.database, { tenantId, id: shipment.id, actor, receipts: [{ itemId: shipment.lines[0]!.id, quantity: '2' }] }, new Date(clock));
    const [delivery, ...more] = await api.caller.webhooks.deliveries({ partnerId });
    expect(more).toEqual([]);
    expect(delivery).toEqual({
      id: expect.any(Number),
      eventId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      eventType: 'inbound.status_changed',
      endpointId: endpoint.id,
      url: 'https://partner.example/inbound',
      status: 'pending',
      attempts: 0,
      nextAttemptAt: new Date(clock).toISOString(),
      lastStatusCode: null,
      lastError: null,
      deliveredAt: null,
      createdAt: new Date(clock).toISOString(),
      attemptLog: [],
    });
    const deliveryId = delivery!.id;
    expect(await api.caller.webhooks.deliveries({ partnerId, endpointId: unrelated.id })).toEqual([]);
    expect(await api.caller.webhooks.deliveries({ partnerId, status: 'failed' })).toEqual([]);
    expect(await api.caller.webhooks.deliveries({ partnerId: strangerId })).toEqual([]);

    expect(await refusal(api.caller.webhooks.redeliver({ partnerId, deliveryId }))).toMatchObject({ code: 'CONFLICT', kind: 'INVALID_STATE', field: 'deliveryId' });
    expect(await refusal(api.caller.webhooks.redeliver({ partnerId: strangerId, deliveryId }))).toMatchObject({ code: 'NOT_FOUND', kind: 'NOT_FOUND', field: 'deliveryId' });
    expect(await refusal(api.caller.webhooks.redeliver({ partnerId, deliveryId: 999_999 }))).toMatchObject({ code: 'NOT_FOUND', field: 'deliveryId' });

    // A worker tries once and gives up: the delivery is failed, and may then be sent again.
    const claimed = await claimDueDeliveries(api.t.database, api.cipher, 'test-worker', { limit: 100, leaseMs: 30_000, now: new Date(clock) });
    expect(claimed.map((c) => c.id)).toContain(deliveryId);
    await recordDeliveryAttempt(api.t.database, { id: deliveryId }, 'test-worker', { startedAt: new Date(clock), durationMs: 12, statusCode: 500, error: null, succeeded: false, retryAt: null });
    const [failed] = await api.caller.webhooks.deliveries({ partnerId, status: 'failed' });
    expect(failed).toMatchObject({ id: deliveryId, status: 'failed', attempts: 1, lastStatusCode: 500, nextAttemptAt: null });
    expect(failed?.attemptLog).toEqual([{ attemptNo: 1, startedAt: new Date(clock).toISOString(), durationMs: 12, statusCode: 500, error: null, responseBody: null, succeeded: false }]);

    clock += 60_000;
    expect(await refusal(api.caller.webhooks.redeliver({ partnerId: strangerId, deliveryId }))).toMatchObject({ code: 'NOT_FOUND', field: 'deliveryId' });
    expect(await api.caller.webhooks.redeliver({ partnerId, deliveryId })).toEqual({ id: deliveryId, status: 'pending', nextAttemptAt: new Date(clock).toISOString() });
    const [again] = await api.caller.webhooks.deliveries({ partnerId });
    expect(again).toMatchObject({ id: deliveryId, status: 'pending', attempts: 1, nextAttemptAt: new Date(clock).toISOString() });
    expect(again?.attemptLog).toHaveLength(1);
    expect(await refusal(api.caller.webhooks.redeliver({ partnerId, deliveryId }))).toMatchObject({ code: 'CONFLICT', kind: 'INVALID_STATE' });

    // Deleting the endpoint drops what is still pending to it.
    await api.caller.webhooks.delete({ partnerId, id: endpoint.id });
    expect(await api.caller.webhooks.deliveries({ partnerId })).toMatchObject([{ id: deliveryId, status: 'failed', lastError: 'endpoint deleted' }]);
    expect(await refusal(api.caller.webhooks.redeliver({ partnerId, deliveryId }))).toMatchObject({ code: 'NOT_FOUND', field: 'deliveryId' });
  });

  it('a cancelled shipment is an event too; deliveries come newest first and honour the limit', async () => {
    const actor = await partner();
    await api.caller.webhooks.create({ partnerId: actor.id, url: 'https://partner.example/all', eventTypes: ['inbound.status_changed'] });
    const first = await shipmentFor(actor);
    const second = await api.caller.inbound.create({
      tenantId: first.tenantId, locationId: first.shipment.location.id, sourceType: 'po', sourceId: 2, sourceCode: 'PO-2', lines: [{ productId: first.shipment.lines[0]!.product.id, expectedQuantity: 1 }],
    });
    await api.caller.inbound.cancel({ tenantId: first.tenantId, id: first.shipment.id });
    await api.caller.inbound.cancel({ tenantId: first.tenantId, id: second.id });
    const all = await api.caller.webhooks.deliveries({ partnerId: actor.id });
    expect(all).toHaveLength(2);
    expect(all.map((d) => d.id)).toEqual([...all.map((d) => d.id)].sort((a, b) => b - a));
    expect(new Set(all.map((d) => d.eventId)).size).toBe(2);
    expect(await api.caller.webhooks.deliveries({ partnerId: actor.id, limit: 1 })).toEqual([all[0]]);
  });

  it('refuses malformed inputs with BAD_REQUEST on the field', async () => {
    const { id: partnerId } = await partner();
    const base = { partnerId, url: 'https://ok.example/hook', eventTypes: ['inbound.status_changed'] as const };
    for (const [input, field] of [
      [{ ...base, url: 'ftp://files.example/hook' }, 'url'],
      [{ ...base, url: 'not a url' }, 'url'],
      [{ ...base, url: `https://long.example/${'x'.repeat(2000)}` }, 'url'],
      [{ ...base, eventTypes: [] }, 'eventTypes'],
      [{ ...base, eventTypes: ['inbound.status_changed', 'inbound.status_changed'] }, 'eventTypes[1]'],
      [{ ...base, eventTypes: ['stock.changed'] }, 'eventTypes[0]'],
      [{ ...base, description: 'x'.repeat(201) }, 'description'],
    ] as const) {
      expect(await refusal(api.caller.webhooks.create(input as never)), field).toMatchObject({ code: 'BAD_REQUEST', kind: 'VALIDATION_ERROR', field });
    }
    expect(await api.caller.webhooks.list({ partnerId })).toEqual([]);
    expect(await refusal(api.caller.webhooks.deliveries({ partnerId, limit: 101 }))).toMatchObject({ code: 'BAD_REQUEST', field: 'limit' });
    expect(await refusal(api.caller.webhooks.deliveries({ partnerId, status: 'lost' as 'failed' }))).toMatchObject({ code: 'BAD_REQUEST', field: 'status' });
    expect(await refusal(api.caller.webhooks.redeliver({ partnerId, deliveryId: 0 }))).toMatchObject({ code: 'BAD_REQUEST', field: 'deliveryId' });
  });

  it('refuses URLs that are not https to a public host with BAD_REQUEST VALIDATION_ERROR on url, and stores nothing', async () => {
    const { id: partnerId } = await partner();
    const create = (url: string) => api.caller.webhooks.create({ partnerId, url, eventTypes: ['inbound.status_changed'] });
    for (const [url, issue] of [
      ['http://partner.example/hook', 'must use https'],
      ['https://user:pass@partner.example/hook', 'must not contain user information'],
      ['https://127.0.0.1:4001/trpc', 'must point to a public address (127.0.0.1 is loopback)'],
      ['https://2130706433/hook', 'must point to a public address (127.0.0.1 is loopback)'],
      ['https://0x7f000001/hook', 'must point to a public address (127.0.0.1 is loopback)'],
      ['https://127.1/hook', 'must point to a public address (127.0.0.1 is loopback)'],
      ['https://[::1]/hook', 'must point to a public address (::1 is loopback)'],
      ['https://[::ffff:7f00:1]/hook', 'must point to a public address (::ffff:7f00:1 maps to 127.0.0.1, which is loopback)'],
      ['https://169.254.169.254/latest', 'must point to a public address (169.254.169.254 is a cloud metadata address)'],
      ['https://10.0.0.1/hook', 'must point to a public address (10.0.0.1 is private)'],
      ['https://foo.localhost/hook', 'must point to a public host (foo.localhost is a local name)'],
      ['https://evil.test/hook', 'must point to a public address (the host name resolves to a non-public address)'],
      ['https://intranet.test/hook', 'must point to a public address (the host name resolves to a non-public address)'],
      ['https://unresolvable.invalid/hook', 'host name does not resolve'],
    ] as const) {
      expect(await refusal(create(url)), url).toEqual({ code: 'BAD_REQUEST', message: `url ${issue}`, kind: 'VALIDATION_ERROR', field: 'url', issues: [{ field: 'url', issue }] });
    }
    expect(JSON.stringify(await refusal(create('https://ops:hunter2@partner.example/hook')))).not.toContain('hunter2');
    expect(await api.caller.webhooks.list({ partnerId })).toEqual([]);
  });

  it('with WEBHOOK_ALLOW_PRIVATE_URLS accepts http and private hosts without resolving them; user information stays refused', async () => {
    const { id: partnerId } = await partner();
    const asked: string[] = [];
    const lenient = createInternalCaller(api.context({ webhookUrls: { policy: { allowPrivate: true }, resolve: async (name) => (asked.push(name), []) } }));
    for (const url of ['http://127.0.0.1:8080/hook', 'https://localhost/hook', 'http://evil.test/hook', 'https://unresolvable.invalid/hook']) {
      expect((await lenient.webhooks.create({ partnerId, url, eventTypes: ['inbound.status_changed'] })).endpoint.url).toBe(url);
    }
    expect(asked).toEqual([]);
    expect(await refusal(lenient.webhooks.create({ partnerId, url: 'http://a:b@127.0.0.1/hook', eventTypes: ['inbound.status_changed'] }))).toMatchObject({
      code: 'BAD_REQUEST', kind: 'VALIDATION_ERROR', field: 'url', issues: [{ field: 'url', issue: 'must not contain user information' }],
    });
    expect(await api.caller.webhooks.list({ partnerId })).toHaveLength(4);
  });

  it('an unknown partner is NOT_FOUND on partnerId for every webhook procedure', async () => {
    for (const call of [
      () => api.caller.webhooks.create({ partnerId: 999_999, url: 'https://x.example', eventTypes: ['inbound.status_changed'] }),
      () => api.caller.webhooks.list({ partnerId: 999_999 }),
      () => api.caller.webhooks.update({ partnerId: 999_999, id: 1, active: false }),
      () => api.caller.webhooks.delete({ partnerId: 999_999, id: 1 }),
      () => api.caller.webhooks.deliveries({ partnerId: 999_999 }),
      () => api.caller.webhooks.redeliver({ partnerId: 999_999, deliveryId: 1 }),
    ]) {
      expect(await refusal(call())).toMatchObject({ code: 'NOT_FOUND', kind: 'NOT_FOUND', field: 'partnerId' });
    }
  });

  it('without the service token every webhook procedure is UNAUTHORIZED, and nothing is registered', async () => {
    const { id: partnerId } = await partner();
    for (const call of [
      () => api.anonymous.webhooks.create({ partnerId, url: 'https://x.example', eventTypes: ['inbound.status_changed'] }),
      () => api.anonymous.webhooks.list({ partnerId }),
      () => api.anonymous.webhooks.update({ partnerId, id: 1, active: false }),
      () => api.anonymous.webhooks.delete({ partnerId, id: 1 }),
      () => api.anonymous.webhooks.deliveries({ partnerId }),
      () => api.anonymous.webhooks.redeliver({ partnerId, deliveryId: 1 }),
    ]) {
      expect(await refusal(call())).toMatchObject({ code: 'UNAUTHORIZED', kind: 'UNAUTHORIZED' });
    }
    expect(await api.caller.webhooks.list({ partnerId })).toEqual([]);
  });
});
