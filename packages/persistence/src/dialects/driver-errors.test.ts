// The drivers' own words, as each dialect reads them, and the package-wide recognisers that ask
// every dialect (the apps call those without knowing which database they run on).
import { describe, expect, it } from 'vitest';
import { DatabaseUnavailableError, classifyDatabaseError, isCheckViolation, isDatabaseUnavailable, isTransientConflict, isUniqueViolation } from '../database-errors.js';
import { postgresDialect } from './postgres-dialect.js';
import { sqliteDialect } from './sqlite-dialect.js';

describe('isDatabaseUnavailable', () => {
  it.each([
    [{ code: '57P01' }, 'terminated backend'],
    [{ code: '57014' }, 'statement timeout'],
    [{ code: '08006' }, 'connection failure'],
    [{ code: '53300' }, 'too many connections'],
    [{ code: 'SQLITE_BUSY' }, 'busy timeout'],
    [{ code: 'SQLITE_IOERR_READ' }, 'I/O error'],
    [{ code: 'ECONNREFUSED' }, 'refused'],
    [new Error('Connection terminated unexpectedly'), 'pg lost connection'],
    [new Error('timeout exceeded when trying to connect'), 'pool acquire timeout'],
    [new DatabaseUnavailableError('late'), 'our own deadline'],
    [new Error('migration failed', { cause: { code: '57P01' } }), 'a wrapped driver error'],
  ] as [unknown, string][])('recognises %o (%s)', (error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([[{ code: '23505' }], [{ code: '23514' }], [{ code: 'SQLITE_CONSTRAINT_UNIQUE' }], [new Error('syntax error')], [null], ['text']])('leaves %o to the caller', (error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});

describe('constraint and conflict errors', () => {
  it('each dialect reads its own driver’s codes, and the package-wide recognisers read every dialect’s', () => {
    expect(sqliteDialect.errors.isUniqueViolation({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' })).toBe(true);
    expect(sqliteDialect.errors.isUniqueViolation({ code: '23505' })).toBe(false);
    expect(postgresDialect.errors.isUniqueViolation({ code: '23505' })).toBe(true);
    expect(postgresDialect.errors.isCheckViolation({ code: 'SQLITE_CONSTRAINT_CHECK' })).toBe(false);
    for (const code of ['23505', 'SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY']) expect(isUniqueViolation({ code })).toBe(true);
    for (const code of ['23514', 'SQLITE_CONSTRAINT_CHECK']) expect(isCheckViolation({ code })).toBe(true);
    // A stale snapshot, a deadlock or a serialization failure may pass on a retry…
    for (const code of ['SQLITE_BUSY_SNAPSHOT', '40P01', '40001']) expect(isTransientConflict({ code })).toBe(true);
    // …plain SQLITE_BUSY arrives after the lock wait has run out: unavailable, not retried.
    expect(isTransientConflict({ code: 'SQLITE_BUSY' })).toBe(false);
    expect(isUniqueViolation(new Error('plain'))).toBe(false);
  });

  it('tells a race with another process’s catalogue change from a real migration failure', () => {
    for (const code of ['3F000', '42P01', '42703', 'XX000']) expect(postgresDialect.migrations.lostCatalogRace({ code })).toBe(true);
    expect(postgresDialect.migrations.lostCatalogRace({ code: '42601' })).toBe(false);
    expect(sqliteDialect.migrations.lostCatalogRace({ code: 'SQLITE_ERROR' })).toBe(false);
  });
});

describe('classifyDatabaseError', () => {
  it.each([
    [{ code: '57014' }, 'timeout'],
    [{ code: '55P03' }, 'timeout'],
    [new Error('timeout exceeded when trying to connect'), 'timeout'],
    [{ code: 'SQLITE_BUSY' }, 'timeout'],
    [new DatabaseUnavailableError('the database did not answer within 6000 ms'), 'timeout'],
    [{ code: '57P01' }, 'unavailable'],
    [{ code: 'ECONNREFUSED' }, 'unavailable'],
    [new Error('Connection terminated unexpectedly'), 'unavailable'],
    [{ code: 'SQLITE_IOERR_READ' }, 'unavailable'],
    [{ code: '40001' }, 'conflict'],
    [{ code: 'SQLITE_BUSY_SNAPSHOT' }, 'conflict'],
    [{ code: '23505' }, 'constraint'],
    [{ code: 'SQLITE_CONSTRAINT_CHECK' }, 'constraint'],
    [new Error('syntax error'), 'other'],
    [null, 'other'],
  ] as [unknown, string][])('files %o under %s', (error, kind) => {
    expect(classifyDatabaseError(error)).toBe(kind);
  });
});
