// Order holds in tests: time passing for a hold, which no test can wait for.
import type { Scope } from '../transaction.js';
import { executeWrite } from '../execution/execute.js';

/** The expiry `ageReservation` gives a hold: long past by any clock. */
const LONG_AGO = '2000-01-01T00:00:00.000Z';

/**
 * Moves the expiry of the tenant's hold `number` into the past, as time passing would: the
 * database's clock decides expiry and cannot be faked, so a test sets `expires_at` instead. Only
 * the expiry changes (the stored status stays what it was, and no sweep runs); a hold read
 * through the clock is `expired` from now on. Throws when the tenant has no hold `number`, so a
 * test cannot age nothing and go on.
 *
 * @example
 * const hold = await createReservation(db, input);
 * await ageReservation(db, hold.tenantId, hold.number);
 * expect((await expireAllDue(db)).expired).toBe(1);
 */
export async function ageReservation(scope: Scope, tenantId: string, number: string): Promise<void> {
  const { affectedRows } = await executeWrite(scope, scope.db.updateTable('reservations').set({ expires_at: LONG_AGO }).where('tenant_id', '=', tenantId).where('number', '=', number));
  if (affectedRows !== 1) throw new Error(`ageReservation: tenant ${tenantId} has no reservation ${number} (${affectedRows} rows changed)`);
}
