// The area search written straight against the drivers (better-sqlite3, pg), without Kysely, the
// repository or the gateway: the reference the benchmark holds them to. It follows the best plan
// found for each kind of search (regions with their village counts, trigram matches, one range
// read per page), written out again on purpose so that the benchmark can also check that both
// give the same answers.
import type BetterSqlite3 from 'better-sqlite3';
import type pg from 'pg';

export interface RawSearch {
  searchBy?: 'province' | 'city' | 'district' | 'subdistrict' | undefined;
  searchValue?: string | undefined;
  page: number;
  perPage: number;
}

export interface RawAreaRow {
  region_id: number;
  subdistrict_code: string;
  [column: string]: unknown;
}

/** One driver, one way to run `?`-placeholder SQL. */
export interface RawDriver {
  dialect: 'sqlite' | 'postgres';
  all<T>(text: string, params: readonly unknown[]): Promise<T[]>;
}

export function sqliteDriver(handle: BetterSqlite3.Database): RawDriver {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return {
    dialect: 'sqlite',
    async all<T>(text: string, params: readonly unknown[]) {
      let statement = cache.get(text);
      if (!statement) cache.set(text, (statement = handle.prepare(text)));
      return statement.all(...params) as T[];
    },
  };
}

export function postgresDriver(pool: pg.Pool): RawDriver {
  const texts = new Map<string, string>();
  return {
    dialect: 'postgres',
    async all<T>(text: string, params: readonly unknown[]) {
      let numbered = texts.get(text);
      if (numbered === undefined) {
        let n = 0;
        numbered = text.replace(/\?/g, () => `$${++n}`);
        texts.set(text, numbered);
      }
      return (await pool.query(numbered, params as unknown[])).rows as T[];
    },
  };
}

const COLUMNS =
  'region_id, country, country_code, state, state_code, city, city_code, district, district_code, subdistrict, subdistrict_code, postcode, latitude, longitude, created_at, updated_at';
const LEVEL_COLUMN = { province: 'state_search', city: 'city_search', district: 'district_search', subdistrict: 'subdistrict_search' } as const;

interface Segment {
  code: string;
  village: boolean;
  level: string;
  count: number;
}

const like = (needle: string) => `%${needle.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
const phrase = (needle: string) => `"${needle.replace(/"/g, '""')}"`;

async function regions(db: RawDriver, levels: string[], needle: string): Promise<Segment[]> {
  const marks = levels.map(() => '?').join(', ');
  const rows =
    db.dialect === 'sqlite'
      ? await db.all<{ level: string; code: string; area_count: number }>(
          `select r.level, r.code, r.area_count from area_regions_fts f join area_regions r on r.id = f.rowid where area_regions_fts match ? and r.level in (${marks})`,
          [phrase(needle), ...levels],
        )
      : await db.all<{ level: string; code: string; area_count: number }>(
          `select level, code, area_count from area_regions where level in (${marks}) and name_search like ? escape '\\'`,
          [...levels, like(needle)],
        );
  return rows.map((r) => ({ code: r.code, village: false, level: r.level, count: Number(r.area_count) }));
}

async function villageCodes(db: RawDriver, needle: string): Promise<Segment[]> {
  const rows =
    db.dialect === 'sqlite'
      ? await db.all<{ subdistrict_code: string }>('select a.subdistrict_code from areas a where a.region_id in (select rowid from areas_fts where areas_fts match ?)', [phrase(needle)])
      : await db.all<{ subdistrict_code: string }>("select subdistrict_code from areas where subdistrict_search like ? escape '\\'", [like(needle)]);
  return rows.map((r) => ({ code: r.subdistrict_code, village: true, level: 'village', count: 1 }));
}

async function postcode(db: RawDriver, value: string): Promise<Segment[]> {
  const rows = await db.all<{ subdistrict_code: string }>('select subdistrict_code from areas where postcode = ?', [value]);
  return rows.map((r) => ({ code: r.subdistrict_code, village: true, level: 'village', count: 1 }));
}

