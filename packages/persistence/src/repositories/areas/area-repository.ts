// Areas: the import's batch upsert (by subdistrict code, so region_id stays stable across
// re-imports) and the partner API's search and detail reads.
//
// Search works on regions rather than on villages wherever it can. Codes nest (a village's code
// starts with its district's, which starts with its city's, which starts with its province's) and
// results are ordered by subdistrict code, so every matching province, city or district is one
// contiguous run of villages whose length area_regions already knows. A search becomes a short
// sorted list of segments — whole regions and single villages — that is counted by adding up and
// paged by walking it, then only the page's villages are read. The work per request follows the
// number of matching regions and single villages, never the number of villages under them.
import { type PageRequest, pageOffset } from '@pits/domain';
import type { Selectable } from 'kysely';
import type { Database } from '../../create-database.js';
import type { AreaRegionLevel, AreaTable } from '../../schema/index.js';
import { type ParamRef, markedList, preparedQuery } from '../../parameterised-query.js';
import type { Scope, Tx } from '../../transaction.js';
import { importBatch } from '../import-batch.js';
import { areaStoreOf } from '../../dialects/dialect-registry.js';
import { AREA_FIELDS, type AreaField, type AreaImportRow, type AreaUpdate, type RegionInsert, type RegionUpdate } from './area-fields.js';
import { execute, executeTakeFirst, executeTakeFirstOrThrow } from '../../execution/execute.js';

export { AREA_FIELDS, type AreaField, type AreaImportRow } from './area-fields.js';

/** The stored columns an area record shows: every column but the lower-cased search columns. */
type AreaRow = Omit<Selectable<AreaTable>, 'state_search' | 'city_search' | 'district_search' | 'subdistrict_search'>;

const VIEW_COLUMNS = ['region_id', ...AREA_FIELDS, 'created_at', 'updated_at'] as const;

/** An area (a village with its parents) as this package hands it out. */
export interface AreaRecord {
  /** A stable integer surrogate, kept across re-imports. */
  regionId: number;
  country: string;
  countryCode: string;
  state: string;
  stateCode: string;
  city: string;
  cityCode: string;
  district: string;
  districtCode: string;
  subdistrict: string;
  /** `NN.NN.NN.NNNN`. */
  subdistrictCode: string;
  postcode: string;
  /** Decimal strings, as imported. */
  latitude: string;
  longitude: string;
  createdAt: string;
  updatedAt: string;
}

