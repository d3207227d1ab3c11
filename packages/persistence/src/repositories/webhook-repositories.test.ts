import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCredentialCipher } from '../credential-cipher.js';
import { type TestDatabase, capabilitiesOf, type TenantWorld, connectTenant, openTestDatabase, seedTenantWorld, testDialects } from '../testing/index.js';
import { withTransaction } from '../transaction.js';
import { deauthorizeTenant } from './installation-repository.js';
import { type EventInput, enqueueEvent } from './event-outbox-repository.js';
import { countPendingDeliveries, claimDueDeliveries, listDeliveries, recordDeliveryAttempt, redeliver } from './webhook-delivery-repository.js';
import { createWebhookEndpoint, deleteWebhookEndpoint, listWebhookEndpoints, updateWebhookEndpoint } from './webhook-endpoint-repository.js';

const dialects = await testDialects();
const cipher = createCredentialCipher('f'.repeat(64));
const T0 = new Date('2026-11-22T13:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

describe.each(dialects)('[%s] webhook endpoints, outbox and deliveries', (dialect) => {
  let t: TestDatabase;
  let w: TenantWorld;
  let secret: string;
  let endpointId: number;
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
    w = await seedTenantWorld(t.database);
    await connectTenant(t.database, { partnerId: w.partner.id, tenantId: w.tenant.id, daysConnected: 1, installationType: 'custom' }, T0);
    const created = await createWebhookEndpoint(t.database, cipher, w.partner.id, { url: 'http://127.0.0.1:1/in', eventTypes: ['inbound.status_changed', 'transfer.status_changed'] }, T0);
    secret = created.secret;
    endpointId = created.endpoint.id;
  });
  afterAll(() => t.cleanup());

  const event = (id: string): EventInput<'inbound.status_changed'> => ({
    tenantId: w.tenant.id,
    type: 'inbound.status_changed',
    resource: { type: 'inbound', id },
    data: { inbound_id: 1, code: 'INB-1', previous_status: 'pending', status: 'partial' },
  });
  /** An event of another type: fan-out reads only its tenant and type, so the inbound event's resource and data stand in. */
  const ofType = (id: string, type: 'adjustment.status_changed' | 'stock.level_changed') => ({ ...event(id), type }) as unknown as EventInput;

  it('stores the signing secret encrypted and shows it only at creation', async () => {
    expect(secret).toMatch(/^whsec_/);
    const row = await t.database.db.selectFrom('webhook_endpoints').select('secret_enc').where('id', '=', endpointId).executeTakeFirstOrThrow();
    expect(row.secret_enc).not.toContain(secret);
    expect(await listWebhookEndpoints(t.database, w.partner.id)).toEqual([expect.not.objectContaining({ secret: expect.anything() })]);
  });

  it('fans an event out to subscribed endpoints of installed partners only', async () => {
    const stranger = await seedTenantWorld(t.database, { label: 'Stranger' });
    await createWebhookEndpoint(t.database, cipher, stranger.partner.id, { url: 'http://127.0.0.1:1/x', eventTypes: ['inbound.status_changed'] }, T0);
    const backlog = await countPendingDeliveries(t.database);
    const ids = await withTransaction(t.database, (tx) => enqueueEvent(tx, event('1'), T0));
    expect(ids).toHaveLength(1);
    // The backlog (what /metrics reports) grew by the one delivery.
    expect(await countPendingDeliveries(t.database)).toBe(backlog + 1);
    const none = await withTransaction(t.database, (tx) => enqueueEvent(tx, ofType('1', 'adjustment.status_changed'), T0));
    expect(none).toEqual([]);
    const deliveries = await t.database.db.selectFrom('webhook_deliveries').selectAll().where('event_id', '=', ids[0]!).execute();
    expect(deliveries.map((d) => [d.endpoint_id, d.status, d.attempts])).toEqual([[endpointId, 'pending', 0]]);
  });

  it('claims with a lease: a second worker gets nothing until the lease runs out', async () => {
    const a = await claimDueDeliveries(t.database, cipher, 'worker-a', { limit: 10, leaseMs: 30_000, now: at(1000) });
    expect(a).toHaveLength(1);
    expect(a[0]).toMatchObject({ secret, url: 'http://127.0.0.1:1/in', attempts: 0 });
    expect(JSON.parse(a[0]!.payload)).toMatchObject({ type: 'inbound.status_changed', tenant_id: w.tenant.id, resource: { type: 'inbound', id: '1' }, data: { status: 'partial' } });
    expect(await claimDueDeliveries(t.database, cipher, 'worker-b', { limit: 10, leaseMs: 30_000, now: at(2000) })).toEqual([]);
    const b = await claimDueDeliveries(t.database, cipher, 'worker-b', { limit: 10, leaseMs: 30_000, now: at(32_000) });
    expect(b.map((d) => d.id)).toEqual(a.map((d) => d.id));
    // The first worker lost its lease: its late report is ignored.
    expect(await recordDeliveryAttempt(t.database, a[0]!, 'worker-a', { startedAt: at(1000), durationMs: 5, statusCode: 200, error: null, succeeded: true, retryAt: null })).toBe(false);
    expect(await recordDeliveryAttempt(t.database, b[0]!, 'worker-b', { startedAt: at(32_000), durationMs: 7, statusCode: 500, error: 'HTTP 500', responseBody: 'überlastet: try later ✓', succeeded: false, retryAt: at(42_000) })).toBe(true);
    expect(await claimDueDeliveries(t.database, cipher, 'worker-b', { limit: 10, leaseMs: 30_000, now: at(41_000) })).toEqual([]);
    const c = await claimDueDeliveries(t.database, cipher, 'worker-c', { limit: 10, leaseMs: 30_000, now: at(42_000) });
    expect(c[0]?.attempts).toBe(1);
    await recordDeliveryAttempt(t.database, c[0]!, 'worker-c', { startedAt: at(42_000), durationMs: 3, statusCode: 204, error: null, succeeded: true, retryAt: null });
    const [view] = await listDeliveries(t.database, w.partner.id, { limit: 10 });
    expect(view).toMatchObject({ status: 'succeeded', attempts: 2, lastStatusCode: 204, nextAttemptAt: null });
    expect(view?.attemptLog.map((l) => [l.attemptNo, l.statusCode, l.succeeded])).toEqual([[1, 500, false], [2, 204, true]]);
    // What the receiver answered is kept per attempt, exactly (migration 004); an attempt recorded without one has null.
    expect(view?.attemptLog.map((l) => l.responseBody)).toEqual(['überlastet: try later ✓', null]);
  });

  it('concurrent workers never claim the same delivery', async () => {
    await withTransaction(t.database, async (tx) => {
      for (let i = 0; i < 30; i += 1) await enqueueEvent(tx, event(`c${i}`), at(50_000));
    });
    const pools = capabilitiesOf(dialect).hasRowLocks ? [t.database, t.connectAgain(), t.connectAgain()] : [t.database];
    const claims = await Promise.all(Array.from({ length: 6 }, (_, i) => claimDueDeliveries(pools[i % pools.length]!, cipher, `w${i}`, { limit: 10, leaseMs: 30_000, now: at(50_000) })));
    const ids = claims.flat().map((d) => d.id);
    expect(ids).toHaveLength(30);
    expect(new Set(ids).size).toBe(30);
  });

  it('a failure with no attempt left fails the delivery; redeliver makes it due again', async () => {
    const [id] = await withTransaction(t.database, (tx) => enqueueEvent(tx, event('r'), at(100_000)));
    const [d] = (await claimDueDeliveries(t.database, cipher, 'w', { limit: 100, leaseMs: 1000, now: at(200_000) })).filter((x) => x.eventId === id);
    await recordDeliveryAttempt(t.database, d!, 'w', { startedAt: at(200_000), durationMs: 1, statusCode: null, error: 'connect ECONNREFUSED', succeeded: false, retryAt: null });
    const failed = (await listDeliveries(t.database, w.partner.id, { limit: 100, status: 'failed' })).find((x) => x.eventId === id)!;
    expect(failed).toMatchObject({ lastError: 'connect ECONNREFUSED' });
    await redeliver(t.database, w.partner.id, failed.id, at(300_000));
    expect((await claimDueDeliveries(t.database, cipher, 'w', { limit: 100, leaseMs: 1000, now: at(300_000) })).map((x) => x.id)).toContain(failed.id);
    const stranger = await seedTenantWorld(t.database, { label: 'Nosy' });
    await expect(redeliver(t.database, stranger.partner.id, failed.id, at(300_000))).rejects.toMatchObject({ kind: 'NOT_FOUND' });
  });

  it('changes event types and pauses an endpoint: a paused endpoint gets no new events, and again once active', async () => {
    const { endpoint } = await createWebhookEndpoint(t.database, cipher, w.partner.id, { url: 'http://127.0.0.1:1/changing', eventTypes: ['adjustment.status_changed'] }, T0);
    expect(endpoint).toMatchObject({ isActive: true, updatedAt: T0.toISOString() });
    const fanOut = async (type: 'adjustment.status_changed' | 'stock.level_changed', now: Date) => {
      const [id] = await withTransaction(t.database, (tx) => enqueueEvent(tx, ofType('u', type), now));
      if (id === undefined) return [];
      return (await t.database.db.selectFrom('webhook_deliveries').select('endpoint_id').where('event_id', '=', id).execute()).map((d) => d.endpoint_id);
    };
    expect(await fanOut('stock.level_changed', at(500_000))).not.toContain(endpoint.id);

    const retyped = await updateWebhookEndpoint(t.database, w.partner.id, endpoint.id, { eventTypes: ['stock.level_changed', 'adjustment.status_changed', 'stock.level_changed'] }, at(500_001));
    expect(retyped).toMatchObject({ id: endpoint.id, eventTypes: ['stock.level_changed', 'adjustment.status_changed'], isActive: true, createdAt: T0.toISOString(), updatedAt: at(500_001).toISOString() });
    expect(await fanOut('stock.level_changed', at(500_002))).toContain(endpoint.id);

    const paused = await updateWebhookEndpoint(t.database, w.partner.id, endpoint.id, { isActive: false }, at(500_003));
    expect(paused).toMatchObject({ eventTypes: ['stock.level_changed', 'adjustment.status_changed'], isActive: false, updatedAt: at(500_003).toISOString() });
    expect(await fanOut('stock.level_changed', at(500_004))).not.toContain(endpoint.id);
    expect((await listWebhookEndpoints(t.database, w.partner.id)).find((e) => e.id === endpoint.id)).toMatchObject({ isActive: false });

    const both = await updateWebhookEndpoint(t.database, w.partner.id, endpoint.id, { isActive: true, eventTypes: ['adjustment.status_changed'] }, at(500_005));
    expect(both).toMatchObject({ eventTypes: ['adjustment.status_changed'], isActive: true });
    expect(await fanOut('adjustment.status_changed', at(500_006))).toContain(endpoint.id);
    expect(await fanOut('stock.level_changed', at(500_007))).not.toContain(endpoint.id);
    await deleteWebhookEndpoint(t.database, w.partner.id, endpoint.id, at(500_008)); // its pending deliveries go with it
  });

  it('changing an unknown, deleted or another partner\'s endpoint is NOT_FOUND and changes nothing', async () => {
    const { endpoint } = await createWebhookEndpoint(t.database, cipher, w.partner.id, { url: 'http://127.0.0.1:1/mine', eventTypes: ['inbound.status_changed'] }, T0);
    const stranger = await seedTenantWorld(t.database, { label: 'Meddler' });
    await expect(updateWebhookEndpoint(t.database, stranger.partner.id, endpoint.id, { isActive: false }, at(600_000))).rejects.toMatchObject({ kind: 'NOT_FOUND' });
    await expect(updateWebhookEndpoint(t.database, w.partner.id, endpoint.id + 10_000, { isActive: false }, at(600_000))).rejects.toMatchObject({ kind: 'NOT_FOUND' });
    expect((await listWebhookEndpoints(t.database, w.partner.id)).find((e) => e.id === endpoint.id)).toMatchObject({ isActive: true, updatedAt: T0.toISOString() });
    await deleteWebhookEndpoint(t.database, w.partner.id, endpoint.id, at(600_001));
    await expect(updateWebhookEndpoint(t.database, w.partner.id, endpoint.id, { isActive: true }, at(600_002))).rejects.toMatchObject({ kind: 'NOT_FOUND' });
  });

  it('deleting an endpoint drops its pending deliveries; a deauthorized tenant gets no new events', async () => {
    await withTransaction(t.database, (tx) => enqueueEvent(tx, event('d'), at(400_000)));
    await deleteWebhookEndpoint(t.database, w.partner.id, endpointId, at(400_001));
    expect((await listDeliveries(t.database, w.partner.id, { limit: 500, status: 'pending' }))).toEqual([]);
    await expect(deleteWebhookEndpoint(t.database, w.partner.id, endpointId, at(400_002))).rejects.toMatchObject({ kind: 'NOT_FOUND' });
    await createWebhookEndpoint(t.database, cipher, w.partner.id, { url: 'http://127.0.0.1:1/again', eventTypes: ['inbound.status_changed'] }, T0);
    await deauthorizeTenant(t.database, { partnerId: w.partner.id, tenantId: w.tenant.id, reason: null }, at(400_003));
    expect(await withTransaction(t.database, (tx) => enqueueEvent(tx, event('e'), at(400_004)))).toEqual([]);
  });
});
