// Which AreaStore (area-fields.ts) each database uses. One store per dialect, in an exhaustive
// record: a new dialect does not compile until it has its area store.
import type { DialectName } from '../../database-config.js';
import type { Scope } from '../../transaction.js';
import type { AreaStore } from './area-fields.js';
import { postgresAreaStore } from './postgres-area-store.js';
import { sqliteAreaStore } from './sqlite-area-store.js';

export const AREA_STORES: Record<DialectName, AreaStore> = {
  sqlite: sqliteAreaStore,
  postgres: postgresAreaStore,
};

/** The area store of the scope's database. */
export function areaStoreOf(scope: Scope): AreaStore {
  return AREA_STORES[scope.dialect.name];
}
