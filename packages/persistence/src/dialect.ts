// Every difference between SQLite and PostgreSQL lives here: column types, how values come back
// from each driver (so both return the same JavaScript types), row locks and constraint errors.
//
// Value types, identical on both dialects:
//   ids, counts, scaled quantities -> number (PG bigint parsed, checked to be a safe integer)
//   money                          -> string (PG numeric / SQLite text)
//   timestamps                     -> ISO-8601 string with milliseconds and Z
//   dates                          -> 'YYYY-MM-DD' string
//   booleans                       -> 0 | 1
//   JSON                           -> string (parsed by the table's mapper)
import { type Expression, type RawBuilder, sql } from 'kysely';
import pg from 'pg';
import type { Dialect } from './database-config.js';

/** Column types per dialect. */
export function columnTypes(dialect: Dialect) {
  const isPg = dialect === 'postgres';
  return {
    /** Auto-increment surrogate key. */
    id: isPg ? sql`bigint` : sql`integer`,
    bigint: isPg ? sql`bigint` : sql`integer`,
    /** A quantity scaled by 10^4 (see @pits/domain QUANTITY_SCALE). */
    quantity: isPg ? sql`bigint` : sql`integer`,
    // Unconstrained numeric: exact at any size the validation lets through (500 lines of 1e11 x 1e13).
    money: isPg ? sql`numeric` : sql`text`,
    timestamp: isPg ? sql`timestamptz(3)` : sql`text`,
    date: isPg ? sql`date` : sql`text`,
    boolean: isPg ? sql`boolean` : sql`integer`,
    json: isPg ? sql`jsonb` : sql`text`,
    text: sql`text`,
  } as const;
}

function safeInteger(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new RangeError(`integer ${text} from PostgreSQL is beyond the safe range`);
  return n;
}

/** Type parsers for the pg pool so that PostgreSQL returns what SQLite returns. */
export function postgresTypeParsers(): pg.CustomTypesConfig {
  const { types } = pg;
  const overrides = new Map<number, (value: string) => unknown>([
    [types.builtins.INT8, safeInteger],
    [types.builtins.NUMERIC, (v) => v],
    [types.builtins.TIMESTAMPTZ, (v) => new Date(v).toISOString()],
    [types.builtins.TIMESTAMP, (v) => new Date(`${v}Z`).toISOString()],
    [types.builtins.DATE, (v) => v],
    [types.builtins.BOOL, (v) => (v === 't' ? 1 : 0)],
    [types.builtins.JSON, (v) => v],
    [types.builtins.JSONB, (v) => v],
  ]);
  return {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
      overrides.get(oid) ?? types.getTypeParser(oid, format ?? 'text')) as pg.CustomTypesConfig['getTypeParser'],
  };
}

/** A boolean as both drivers accept it on input. */
export function boolValue(value: boolean): 0 | 1 {
  return value ? 1 : 0;
}

/**
 * Case-insensitive "contains" on a column that holds lower-cased text (the areas' normalised
 * columns). `needle` must already be lower-cased; LIKE wildcards in it are escaped.
 */
export function containsLower(column: Expression<string>, needle: string): RawBuilder<boolean> {
  return likePattern(column, containsPattern(needle));
}

/** The LIKE pattern (escape `\\`) of "contains `needle`". */
export function containsPattern(needle: string): string {
  return `%${needle.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** `column like pattern escape '\\'`, the pattern bound as a parameter (prepared queries build it once). */
export function likePattern(column: Expression<string>, pattern: string): RawBuilder<boolean> {
  return sql<boolean>`${column} like ${pattern} escape '\\'`;
}

/**
 * Trigram indexes (SQLite FTS5 `tokenize='trigram'`, PostgreSQL pg_trgm) can only answer a
 * substring of at least this many characters; a shorter needle needs a scan on both.
 */
export const TRIGRAM_MIN_CHARS = 3;

/**
 * A needle as an FTS5 phrase: in a trigram table, `match` on it finds rows whose text contains
 * the needle (case-insensitively). Double quotes inside are doubled.
 *
 * @example fts5Phrase('ka"b') === '"ka""b"'
 */
export function fts5Phrase(needle: string): string {
  return `"${needle.replace(/"/g, '""')}"`;
}

interface DriverError {
  code?: unknown;
  constraint?: unknown;
  message?: unknown;
}

function errorCode(error: unknown): string {
  const code = (error as DriverError | null)?.code;
  return typeof code === 'string' ? code : '';
}

/** A unique or primary-key violation on either driver. */
export function isUniqueViolation(error: unknown): boolean {
  const code = errorCode(error);
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** A CHECK constraint violation on either driver. */
export function isCheckViolation(error: unknown): boolean {
  const code = errorCode(error);
  return code === '23514' || code === 'SQLITE_CONSTRAINT_CHECK';
}

/** A lock or busy timeout that a retry may get past. */
export function isTransientConflict(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'SQLITE_BUSY' || code === '40001' || code === '40P01';
}
