// A transaction's stock changes and the events they cause: the levels and ledger rows
// (stock-repository.ts `writeStockRows`), then one stock.level_changed per row written for the
// partners that subscribe (docs/holds.md#events), built here (the row as the contract's
// `stockLevelRow` gives it, as the stock routes do) and typed by the contract's payload schema; the
// outbox stores and fans out what it is given.
import { stockLevelRow } from '@pits/contract';
import { type Dec, ZERO, stockKey } from '@pits/domain';
import { type EventInput, enqueueEvents, hasSubscribers } from '../repositories/event-outbox-repository.js';
import { productSkus } from '../repositories/product-repository.js';
import { type StockWrite, type WrittenStockRow, writeStockRows } from '../repositories/stock-repository.js';
import type { Tx } from '../transaction.js';

/** The short-dated units of lot-tracked rows after a change, by `stockKey` (absent: 0). */
export type ShortDatedUnits = ReadonlyMap<string, Dec>;

/**
 * Writes every stock change of one transaction at once (docs/holds.md#events): each row's last
 * level, with one version step however many changes touched it; every change's ledger rows with its
 * own cause; and one stock.level_changed per row, whose cause is the last change of that row. Each
 * change's outcome must have been computed from the levels the one before it left (the domain chains
 * them), on rows locked in this transaction. A transaction writes its stock once.
 */
export async function writeStockChanges(tx: Tx, changes: readonly StockWrite[], now: Date, shortDated: ShortDatedUnits = new Map()): Promise<void> {
  const written = await writeStockRows(tx, changes, now);
  const byTenant = new Map<string, WrittenStockRow[]>();
  for (const row of written) {
    const rows = byTenant.get(row.tenantId);
    if (rows) rows.push(row);
    else byTenant.set(row.tenantId, [row]);
  }
  for (const [tenantId, rows] of byTenant) {
    // Events nobody receives are not built (nor their SKUs read).
    if (await hasSubscribers(tx, tenantId, 'stock.level_changed')) {
      const skus = await productSkus(tx, rows.map((r) => r.level.productId));
      await enqueueEvents(tx, rows.map((row) => levelChangedEvent(row, skus.get(row.level.productId) ?? '', shortDated)), now);
    }
  }
}

/** The stock.level_changed of one row, after the change, with the version the row now has. */
function levelChangedEvent({ tenantId, level, cause, version }: WrittenStockRow, sku: string, shortDated: ShortDatedUnits): EventInput<'stock.level_changed'> {
  return {
    tenantId,
    type: 'stock.level_changed',
    resource: { type: 'stock_level', id: stockKey(level) },
    data: stockLevelRow(
      { location_id: level.locationId, product_id: String(level.productId), sku },
      level,
      shortDated.get(stockKey(level)) ?? ZERO,
      version,
      { type: cause.type, id: cause.id, number: cause.documentNumber },
    ),
  };
}