export function toAreaRecord(row: AreaRow): AreaRecord {
  return {
    regionId: row.region_id,
    country: row.country,
    countryCode: row.country_code,
    state: row.state,
    stateCode: row.state_code,
    city: row.city,
    cityCode: row.city_code,
    district: row.district,
    districtCode: row.district_code,
    subdistrict: row.subdistrict,
    subdistrictCode: row.subdistrict_code,
    postcode: row.postcode,
    latitude: row.latitude,
    longitude: row.longitude,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The levels above a village, outermost first, with the record fields that name and code them. */
const REGION_LEVELS: readonly { level: AreaRegionLevel; code: 'state_code' | 'city_code' | 'district_code'; name: 'state' | 'city' | 'district' }[] = [
  { level: 'province', code: 'state_code', name: 'state' },
  { level: 'city', code: 'city_code', name: 'city' },
  { level: 'district', code: 'district_code', name: 'district' },
];

// ---------------------------------------------------------------------------------------------
// Import

/** Fields a source may not carry (idn-area-data has no postcodes or coordinates). */
export type AreaKeptField = 'postcode' | 'latitude' | 'longitude';

export interface AreaBatchOptions {
  now: Date;
  /** Count what would change, then roll the batch back. */
  dryRun?: boolean;
  /** Fields the source does not carry: a new area takes the record's value, an existing one keeps its own. */
  keep?: readonly AreaKeptField[];
}

export interface AreaBatchResult {
  inserted: number;
  updated: number;
  unchanged: number;
}

/**
 * Upserts one batch of areas by subdistrict code in one transaction: new codes are inserted,
 * changed ones updated (region_id kept), identical ones left alone; the regions above them and
 * the search indexes change in the same transaction. The codes in a batch must be distinct and
 * valid (the importer checks them).
 *
 * @example
 * const { inserted, updated, unchanged } = await upsertAreaBatch(database, records, { now: new Date() });
 */
export async function upsertAreaBatch(database: Database, records: readonly AreaImportRow[], options: AreaBatchOptions): Promise<AreaBatchResult> {
  const keep = new Set<AreaField>(options.keep ?? []);
  const compared = AREA_FIELDS.filter((f) => f !== 'subdistrict_code' && !keep.has(f));
  const at = options.now.toISOString();
  const store = areaStoreOf(database);
  return importBatch(database, options.dryRun, async (tx) => {
    const existing = await store.existingAreas(tx, records.map((r) => r.subdistrict_code));
    const inserts: AreaImportRow[] = [];
    const updates: AreaUpdate[] = [];
    for (const record of records) {
      const old = existing.get(record.subdistrict_code);
      if (!old) inserts.push(record);
      else if (compared.some((f) => old[f] !== record[f])) {
        updates.push({ regionId: old.region_id, record, oldSubdistrictSearch: old.subdistrict_search });
      }
    }
    await store.insertAreas(tx, inserts, at);
    await store.updateAreas(tx, updates, compared, at);
    await upsertRegions(tx, records, new Set(inserts.map((r) => r.subdistrict_code)));
    return { inserted: inserts.length, updated: updates.length, unchanged: records.length - inserts.length - updates.length };
  });
}

/** Creates the regions the batch names for the first time, renames changed ones, and counts the new villages in. */
async function upsertRegions(tx: Tx, records: readonly AreaImportRow[], inserted: ReadonlySet<string>): Promise<void> {
  const touched = new Map<string, RegionInsert>();
  for (const record of records) {
    const isNew = inserted.has(record.subdistrict_code);
    for (const { level, code, name } of REGION_LEVELS) {
      let region = touched.get(record[code]);
      if (!region) touched.set(record[code], (region = { level, code: record[code], nameSearch: record[name].toLowerCase(), added: 0 }));
      if (isNew) region.added += 1;
    }
  }
  // Codes of different levels never collide (NN, NN.NN, NN.NN.NN), so the code alone finds a region.
  const stored = new Map<string, { id: number; level: AreaRegionLevel; name_search: string }>();
  const codes = [...touched.keys()];
  for (let i = 0; i < codes.length; i += 1000) {
    const rows = await execute(tx, tx.db.selectFrom('area_regions').select(['id', 'level', 'code', 'name_search']).where('code', 'in', codes.slice(i, i + 1000)));
    for (const row of rows) stored.set(row.code, row);
  }
  const inserts: RegionInsert[] = [];
  const updates: RegionUpdate[] = [];
  for (const region of touched.values()) {
    const old = stored.get(region.code);
    if (!old) inserts.push(region);
    else if (region.added > 0 || old.name_search !== region.nameSearch) {
      updates.push({ id: old.id, nameSearch: region.nameSearch, oldNameSearch: old.name_search, added: region.added });
    }
  }
  const store = areaStoreOf(tx);
  await store.insertRegions(tx, inserts);
  await store.updateRegions(tx, updates);
}

/** True when at least one area is stored. */
export async function hasAreas(scope: Scope): Promise<boolean> {
  return (await executeTakeFirst(scope, scope.db.selectFrom('areas').select('region_id').limit(1))) !== undefined;
}

// ---------------------------------------------------------------------------------------------
// Reads

/** The area with this subdistrict code, or undefined. */
export async function findArea(scope: Scope, subdistrictCode: string): Promise<AreaRecord | undefined> {
  const row = await executeTakeFirst(scope, areaByCode.with({ code: subdistrictCode }));
  return row && toAreaRecord(row);
}

// The search's statements, prepared (a search runs two to four of them).
const areaByCode = preparedQuery({
  build: (scope, param: ParamRef<{ code: string }>) => scope.db.selectFrom('areas').select(VIEW_COLUMNS).where('subdistrict_code', '=', param('code')),
});
const areasByCodes = preparedQuery({
  shape: (p: { codes: string[] }) => p.codes.length,
  build: (scope, param, n) => scope.db.selectFrom('areas').select(VIEW_COLUMNS).where('subdistrict_code', 'in', markedList(param, 'codes', n)),
});
const areasInRange = preparedQuery({
  build: (scope, param: ParamRef<{ from: string; to: string; take: number; skip: number }>) =>
  scope.db
    .selectFrom('areas')
    .select(VIEW_COLUMNS)
    .where('subdistrict_code', '>=', param('from'))
    .where('subdistrict_code', '<=', param('to'))
    .orderBy('subdistrict_code')
    .limit(param('take'))
    .offset(param('skip')),
});
const codesOfPostcode = preparedQuery({
  build: (scope, param: ParamRef<{ postcode: string }>) => scope.db.selectFrom('areas').select('subdistrict_code').where('postcode', '=', param('postcode')),
});
const regionsOfLevel = preparedQuery({
  shape: (p: { level: AreaRegionLevel; from?: string | undefined; to?: string | undefined }) => p.from !== undefined && p.to !== undefined,
  build: (scope, param, inRange) => {
    let query = scope.db.selectFrom('area_regions').select(['code', 'area_count']).where('level', '=', param('level'));
    if (inRange) query = query.where('code', '>=', param('from')!).where('code', '<=', param('to')!);
    return query.orderBy('code');
  },
});

/** The level `searchValue` is matched on; absent matches any name or the postcode. */
export type AreaSearchLevel = 'province' | 'city' | 'district' | 'subdistrict';

export interface AreaSearch {
  searchBy?: AreaSearchLevel | undefined;
  /** Case-insensitive substring; a five-digit value is also an exact postcode. Empty or absent lists every area. */
  searchValue?: string | undefined;
}

const SEARCH_LEVEL_COLUMN = {
  province: 'state_search',
  city: 'city_search',
  district: 'district_search',
  subdistrict: 'subdistrict_search',
} as const;

const POSTCODE = /^\d{5}$/;

/**
 * A page of areas by subdistrict code, and how many match. `province` matches the state name,
 * `city`, `district` and `subdistrict` their names, and `subdistrict` with five digits the exact
 * postcode instead; without `searchBy` any of the four names or the postcode matches.
 *
 * @example
 * const { rows, total } = await searchAreas(db, { searchBy: 'province', searchValue: 'jawa' }, { page: 1, perPage: 20 });
 */
export async function searchAreas(scope: Scope, search: AreaSearch, page: PageRequest): Promise<{ rows: AreaRecord[]; total: number }> {
  const needle = (search.searchValue ?? '').trim().toLowerCase();
  const isPostcode = POSTCODE.test(needle);
  let segments: Segment[];
  if (needle === '') {
    segments = await childSegments(scope, 'province', '');
  } else if (search.searchBy === 'subdistrict' && isPostcode) {
    segments = villages(await postcodeCodes(scope, needle));
  } else if ([...needle].length < areaStoreOf(scope).shortestIndexedNeedle) {
    return scanSearch(scope, search.searchBy, needle, page);
  } else {
    const store = areaStoreOf(scope);
    const levels: readonly AreaSearchLevel[] = search.searchBy ? [search.searchBy] : ['province', 'city', 'district', 'subdistrict'];
    const regionLevels = levels.filter((l): l is AreaRegionLevel => l !== 'subdistrict');
    const found: Segment[] = [];
    if (regionLevels.length > 0) {
      for (const r of await store.matchRegions(scope, regionLevels, needle)) found.push({ code: r.code, level: r.level, count: Number(r.area_count) });
    }
    if (levels.includes('subdistrict')) found.push(...villages(await store.matchVillageCodes(scope, needle)));
    if (!search.searchBy && isPostcode) found.push(...villages(await postcodeCodes(scope, needle)));
    segments = disjoint(found);
  }
  const total = segments.reduce((n, s) => n + s.count, 0);
  const pieces = await pageWindow(scope, segments, pageOffset(page), page.perPage);
  return { rows: await readPieces(scope, pieces), total };
}

/** A whole region (its villages form one run in code order) or one village. */
interface Segment {
  code: string;
  level: AreaRegionLevel | 'village';
  count: number;
}

interface Piece {
  segment: Segment;
  skip: number;
  take: number;
}

const villages = (codes: readonly string[]): Segment[] => codes.map((code) => ({ code, level: 'village', count: 1 }));

/** Sorted by code, without anything inside a region already listed, without repeats. */
function disjoint(segments: Segment[]): Segment[] {
  segments.sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
  const kept: Segment[] = [];
  let region: string | undefined;
  for (const s of segments) {
    if (region !== undefined && s.code.startsWith(`${region}.`)) continue;
    if (kept.at(-1)?.code === s.code) continue;
    kept.push(s);
    region = s.level === 'village' ? region : s.code;
  }
  return kept;
}

/** A page starting this far into a province or city reads its children's counts instead of walking villages. */
const REFINE_FROM = 500;
const CHILD_LEVEL = { province: 'city', city: 'district' } as const;

/** The segments (and where in each) that hold rows skip..skip+take of the concatenation. */
async function pageWindow(scope: Scope, segments: readonly Segment[], skip: number, take: number): Promise<Piece[]> {
  const pieces: Piece[] = [];
  for (const segment of segments) {
    if (take <= 0) break;
    if (skip >= segment.count) {
      skip -= segment.count;
      continue;
    }
    const n = Math.min(segment.count - skip, take);
    if (skip >= REFINE_FROM && (segment.level === 'province' || segment.level === 'city')) {
      pieces.push(...(await pageWindow(scope, await childSegments(scope, CHILD_LEVEL[segment.level], segment.code), skip, n)));
    } else {
      pieces.push({ segment, skip, take: n });
    }
    skip = 0;
    take -= n;
  }
  return pieces;
}

/** The regions of `level` inside the region `parent` ('' for every province), by code. */
async function childSegments(scope: Scope, level: AreaRegionLevel, parent: string): Promise<Segment[]> {
  const rows = await execute(scope, regionsOfLevel.with(parent === '' ? { level } : { level, from: `${parent}.00`, to: `${parent}.99` }));
  return rows.map((r) => ({ code: r.code, level, count: Number(r.area_count) }));
}

/** The first and last possible subdistrict code under a region code (NN, NN.NN or NN.NN.NN). */
function codeRange(code: string): [string, string] {
  const cut = code.length - 2;
  return [code + '.00.00.0000'.slice(cut), code + '.99.99.9999'.slice(cut)];
}

async function readPieces(scope: Scope, pieces: readonly Piece[]): Promise<AreaRecord[]> {
  const single = pieces.filter((p) => p.segment.level === 'village').map((p) => p.segment.code);
  const byCode = new Map<string, AreaRecord>();
  if (single.length > 0) {
    const rows = await execute(scope, areasByCodes.with({ codes: single }));
    for (const row of rows) byCode.set(row.subdistrict_code, toAreaRecord(row));
  }
  const out: AreaRecord[] = [];
  for (const { segment, skip, take } of pieces) {
    if (segment.level === 'village') {
      const row = byCode.get(segment.code);
      if (row) out.push(row);
      continue;
    }
    const [from, to] = codeRange(segment.code);
    out.push(...(await execute(scope, areasInRange.with({ from, to, take, skip }))).map(toAreaRecord));
  }
  return out;
}

async function postcodeCodes(scope: Scope, postcode: string): Promise<string[]> {
  const rows = await execute(scope, codesOfPostcode.with({ postcode }));
  return rows.map((r) => r.subdistrict_code);
}

/**
 * Needles shorter than the substring index can answer: nearly every area matches one anyway, so
 * walk the code order for the page and count by scan.
 */
async function scanSearch(scope: Scope, searchBy: AreaSearchLevel | undefined, needle: string, page: PageRequest): Promise<{ rows: AreaRecord[]; total: number }> {
  const columns = searchBy ? [SEARCH_LEVEL_COLUMN[searchBy]] : Object.values(SEARCH_LEVEL_COLUMN);
  const base = scope.db.selectFrom('areas').where(({ or, ref }) => or(columns.map((c) => scope.dialect.containsLowerCase(ref(c), needle))));
  const [rows, count] = await Promise.all([
    execute(scope, base.select(VIEW_COLUMNS).orderBy('subdistrict_code').limit(page.perPage).offset(pageOffset(page))),
    executeTakeFirstOrThrow(scope, base.select(({ fn }) => fn.countAll<number>().as('n'))),
  ]);
  return { rows: rows.map(toAreaRecord), total: Number(count.n) };
}
