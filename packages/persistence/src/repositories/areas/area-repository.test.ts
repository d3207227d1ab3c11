import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestDatabase, openTestDatabase, readAreaRecords, testDialects } from '../../testing/index.js';
import { type AreaImportRow, type AreaSearch, findArea, hasAreas, searchAreas, upsertAreaBatch } from './area-repository.js';

const dialects = await testDialects();
const NOW = new Date('2026-11-22T08:00:00.000Z');
const LATER = new Date('2026-11-23T08:00:00.000Z');

function village(code: string, name: string, overrides: Partial<AreaImportRow> = {}): AreaImportRow {
  const [p, c, d] = [code.slice(0, 2), code.slice(0, 5), code.slice(0, 8)];
  return {
    country: 'Indonesia',
    country_code: 'ID',
    state: `Provinsi ${p}`,
    state_code: p,
    city: `Kota ${c}`,
    city_code: c,
    district: `Kecamatan ${d}`,
    district_code: d,
    subdistrict: name,
    subdistrict_code: code,
    postcode: '12345',
    latitude: '-6.20000000',
    longitude: '106.80000000',
    ...overrides,
  };
}

const SMALL: AreaImportRow[] = [
  village('31.71.01.1001', 'Gambir', { state: 'DKI Jakarta', city: 'Kota Jakarta Pusat', district: 'Gambir', postcode: '10110' }),
  village('31.71.01.1002', 'Kebon Kelapa', { state: 'DKI Jakarta', city: 'Kota Jakarta Pusat', district: 'Gambir', postcode: '10120' }),
  village('31.74.05.1001', 'Senayan', { state: 'DKI Jakarta', city: 'Kota Jakarta Selatan', district: 'Kebayoran Baru', postcode: '12190' }),
  village('32.73.01.1001', 'Sukajadi', { state: 'Jawa Barat', city: 'Kota Bandung', district: 'Sukajadi', postcode: '40162' }),
  village('32.73.01.1002', 'Pasteur', { state: 'Jawa Barat', city: 'Kota Bandung', district: 'Sukajadi', postcode: '40161' }),
  village('32.04.01.2001', 'Bandung Kulon', { state: 'Jawa Barat', city: 'Kabupaten Bandung', district: 'Cileunyi', postcode: '40622' }),
];

const codes = (rows: { subdistrictCode: string }[]) => rows.map((r) => r.subdistrictCode);

describe.each(dialects)('[%s] areas', (dialect) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
  });
  afterAll(() => t.cleanup());

  it('inserts, then leaves identical rows alone, then updates by code keeping region_id, and a dry run changes nothing', async () => {
    expect(await hasAreas(t.database)).toBe(false);
    expect(await upsertAreaBatch(t.database, SMALL, { now: NOW })).toEqual({ inserted: 6, updated: 0, unchanged: 0 });
    expect(await hasAreas(t.database)).toBe(true);
    const before = (await findArea(t.database, '31.74.05.1001'))!;
    expect(await upsertAreaBatch(t.database, SMALL, { now: LATER })).toEqual({ inserted: 0, updated: 0, unchanged: 6 });

    const renamed = SMALL.map((r) => (r.subdistrict_code === '31.74.05.1001' ? { ...r, subdistrict: 'Gelora', postcode: '10270' } : r));
    const dry = await upsertAreaBatch(t.database, [...renamed, village('31.74.05.1002', 'Tambahan')], { now: LATER, dryRun: true });
    expect(dry).toEqual({ inserted: 1, updated: 1, unchanged: 5 });
    expect(await findArea(t.database, '31.74.05.1002')).toBeUndefined();
    expect((await findArea(t.database, '31.74.05.1001'))!.subdistrict).toBe('Senayan');

    expect(await upsertAreaBatch(t.database, renamed, { now: LATER })).toEqual({ inserted: 0, updated: 1, unchanged: 5 });
    const after = (await findArea(t.database, '31.74.05.1001'))!;
    expect(after).toMatchObject({ regionId: before.regionId, subdistrict: 'Gelora', postcode: '10270', createdAt: NOW.toISOString(), updatedAt: LATER.toISOString() });
    // The substring index follows the rename: the old name is gone, the new one is found.
    expect((await searchAreas(t.database, { searchBy: 'subdistrict', searchValue: 'senayan' }, { page: 1, perPage: 20 })).total).toBe(0);
    expect(codes((await searchAreas(t.database, { searchBy: 'subdistrict', searchValue: 'GELORA' }, { page: 1, perPage: 20 })).rows)).toEqual(['31.74.05.1001']);
    await upsertAreaBatch(t.database, SMALL, { now: LATER });
  });

  it('keeps the fields a source does not carry on existing rows', async () => {
    const bare = SMALL.map((r) => ({ ...r, postcode: '', latitude: '0.00000000', longitude: '0.00000000' }));
    expect(await upsertAreaBatch(t.database, bare, { now: LATER, keep: ['postcode', 'latitude', 'longitude'] })).toEqual({ inserted: 0, updated: 0, unchanged: 6 });
    expect((await findArea(t.database, '32.73.01.1001'))!.postcode).toBe('40162');
  });

  const cases: [string, AreaSearch, string[]][] = [
    ['a province, case-insensitively', { searchBy: 'province', searchValue: 'JAKARTA' }, ['31.71.01.1001', '31.71.01.1002', '31.74.05.1001']],
    ['a city', { searchBy: 'city', searchValue: 'bandung' }, ['32.04.01.2001', '32.73.01.1001', '32.73.01.1002']],
    ['a district', { searchBy: 'district', searchValue: 'baru' }, ['31.74.05.1001']],
    ['a village name', { searchBy: 'subdistrict', searchValue: 'kelapa' }, ['31.71.01.1002']],
    ['an exact postcode under subdistrict', { searchBy: 'subdistrict', searchValue: '40161' }, ['32.73.01.1002']],
    ['any level, without overlaps', { searchValue: 'sukajadi' }, ['32.73.01.1001', '32.73.01.1002']],
    ['any level, regions and villages together', { searchValue: 'bandung' }, ['32.04.01.2001', '32.73.01.1001', '32.73.01.1002']],
    ['any level, a postcode', { searchValue: '10120' }, ['31.71.01.1002']],
    ['a short needle, by scan', { searchBy: 'subdistrict', searchValue: 'ga' }, ['31.71.01.1001']],
    ['LIKE wildcards as plain text', { searchValue: '%' }, []],
    ['everything, without a value', { searchValue: '  ' }, SMALL.map((r) => r.subdistrict_code).sort()],
  ];
  it.each(cases)('searches %s', async (_name, search, expected) => {
    const { rows, total } = await searchAreas(t.database, search, { page: 1, perPage: 20 });
    expect({ total, codes: codes(rows) }).toEqual({ total: expected.length, codes: expected });
  });

  it('pages in code order with the total on every page', async () => {
    const pages = [];
    for (let page = 1; page <= 4; page += 1) pages.push(await searchAreas(t.database, {}, { page, perPage: 2 }));
    expect(pages.map((p) => p.total)).toEqual([6, 6, 6, 6]);
    expect(pages.flatMap((p) => codes(p.rows))).toEqual(SMALL.map((r) => r.subdistrict_code).sort());
    expect(pages[3]!.rows).toEqual([]);
  });
});

