// What a driver's error means, whichever database threw it: each recogniser asks every registered
// dialect (dialects/dialect-registry.ts), so the apps can tell a taken key or an unavailable
// database apart without knowing which database they run on.
import { REGISTERED_DIALECTS } from './dialects/dialect-registry.js';
import type { DriverErrors } from './dialects/sql-dialect.js';
import { DatabaseUnavailableError } from './database-unavailable-error.js';

export { DatabaseUnavailableError } from './database-unavailable-error.js';

const anyDialect = (test: keyof DriverErrors, error: unknown): boolean => REGISTERED_DIALECTS.some((d) => d.errors[test](error));

/**
 * A unique or primary-key violation.
 *
 * @example catch (error) { if (isUniqueViolation(error)) throw codeTaken(); throw error; }
 */
export function isUniqueViolation(error: unknown): boolean {
  return anyDialect('isUniqueViolation', error);
}

/** A CHECK constraint violation. */
export function isCheckViolation(error: unknown): boolean {
  return anyDialect('isCheckViolation', error);
}

/** A conflict between transactions that an immediate retry may get past. */
export function isTransientConflict(error: unknown): boolean {
  return anyDialect('isTransientConflict', error);
}

/**
 * True when an error says the database is unreachable or past a deadline rather than that the
 * request is wrong: the apps answer such a call with 503 SERVICE_UNAVAILABLE and Retry-After.
 *
 * @example
 * catch (error) { if (isDatabaseUnavailable(error)) return serviceUnavailable(); throw error; }
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  // A wrapper (a failed migration) keeps the driver's error as its cause: look a few levels down.
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current !== null && current !== undefined; depth += 1) {
    if (current instanceof DatabaseUnavailableError || anyDialect('isUnavailable', current)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** What kind of failure a statement met, as metrics count it (`pits_db_query_errors_total{kind}`). */
export const DATABASE_ERROR_KINDS = ['timeout', 'unavailable', 'conflict', 'constraint', 'other'] as const;
export type DatabaseErrorKind = (typeof DATABASE_ERROR_KINDS)[number];

/**
 * `timeout`: a deadline ran out (a statement, a lock wait, getting a connection, this package's
 * own deadlines); `unavailable`: the database could not be reached or used otherwise; `conflict`:
 * a transaction cut by another (a retry may pass); `constraint`: a unique or check violation;
 * `other`: anything else (a bug, most likely).
 *
 * @example classifyDatabaseError({ code: '57014' }) // 'timeout'
 */
export function classifyDatabaseError(error: unknown): DatabaseErrorKind {
  if (isTransientConflict(error)) return 'conflict';
  if (isUniqueViolation(error) || isCheckViolation(error)) return 'constraint';
  if (error instanceof DatabaseUnavailableError || anyDialect('isTimeout', error)) return 'timeout';
  if (isDatabaseUnavailable(error)) return 'unavailable';
  return 'other';
}
