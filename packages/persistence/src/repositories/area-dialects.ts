// The parts of area search and area import that each database does its own way; everything else
// about areas is in area-repository.ts and is the same on both.
//
//   substring match   SQLite: FTS5 trigram tables (areas_fts, area_regions_fts), `match` on a phrase
//                     PostgreSQL: LIKE on the lower-cased column, answered by a pg_trgm GIN index
//   batch writes      SQLite: reused prepared statements on the better-sqlite3 handle, and the FTS
//                     tables kept in step set-based in the same transaction
//                     PostgreSQL: one statement per batch over unnest()ed arrays
import type BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import type { Database } from '../create-database.js';
import type { Dialect } from '../database-config.js';
import { containsPattern, fts5Phrase, likePattern } from '../dialect.js';
import { preparedQuery } from '../prepared-query.js';
import { sqliteHandleOf } from '../raw-driver.js';
import type { AreaRegionLevel } from '../schema/index.js';
import type { Scope, Tx } from '../transaction.js';

/** The canonical fields of one area, as the import reads them. */
export const AREA_FIELDS = [
  'country',
  'country_code',
  'state',
  'state_code',
  'city',
  'city_code',
  'district',
  'district_code',
  'subdistrict',
  'subdistrict_code',
  'postcode',
  'latitude',
  'longitude',
] as const;
export type AreaField = (typeof AREA_FIELDS)[number];
/** One area (a village with its parents) in the canonical form of `areas_id.csv`. */
export type AreaRecord = Readonly<Record<AreaField, string>>;

/** The lower-cased name columns that search reads, derived from the names. */
export const SEARCH_COLUMNS = [
  ['state_search', 'state'],
  ['city_search', 'city'],
  ['district_search', 'district'],
  ['subdistrict_search', 'subdistrict'],
] as const;

export interface AreaUpdate {
  regionId: number;
  record: AreaRecord;
  /** The stored subdistrict_search before the update (the FTS index must be told the old text). */
  oldSubdistrictSearch: string;
}

export interface RegionInsert {
  level: AreaRegionLevel;
  code: string;
  nameSearch: string;
  added: number;
}

export interface RegionUpdate {
  id: number;
  nameSearch: string;
  oldNameSearch: string;
  added: number;
}

export interface RegionMatch {
  level: AreaRegionLevel;
  code: string;
  area_count: number;
}

/** An area as stored, for comparing with a new record. */
export type StoredArea = Record<AreaField, string> & { region_id: number; subdistrict_search: string };

export interface AreaDialect {
  /** The stored areas among `codes`, by code (the batch's transaction is open on `database`). */
  existingAreas(database: Database, tx: Tx, codes: readonly string[]): Promise<Map<string, StoredArea>>;
  /** Inserts new areas (the batch's transaction is open on `database`). */
  insertAreas(database: Database, tx: Tx, records: readonly AreaRecord[], at: string): Promise<void>;
  /** Rewrites `fields` (plus the search columns and updated_at) of existing areas. */
  updateAreas(database: Database, tx: Tx, updates: readonly AreaUpdate[], fields: readonly AreaField[], at: string): Promise<void>;
  insertRegions(database: Database, tx: Tx, regions: readonly RegionInsert[]): Promise<void>;
  /** Sets the name and adds `added` villages to the count of existing regions. */
  updateRegions(database: Database, tx: Tx, regions: readonly RegionUpdate[]): Promise<void>;
  /** Regions of `levels` whose lower-cased name contains `needle` (TRIGRAM_MIN_CHARS or more characters). */
  matchRegions(scope: Scope, levels: readonly AreaRegionLevel[], needle: string): Promise<RegionMatch[]>;
  /** Subdistrict codes of the villages whose lower-cased name contains `needle` (TRIGRAM_MIN_CHARS or more). */
  matchVillageCodes(scope: Scope, needle: string): Promise<string[]>;
}

const searchValues = (record: AreaRecord) => SEARCH_COLUMNS.map(([, name]) => record[name].toLowerCase());

// ---------------------------------------------------------------------------------------------
// SQLite

const statementCache = new WeakMap<BetterSqlite3.Database, Map<string, BetterSqlite3.Statement>>();

function prepared(handle: BetterSqlite3.Database, text: string): BetterSqlite3.Statement {
  let cache = statementCache.get(handle);
  if (!cache) statementCache.set(handle, (cache = new Map()));
  let statement = cache.get(text);
  if (!statement) cache.set(text, (statement = handle.prepare(text)));
  return statement;
}

