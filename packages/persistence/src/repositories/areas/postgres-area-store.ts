// Areas on PostgreSQL: LIKE on the lower-cased columns, answered by their pg_trgm GIN indexes
// (made by migration 002); the import's batch writes are one statement per batch over unnest()ed arrays.
import { sql } from 'kysely';
import { containsPattern, likePattern } from '../../dialects/standard-sql.js';
import { execute, executeWrite } from '../../execution/execute.js';
import { type ParamRef, markedList, preparedQuery } from '../../parameterised-query.js';
import type { AreaRegionLevel } from '../../schema/index.js';
import { AREA_FIELDS, AREA_INSERT_COLUMNS, type AreaStore, SEARCH_COLUMNS, STORED_AREA_COLUMNS } from './area-fields.js';

const textArray = (values: readonly string[]) => sql`${values}::text[]`;

const regionMatches = preparedQuery({
  shape: (p: { levels: AreaRegionLevel[]; pattern: string }) => p.levels.length,
  build: (scope, param, levels) =>
    scope.db
      .selectFrom('area_regions')
      .select(['level', 'code', 'area_count'])
      .where('level', 'in', markedList(param, 'levels', levels))
      .where(({ ref }) => likePattern(ref('name_search'), param('pattern'))),
});

const villageMatches = preparedQuery({
  build: (scope, param: ParamRef<{ pattern: string }>) =>
    scope.db.selectFrom('areas').select('subdistrict_code').where(({ ref }) => likePattern(ref('subdistrict_search'), param('pattern'))),
});

export const postgresAreaStore: AreaStore = {
  // pg_trgm can only answer a substring of at least three characters.
  shortestIndexedNeedle: 3,

  async matchRegions(scope, levels, needle) {
    return execute(scope, regionMatches.with({ levels: [...levels], pattern: containsPattern(needle) }));
  },

  async matchVillageCodes(scope, needle) {
    return (await execute(scope, villageMatches.with({ pattern: containsPattern(needle) }))).map((r) => r.subdistrict_code);
  },

  async existingAreas(tx, codes) {
    const rows = await execute(tx, tx.db.selectFrom('areas').select(STORED_AREA_COLUMNS).where(sql<boolean>`subdistrict_code = any(${textArray(codes)})`));
    return new Map(rows.map((r) => [r.subdistrict_code, r]));
  },

  async insertAreas(tx, records, at) {
    if (records.length === 0) return;
    const columns = [
      ...AREA_FIELDS.map((f) => textArray(records.map((r) => r[f]))),
      ...SEARCH_COLUMNS.map(([, name]) => textArray(records.map((r) => r[name].toLowerCase()))),
    ];
    await execute(
      tx,
      sql`insert into areas (${sql.join(AREA_INSERT_COLUMNS.map((c) => sql.ref(c)))})
      select u.*, ${at}::timestamptz, ${at}::timestamptz from unnest(${sql.join(columns)}) as u`,
    );
  },

  async updateAreas(tx, updates, fields, at) {
    if (updates.length === 0) return;
    const columns = [...fields, ...SEARCH_COLUMNS.map(([column]) => column)];
    const arrays = [
      ...fields.map((f) => textArray(updates.map((u) => u.record[f]))),
      ...SEARCH_COLUMNS.map(([, name]) => textArray(updates.map((u) => u.record[name].toLowerCase()))),
    ];
    await execute(
      tx,
      sql`update areas a set ${sql.join(columns.map((c) => sql`${sql.ref(c)} = u.${sql.ref(c)}`))}, updated_at = ${at}::timestamptz
      from unnest(${sql`${updates.map((u) => u.regionId)}::bigint[]`}, ${sql.join(arrays)}) as u(region_id, ${sql.join(columns.map((c) => sql.ref(c)))})
      where a.region_id = u.region_id`,
    );
  },

  async insertRegions(tx, regions) {
    if (regions.length === 0) return;
    await executeWrite(tx, tx.db.insertInto('area_regions').values(regions.map((r) => ({ level: r.level, code: r.code, name_search: r.nameSearch, area_count: r.added }))));
  },

  async updateRegions(tx, regions) {
    if (regions.length === 0) return;
    await execute(
      tx,
      sql`update area_regions r set name_search = u.name_search, area_count = r.area_count + u.added
      from unnest(${regions.map((r) => r.id)}::bigint[], ${regions.map((r) => r.nameSearch)}::text[], ${regions.map((r) => r.added)}::bigint[])
        as u(id, name_search, added)
      where r.id = u.id`,
    );
  },
};
