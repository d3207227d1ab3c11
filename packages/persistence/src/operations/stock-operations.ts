// Stock set by internal teams: opening balances (a counted stock take), written through the same
// rules and ledger as every other change.
import { type DecimalInput, type StockChange, applyStockChanges, dec, unwrap } from '@pits/domain';
import { lockStockLevels, writeStockOutcome } from '../repositories/stock-repository.js';
import { type Scope, withTransaction } from '../transaction.js';

export interface OpeningStockInput {
  tenantId: string;
  locationId: number;
  productId: number;
  good?: DecimalInput;
  damaged?: DecimalInput;
  /** Who recorded it, as written in the ledger. */
  actor: string;
  /** The stock-take reference. */
  reference: string;
}

/** Adds counted quantities to a location's good and damaged stock, with ledger rows of cause `opening`. */
export async function recordOpeningStock(scope: Scope, input: OpeningStockInput, now: Date): Promise<void> {
  const changes: StockChange[] = [];
  const key = { locationId: input.locationId, productId: input.productId };
  if (input.good !== undefined && !dec(input.good).isZero()) changes.push({ ...key, bucket: 'good', delta: dec(input.good) });
  if (input.damaged !== undefined && !dec(input.damaged).isZero()) changes.push({ ...key, bucket: 'damaged', delta: dec(input.damaged) });
  if (changes.length === 0) return;
  await withTransaction(scope, async (tx) => {
    const levels = await lockStockLevels(tx, input.tenantId, changes, now);
    const outcome = unwrap(applyStockChanges(levels, changes));
    await writeStockOutcome(tx, input.tenantId, outcome, { type: 'opening', id: input.reference, documentNumber: null, actor: input.actor }, now);
  });
}
