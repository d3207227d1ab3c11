// A hold's effective status has two forms: the domain's `effectiveStatus` (TypeScript, for a
// decision) and `ranOut` here (SQL, for reads, filters and the sweep). These tests hold every
// reader of the SQL form to the domain's answer, for every stored status on either side of the
// expiry, so the two cannot drift apart (docs/holds.md#states-and-expiry).
import { type ReservationStatus, effectiveStatus } from '@pits/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeWrite } from '../execution/execute.js';
import { createReservation } from '../use-cases/reservation-operations.js';
import { type TestDatabase, openTestDatabase, seedTenantWorld, testDialects } from '../testing/index.js';
import { withTransaction } from '../transaction.js';
import { databaseNow, dueHoldBacklog, findReservation, listReservations, lockDueReservations } from './reservation-repository.js';

const dialects = await testDialects();
const STORED: readonly ReservationStatus[] = ['active', 'consumed', 'released', 'expired'];
const HOUR_MS = 3_600_000;
const PAGE = { page: 1, perPage: 100 };

describe.each(dialects)('[%s] a hold’s effective status in SQL', (dialect) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
  });
  afterAll(() => t.cleanup());

  it('reads, filters, the backlog and the sweep all agree with the domain’s effectiveStatus', async () => {
    const w = await seedTenantWorld(t.database, { openingGood: '100', label: 'EFF' });
    const now = await databaseNow(t.database);
    const expiries = [new Date(Date.parse(now) - HOUR_MS).toISOString(), new Date(Date.parse(now) + HOUR_MS).toISOString()];
    const holds: { number: string; status: ReservationStatus; expiresAt: string }[] = [];
    for (const status of STORED) {
      for (const expiresAt of expiries) {
        const created = await createReservation(t.database, {
          tenantId: w.tenant.id,
          partnerId: w.partner.id,
          actor: w.actor,
          locationId: w.locations[0].id,
          reference: `EFF-${holds.length}`,
          expiresIn: 900,
          items: [{ productId: w.products[0]!.id, quantity: 1 }],
        });
        // The stored row as a test wants it: only what the status rule reads.
        await executeWrite(t.database, t.database.db.updateTable('reservations').set({ status, expires_at: expiresAt }).where('tenant_id', '=', w.tenant.id).where('number', '=', created.number));
        holds.push({ number: created.number, status, expiresAt });
      }
    }
    const expected = (h: (typeof holds)[number]) => effectiveStatus({ status: h.status, expiresAt: h.expiresAt }, now);
    // The eight rows cover every answer the rule has.
    expect(new Set(holds.map(expected))).toEqual(new Set(STORED));

    for (const h of holds) expect((await findReservation(t.database, w.tenant.id, h.number))?.status, `${h.status} expiring ${h.expiresAt}`).toBe(expected(h));
    for (const status of STORED) {
      const { rows, total } = await listReservations(t.database, w.tenant.id, { status }, PAGE);
      const want = holds.filter((h) => expected(h) === status).map((h) => h.number).sort();
      expect(rows.map((r) => r.number).sort(), `filter ${status}`).toEqual(want);
      expect(total).toBe(want.length);
    }
    const ranOut = holds.filter((h) => h.status === 'active' && expected(h) === 'expired').map((h) => h.number);
    expect(ranOut).toHaveLength(1);
    const backlog = await dueHoldBacklog(t.database);
    expect(backlog.due).toBe(ranOut.length);
    const due = await withTransaction(t.database, (tx) => lockDueReservations(tx, now, 1000));
    expect(due.filter((row) => row.tenant_id === w.tenant.id).map((row) => row.number)).toEqual(ranOut);
  });
});