const sqliteRegionMatches = preparedQuery(
  (_scope, p: { levels: AreaRegionLevel[]; phrase: string }) => sql<RegionMatch>`select r.level, r.code, r.area_count from area_regions_fts f
      join area_regions r on r.id = f.rowid
      where area_regions_fts match ${p.phrase} and r.level in (${sql.join(p.levels)})`,
);

const sqliteVillageMatches = preparedQuery(
  (_scope, p: { phrase: string }) => sql<{ subdistrict_code: string }>`select a.subdistrict_code from areas a
      where a.region_id in (select rowid from areas_fts where areas_fts match ${p.phrase})`,
);

const INSERT_COLUMNS = [...AREA_FIELDS, ...SEARCH_COLUMNS.map(([column]) => column), 'created_at', 'updated_at'];

/** Indexes the rows of `table` with ids first..last in its FTS table (they are all new). */
function indexRange(handle: BetterSqlite3.Database, fts: string, table: string, id: string, column: string, first: number, last: number): void {
  prepared(handle, `insert into ${fts} (rowid, ${column}) select ${id}, ${column} from ${table} where ${id} between ? and ?`).run(first, last);
}

function reindexOne(handle: BetterSqlite3.Database, fts: string, column: string, id: number, oldText: string, newText: string): void {
  prepared(handle, `insert into ${fts} (${fts}, rowid, ${column}) values ('delete', ?, ?)`).run(id, oldText);
  prepared(handle, `insert into ${fts} (rowid, ${column}) values (?, ?)`).run(id, newText);
}

const STORED_COLUMNS = ['region_id', ...AREA_FIELDS, 'subdistrict_search'] as const;

const sqliteAreas: AreaDialect = {
  async existingAreas(database, _tx, codes) {
    // One statement per 500 codes rather than one per code: a first import finds nothing, fast.
    const handle = sqliteHandleOf(database);
    const found = new Map<string, StoredArea>();
    for (let i = 0; i < codes.length; i += 500) {
      const chunk = codes.slice(i, i + 500);
      const select = prepared(handle, `select ${STORED_COLUMNS.join(', ')} from areas where subdistrict_code in (${chunk.map(() => '?').join(', ')})`);
      for (const row of select.all(...chunk) as StoredArea[]) found.set(row.subdistrict_code, row);
    }
    return found;
  },

  async insertAreas(database, _tx, records, at) {
    if (records.length === 0) return;
    const handle = sqliteHandleOf(database);
    const insert = prepared(handle, `insert into areas (${INSERT_COLUMNS.join(', ')}) values (${INSERT_COLUMNS.map(() => '?').join(', ')})`);
    let first = Infinity;
    let last = -Infinity;
    for (const record of records) {
      const id = Number(insert.run(...AREA_FIELDS.map((f) => record[f]), ...searchValues(record), at, at).lastInsertRowid);
      first = Math.min(first, id);
      last = Math.max(last, id);
    }
    // Ids only grow and the transaction holds the write lock: every row in [first, last] is one of these.
    indexRange(handle, 'areas_fts', 'areas', 'region_id', 'subdistrict_search', first, last);
  },

  async updateAreas(database, _tx, updates, fields, at) {
    if (updates.length === 0) return;
    const handle = sqliteHandleOf(database);
    const set = [...fields, ...SEARCH_COLUMNS.map(([column]) => column), 'updated_at'].map((c) => `${c} = ?`).join(', ');
    const update = prepared(handle, `update areas set ${set} where region_id = ?`);
    for (const { regionId, record, oldSubdistrictSearch } of updates) {
      const search = searchValues(record);
      update.run(...fields.map((f) => record[f]), ...search, at, regionId);
      const newSubdistrictSearch = search[3]!;
      if (newSubdistrictSearch !== oldSubdistrictSearch) reindexOne(handle, 'areas_fts', 'subdistrict_search', regionId, oldSubdistrictSearch, newSubdistrictSearch);
    }
  },

  async insertRegions(database, _tx, regions) {
    if (regions.length === 0) return;
    const handle = sqliteHandleOf(database);
    const insert = prepared(handle, 'insert into area_regions (level, code, name_search, area_count) values (?, ?, ?, ?)');
    let first = Infinity;
    let last = -Infinity;
    for (const r of regions) {
      const id = Number(insert.run(r.level, r.code, r.nameSearch, r.added).lastInsertRowid);
      first = Math.min(first, id);
      last = Math.max(last, id);
    }
    indexRange(handle, 'area_regions_fts', 'area_regions', 'id', 'name_search', first, last);
  },

  async updateRegions(database, _tx, regions) {
    const handle = sqliteHandleOf(database);
    const update = prepared(handle, 'update area_regions set name_search = ?, area_count = area_count + ? where id = ?');
    for (const r of regions) {
      update.run(r.nameSearch, r.added, r.id);
      if (r.nameSearch !== r.oldNameSearch) reindexOne(handle, 'area_regions_fts', 'name_search', r.id, r.oldNameSearch, r.nameSearch);
    }
  },

  async matchRegions(scope, levels, needle) {
    return sqliteRegionMatches.execute(scope, { levels: [...levels], phrase: fts5Phrase(needle) });
  },

  async matchVillageCodes(scope, needle) {
    return (await sqliteVillageMatches.execute(scope, { phrase: fts5Phrase(needle) })).map((r) => r.subdistrict_code);
  },
};