async function children(db: RawDriver, level: string, parent: string): Promise<Segment[]> {
  const rows = parent
    ? await db.all<{ code: string; area_count: number }>('select code, area_count from area_regions where level = ? and code >= ? and code <= ? order by code', [level, `${parent}.00`, `${parent}.99`])
    : await db.all<{ code: string; area_count: number }>('select code, area_count from area_regions where level = ? order by code', [level]);
  return rows.map((r) => ({ code: r.code, village: false, level, count: Number(r.area_count) }));
}

const NEXT: Record<string, string> = { province: 'city', city: 'district' };

async function window(db: RawDriver, segments: Segment[], skip: number, take: number, out: { s: Segment; skip: number; take: number }[]): Promise<void> {
  for (const s of segments) {
    if (take <= 0) return;
    if (skip >= s.count) {
      skip -= s.count;
      continue;
    }
    const n = Math.min(s.count - skip, take);
    const next = NEXT[s.level];
    if (skip >= 500 && next) await window(db, await children(db, next, s.code), skip, n, out);
    else out.push({ s, skip, take: n });
    skip = 0;
    take -= n;
  }
}

/** A page of areas and the total, as the partner API defines the search. */
export async function rawSearchAreas(db: RawDriver, search: RawSearch): Promise<{ rows: RawAreaRow[]; total: number }> {
  const needle = (search.searchValue ?? '').trim().toLowerCase();
  const offset = (search.page - 1) * search.perPage;
  const isPostcode = /^\d{5}$/.test(needle);
  let segments: Segment[];
  if (needle === '') segments = await children(db, 'province', '');
  else if (search.searchBy === 'subdistrict' && isPostcode) segments = await postcode(db, needle);
  else if ([...needle].length < 3) {
    const columns = search.searchBy ? [LEVEL_COLUMN[search.searchBy]] : Object.values(LEVEL_COLUMN);
    const where = columns.map((c) => `${c} like ? escape '\\'`).join(' or ');
    const params = columns.map(() => like(needle));
    const [rows, count] = await Promise.all([
      db.all<RawAreaRow>(`select ${COLUMNS} from areas where ${where} order by subdistrict_code limit ? offset ?`, [...params, search.perPage, offset]),
      db.all<{ n: number }>(`select count(*) as n from areas where ${where}`, params),
    ]);
    return { rows, total: Number(count[0]!.n) };
  } else {
    const levels = search.searchBy ? [search.searchBy] : ['province', 'city', 'district', 'subdistrict'];
    const found: Segment[] = [];
    const regionLevels = levels.filter((l) => l !== 'subdistrict');
    if (regionLevels.length > 0) found.push(...(await regions(db, regionLevels, needle)));
    if (levels.includes('subdistrict')) found.push(...(await villageCodes(db, needle)));
    if (!search.searchBy && isPostcode) found.push(...(await postcode(db, needle)));
    found.sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
    segments = [];
    let inside: string | undefined;
    for (const s of found) {
      if ((inside !== undefined && s.code.startsWith(`${inside}.`)) || segments.at(-1)?.code === s.code) continue;
      segments.push(s);
      if (!s.village) inside = s.code;
    }
  }
  const total = segments.reduce((n, s) => n + s.count, 0);
  const pieces: { s: Segment; skip: number; take: number }[] = [];
  await window(db, segments, offset, search.perPage, pieces);
  const singles = pieces.filter((p) => p.s.village).map((p) => p.s.code);
  const byCode = new Map<string, RawAreaRow>();
  if (singles.length > 0) {
    for (const row of await db.all<RawAreaRow>(`select ${COLUMNS} from areas where subdistrict_code in (${singles.map(() => '?').join(', ')})`, singles)) byCode.set(row.subdistrict_code, row);
  }
  const rows: RawAreaRow[] = [];
  for (const { s, skip, take } of pieces) {
    if (s.village) {
      const row = byCode.get(s.code);
      if (row) rows.push(row);
      continue;
    }
    const cut = s.code.length - 2;
    rows.push(
      ...(await db.all<RawAreaRow>(`select ${COLUMNS} from areas where subdistrict_code >= ? and subdistrict_code <= ? order by subdistrict_code limit ? offset ?`, [
        s.code + '.00.00.0000'.slice(cut),
        s.code + '.99.99.9999'.slice(cut),
        take,
        skip,
      ])),
    );
  }
  return { rows, total };
}
