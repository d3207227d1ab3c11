// Booleans as rows hold them on every dialect: 0 | 1 (each dialect's driver returns that, see
// ../dialects/sql-dialect.ts); records hold true booleans.

/**
 * A boolean as a row column takes it.
 *
 * @example boolValue(true) === 1
 */
export function boolValue(value: boolean): 0 | 1 {
  return value ? 1 : 0;
}

/**
 * A row column's boolean as a record holds it.
 *
 * @example fromBoolValue(1) === true
 */
export function fromBoolValue(value: 0 | 1): boolean {
  return value === 1;
}