// ---------------------------------------------------------------------------------------------
// PostgreSQL

const textArray = (values: readonly string[]) => sql`${values}::text[]`;

const postgresRegionMatches = preparedQuery((scope, p: { levels: AreaRegionLevel[]; pattern: string }) =>
  scope.db
    .selectFrom('area_regions')
    .select(['level', 'code', 'area_count'])
    .where('level', 'in', p.levels)
    .where(({ ref }) => likePattern(ref('name_search'), p.pattern)),
);

const postgresVillageMatches = preparedQuery((scope, p: { pattern: string }) =>
  scope.db.selectFrom('areas').select('subdistrict_code').where(({ ref }) => likePattern(ref('subdistrict_search'), p.pattern)),
);

const postgresAreas: AreaDialect = {
  async existingAreas(_database, tx, codes) {
    const rows = await tx.db.selectFrom('areas').select(STORED_COLUMNS).where(sql<boolean>`subdistrict_code = any(${textArray(codes)})`).execute();
    return new Map(rows.map((r) => [r.subdistrict_code, r]));
  },

  async insertAreas(_database, tx, records, at) {
    if (records.length === 0) return;
    const columns = [
      ...AREA_FIELDS.map((f) => textArray(records.map((r) => r[f]))),
      ...SEARCH_COLUMNS.map(([, name]) => textArray(records.map((r) => r[name].toLowerCase()))),
    ];
    await sql`insert into areas (${sql.join(INSERT_COLUMNS.map((c) => sql.ref(c)))})
      select u.*, ${at}::timestamptz, ${at}::timestamptz from unnest(${sql.join(columns)}) as u`.execute(tx.db);
  },

  async updateAreas(_database, tx, updates, fields, at) {
    if (updates.length === 0) return;
    const columns = [...fields, ...SEARCH_COLUMNS.map(([column]) => column)];
    const arrays = [
      ...fields.map((f) => textArray(updates.map((u) => u.record[f]))),
      ...SEARCH_COLUMNS.map(([, name]) => textArray(updates.map((u) => u.record[name].toLowerCase()))),
    ];
    await sql`update areas a set ${sql.join(columns.map((c) => sql`${sql.ref(c)} = u.${sql.ref(c)}`))}, updated_at = ${at}::timestamptz
      from unnest(${sql`${updates.map((u) => u.regionId)}::bigint[]`}, ${sql.join(arrays)}) as u(region_id, ${sql.join(columns.map((c) => sql.ref(c)))})
      where a.region_id = u.region_id`.execute(tx.db);
  },

  async insertRegions(_database, tx, regions) {
    if (regions.length === 0) return;
    await tx.db
      .insertInto('area_regions')
      .values(regions.map((r) => ({ level: r.level, code: r.code, name_search: r.nameSearch, area_count: r.added })))
      .execute();
  },

  async updateRegions(_database, tx, regions) {
    if (regions.length === 0) return;
    await sql`update area_regions r set name_search = u.name_search, area_count = r.area_count + u.added
      from unnest(${regions.map((r) => r.id)}::bigint[], ${regions.map((r) => r.nameSearch)}::text[], ${regions.map((r) => r.added)}::bigint[])
        as u(id, name_search, added)
      where r.id = u.id`.execute(tx.db);
  },

  async matchRegions(scope, levels, needle) {
    return postgresRegionMatches.execute(scope, { levels: [...levels], pattern: containsPattern(needle) });
  },

  async matchVillageCodes(scope, needle) {
    return (await postgresVillageMatches.execute(scope, { pattern: containsPattern(needle) })).map((r) => r.subdistrict_code);
  },
};

export function areaDialect(dialect: Dialect): AreaDialect {
  return dialect === 'sqlite' ? sqliteAreas : postgresAreas;
}