describe.each(dialects)('[%s] area search over the whole country', (dialect) => {
  let t: TestDatabase;
  let all: AreaImportRow[];
  beforeAll(async () => {
    all = readAreaRecords();
    t = await openTestDatabase(dialect);
    for (let i = 0; i < all.length; i += 2000) await upsertAreaBatch(t.database, all.slice(i, i + 2000), { now: NOW });
  }, 120_000);
  afterAll(() => t.cleanup());

  const byCode = (a: AreaImportRow, b: AreaImportRow) => (a.subdistrict_code < b.subdistrict_code ? -1 : 1);
  function expected(search: AreaSearch): AreaImportRow[] {
    const v = (search.searchValue ?? '').trim().toLowerCase();
    const has = (s: string) => s.toLowerCase().includes(v);
    const postcode = /^\d{5}$/.test(v);
    const match = (r: AreaImportRow): boolean => {
      if (v === '') return true;
      switch (search.searchBy) {
        case 'province': return has(r.state);
        case 'city': return has(r.city);
        case 'district': return has(r.district);
        case 'subdistrict': return postcode ? r.postcode === v : has(r.subdistrict);
        default: return has(r.state) || has(r.city) || has(r.district) || has(r.subdistrict) || (postcode && r.postcode === v);
      }
    };
    return all.filter(match).sort(byCode);
  }

  const searches: [AreaSearch, number[]][] = [
    [{}, [1, 2, 400, 4188]],
    [{ searchBy: 'province', searchValue: 'Jawa' }, [1, 60, 700]],
    [{ searchBy: 'city', searchValue: 'bandung' }, [1, 9]],
    [{ searchBy: 'district', searchValue: 'baru' }, [1, 5, 40]],
    [{ searchBy: 'subdistrict', searchValue: 'sari' }, [1, 50]],
    [{ searchBy: 'subdistrict', searchValue: '40115' }, [1]],
    [{ searchValue: 'bandung' }, [1, 3, 30]],
    [{ searchValue: 'jaya' }, [1, 100]],
    [{ searchValue: 'a' }, [1, 2000]],
    [{ searchBy: 'city', searchValue: 'ko' }, [1, 300]],
  ];
  it.each(searches)('answers %j exactly as a filter over the file would, on every page asked', async (search, pages) => {
    const want = expected(search);
    for (const page of pages) {
      const got = await searchAreas(t.database, search, { page, perPage: 20 });
      expect(got.total).toBe(want.length);
      expect(codes(got.rows)).toEqual(want.slice((page - 1) * 20, page * 20).map((r) => r.subdistrict_code));
    }
  });

  it('reads one area in full', async () => {
    const record = all.find((r) => r.subdistrict.includes(','))!;
    expect(await findArea(t.database, record.subdistrict_code)).toEqual({
      regionId: expect.any(Number) as number,
      country: record.country,
      countryCode: record.country_code,
      state: record.state,
      stateCode: record.state_code,
      city: record.city,
      cityCode: record.city_code,
      district: record.district,
      districtCode: record.district_code,
      subdistrict: record.subdistrict,
      subdistrictCode: record.subdistrict_code,
      postcode: record.postcode,
      latitude: record.latitude,
      longitude: record.longitude,
      createdAt: NOW.toISOString(),
      updatedAt: NOW.toISOString(),
    });
  });
});
