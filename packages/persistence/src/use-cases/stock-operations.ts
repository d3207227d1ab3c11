// Stock set by internal teams: opening balances (a counted stock take), written through the same
// rules and ledger as every other change; for a lot-tracked product, into the lot it names
// (docs/lots.md#lines-name-their-lot).
import { type DecimalInput, type LotChange, type LotLineInput, type StockChange, applyStockChanges, dec, unwrap } from '@pits/domain';
import { productPolicies } from '../repositories/lot-repository.js';
import { lockStockLevels } from '../repositories/stock-repository.js';
import { writeStockChanges } from './stock-writes.js';
import { type Scope, withTransaction } from '../transaction.js';
import { commitLots, openLotBook, resolveLots } from './lot-effects.js';

export interface OpeningStockInput extends LotLineInput {
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

/**
 * Adds counted quantities to a location's good and damaged stock, with ledger rows of cause
 * `opening`. A lot-tracked product's quantities go into the lot the input names (created with its
 * dates when new): VALIDATION_ERROR on `lot_number`, `expiry_date` or `production_date` otherwise.
 */
export async function recordOpeningStock(scope: Scope, input: OpeningStockInput, now: Date): Promise<void> {
  const changes: StockChange[] = [];
  const key = { locationId: input.locationId, productId: input.productId };
  if (input.good !== undefined && !dec(input.good).isZero()) changes.push({ ...key, bucket: 'good', delta: dec(input.good) });
  if (input.damaged !== undefined && !dec(input.damaged).isZero()) changes.push({ ...key, bucket: 'damaged', delta: dec(input.damaged) });
  await withTransaction(scope, async (tx) => {
    const policies = await productPolicies(tx, [input.productId]);
    const policy = policies.get(input.productId) ?? { lotTracked: false, inboundExpired: 0, outboundExpired: 0 };
    const [lot] = await resolveLots(tx, input.tenantId, [{ productId: input.productId, policy, lot: input, path: '' }], now);
    if (changes.length === 0) return;
    const levels = await lockStockLevels(tx, input.tenantId, changes, now);
    const outcome = unwrap(applyStockChanges(levels, changes));
    const lotChanges: LotChange[] = lot ? changes.map((c) => ({ ...c, lotNumber: lot.lotNumber, expiryDate: lot.expiryDate })) : [];
    const shortDated = lot ? await commitLots(tx, input.tenantId, await openLotBook(tx, changes), lotChanges, policies, now, [lot]) : undefined;
    await writeStockChanges(tx, [{ tenantId: input.tenantId, outcome, cause: { type: 'opening', id: input.reference, documentNumber: null, actor: input.actor }, lots: lotChanges }], now, shortDated);
  });
}
