// The update internal teams make to a tenant's product or location: the fields given, each under
// its column, stamped with who changed it and when. One place, so the two tables' updates write the
// same way (booleans as rows hold them, see boolean-values.ts) and cannot drift apart.
import type { Compilable, Selectable, Updateable } from 'kysely';
import { boolValue } from './boolean-values.js';
import type { Scope } from '../transaction.js';
import type { DB } from '../schema/index.js';

/** A column value a change writes. */
export type ColumnValue = string | number | null;

/** The tables whose rows change this way. */
export type ChangedTable = 'products' | 'locations';

/** A value as its column stores it: a boolean as 0 | 1, anything else as it is. */
export function storedValue(value: unknown): ColumnValue {
  return typeof value === 'boolean' ? boolValue(value) : (value as ColumnValue);
}

/**
 * The columns a partial change sets: each field given (not undefined) under its column in
 * `columns`, its value as `store` writes it (`storedValue` by default); absent fields are left out.
 *
 * @example changedColumns({ name: 'Gudang', isDefault: true, city: undefined }, { name: 'name', isDefault: 'is_default', city: 'city' })
 * // { name: 'Gudang', is_default: 1 }
 */
export function changedColumns<F extends string>(
  changes: Partial<Record<F, unknown>>,
  columns: Readonly<Record<F, string>>,
  store: (field: F, value: unknown) => ColumnValue = (_field, value) => storedValue(value),
): Record<string, ColumnValue> {
  const set: Record<string, ColumnValue> = {};
  for (const [field, value] of Object.entries(changes) as [F, unknown][]) {
    if (value !== undefined) set[columns[field]] = store(field, value);
  }
  return set;
}

/**
 * The update of row `id` of the tenant in `table` that writes `set` with `updated_by` and
 * `updated_at`, returning the whole row (undefined when no row matched). `live` adds
 * `deleted_at IS NULL` to the match; a caller that has already locked the row as live leaves it off.
 *
 * @example await executeTakeFirst(scope, stampedUpdate(scope, 'locations', { tenantId, id, set, actor: 'internal-api', now, live: true }))
 */
export function stampedUpdate<T extends ChangedTable>(
  scope: Scope,
  table: T,
  change: { tenantId: string; id: number; set: Record<string, ColumnValue>; actor: string; now: Date; live: boolean },
): Compilable<Selectable<DB[T]>> {
  let query = scope.db
    .updateTable(table as ChangedTable)
    .set({ ...(change.set as Updateable<DB[ChangedTable]>), updated_by: change.actor, updated_at: change.now.toISOString() })
    .where('tenant_id', '=', change.tenantId)
    .where('id', '=', change.id);
  if (change.live) query = query.where('deleted_at', 'is', null);
  // The union of the two tables' rows narrows to the one `table` names.
  return scope.dialect.updateReturningAll(query) as Compilable<Selectable<DB[ChangedTable]>> as Compilable<Selectable<DB[T]>>;
}
