// Areas on SQLite: FTS5 trigram tables (areas_fts, area_regions_fts, made by migration 002)
// answer substring matches; the import keeps them in step in the same transaction as the rows,
// set-based (far cheaper than triggers). The import's statements are fixed texts run row by row:
// the runner prepares each text once and runs it at once inside the transaction.
import { CompiledQuery, sql } from 'kysely';
import { execute, executeWrite } from '../../execution/execute.js';
import { type ParamRef, markedList, preparedQuery } from '../../parameterised-query.js';
import type { Tx } from '../../transaction.js';
import type { AreaRegionLevel } from '../../schema/index.js';
import { AREA_FIELDS, AREA_INSERT_COLUMNS, type AreaStore, type RegionMatch, SEARCH_COLUMNS, STORED_AREA_COLUMNS, type StoredArea, searchValues } from './area-fields.js';

/**
 * A needle as an FTS5 phrase: in a trigram table, `match` on it finds rows whose text contains
 * the needle (case-insensitively). Double quotes inside are doubled.
 *
 * @example fts5Phrase('ka"b') === '"ka""b"'
 */
export function fts5Phrase(needle: string): string {
  return `"${needle.replace(/"/g, '""')}"`;
}

const regionMatches = preparedQuery({
  shape: (p: { levels: AreaRegionLevel[]; phrase: string }) => p.levels.length,
  build: (_scope, param, levels) => sql<RegionMatch>`select r.level, r.code, r.area_count from area_regions_fts f
      join area_regions r on r.id = f.rowid
      where area_regions_fts match ${param('phrase')} and r.level in (${sql.join(markedList(param, 'levels', levels))})`,
});

const villageMatches = preparedQuery({
  build: (_scope, param: ParamRef<{ phrase: string }>) => sql<{ subdistrict_code: string }>`select a.subdistrict_code from areas a
      where a.region_id in (select rowid from areas_fts where areas_fts match ${param('phrase')})`,
});

/** Runs one fixed statement text with `values` in the transaction; its insert id (ids are integers here). */
async function write(tx: Tx, text: string, values: readonly unknown[]): Promise<number> {
  return (await executeWrite(tx, CompiledQuery.raw(text, [...values]))).insertId ?? 0;
}

/** Indexes the rows of `table` with ids first..last in its FTS table (they are all new). */
async function indexRange(tx: Tx, fts: string, table: string, id: string, column: string, first: number, last: number): Promise<void> {
  await write(tx, `insert into ${fts} (rowid, ${column}) select ${id}, ${column} from ${table} where ${id} between ? and ?`, [first, last]);
}

async function reindexOne(tx: Tx, fts: string, column: string, id: number, oldText: string, newText: string): Promise<void> {
  await write(tx, `insert into ${fts} (${fts}, rowid, ${column}) values ('delete', ?, ?)`, [id, oldText]);
  await write(tx, `insert into ${fts} (rowid, ${column}) values (?, ?)`, [id, newText]);
}

export const sqliteAreaStore: AreaStore = {
  // A trigram index can only answer a substring of at least three characters.
  shortestIndexedNeedle: 3,

  async matchRegions(scope, levels, needle) {
    return execute(scope, regionMatches.with({ levels: [...levels], phrase: fts5Phrase(needle) }));
  },

  async matchVillageCodes(scope, needle) {
    return (await execute(scope, villageMatches.with({ phrase: fts5Phrase(needle) }))).map((r) => r.subdistrict_code);
  },

  async existingAreas(tx, codes) {
    // One statement per 500 codes rather than one per code: a first import finds nothing, fast.
    const found = new Map<string, StoredArea>();
    for (let i = 0; i < codes.length; i += 500) {
      const chunk = codes.slice(i, i + 500);
      const text = `select ${STORED_AREA_COLUMNS.join(', ')} from areas where subdistrict_code in (${chunk.map(() => '?').join(', ')})`;
      for (const row of await execute(tx, CompiledQuery.raw(text, chunk) as CompiledQuery<StoredArea>)) found.set(row.subdistrict_code, row);
    }
    return found;
  },

  async insertAreas(tx, records, at) {
    if (records.length === 0) return;
    const insert = `insert into areas (${AREA_INSERT_COLUMNS.join(', ')}) values (${AREA_INSERT_COLUMNS.map(() => '?').join(', ')})`;
    let first = Infinity;
    let last = -Infinity;
    for (const record of records) {
      const id = await write(tx, insert, [...AREA_FIELDS.map((f) => record[f]), ...searchValues(record), at, at]);
      first = Math.min(first, id);
      last = Math.max(last, id);
    }
    // Ids only grow and the transaction holds the write lock: every row in [first, last] is one of these.
    await indexRange(tx, 'areas_fts', 'areas', 'region_id', 'subdistrict_search', first, last);
  },

  async updateAreas(tx, updates, fields, at) {
    if (updates.length === 0) return;
    const set = [...fields, ...SEARCH_COLUMNS.map(([column]) => column), 'updated_at'].map((c) => `${c} = ?`).join(', ');
    const update = `update areas set ${set} where region_id = ?`;
    for (const { regionId, record, oldSubdistrictSearch } of updates) {
      const search = searchValues(record);
      await write(tx, update, [...fields.map((f) => record[f]), ...search, at, regionId]);
      const newSubdistrictSearch = search[3]!;
      if (newSubdistrictSearch !== oldSubdistrictSearch) await reindexOne(tx, 'areas_fts', 'subdistrict_search', regionId, oldSubdistrictSearch, newSubdistrictSearch);
    }
  },

  async insertRegions(tx, regions) {
    if (regions.length === 0) return;
    const insert = 'insert into area_regions (level, code, name_search, area_count) values (?, ?, ?, ?)';
    let first = Infinity;
    let last = -Infinity;
    for (const r of regions) {
      const id = await write(tx, insert, [r.level, r.code, r.nameSearch, r.added]);
      first = Math.min(first, id);
      last = Math.max(last, id);
    }
    await indexRange(tx, 'area_regions_fts', 'area_regions', 'id', 'name_search', first, last);
  },

  async updateRegions(tx, regions) {
    for (const r of regions) {
      await write(tx, 'update area_regions set name_search = ?, area_count = area_count + ? where id = ?', [r.nameSearch, r.added, r.id]);
      if (r.nameSearch !== r.oldNameSearch) await reindexOne(tx, 'area_regions_fts', 'name_search', r.id, r.oldNameSearch, r.nameSearch);
    }
  },
};
