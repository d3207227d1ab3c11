// The area endpoints through the assembled gateway, every success checked against the contract's
// strict response schemas.
import { areaDetailResponse, areaSearchResponse, errorEnvelope } from '@pits/contract';
import { type AreaImportRow, createApiKey, createPartner, upsertAreaBatch } from '@pits/persistence';
import { type TestDatabase, openTestDatabase, testDialects } from '@pits/persistence/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadGatewayConfig } from '../config.js';
import { type Gateway, createGateway } from '../create-gateway.js';

const dialects = await testDialects();
const NOW = new Date('2026-11-22T08:00:00.000Z');

const area = (code: string, subdistrict: string, more: Partial<AreaImportRow>): AreaImportRow => ({
  country: 'Indonesia',
  country_code: 'ID',
  state: 'Jawa Barat',
  state_code: code.slice(0, 2),
  city: 'Kota Bandung',
  city_code: code.slice(0, 5),
  district: 'Sukajadi',
  district_code: code.slice(0, 8),
  subdistrict,
  subdistrict_code: code,
  postcode: '40162',
  latitude: '-6.88',
  longitude: '107.59731234',
  ...more,
});

const AREAS = [
  area('32.73.01.1001', 'Sukajadi', {}),
  area('32.73.01.1002', 'Pasteur', { postcode: '40161' }),
  area('32.04.01.2001', 'Bandung Kulon', { city: 'Kabupaten Bandung', district: 'Cileunyi', postcode: '40622' }),
  area('31.74.05.1001', 'Senayan', { state: 'DKI Jakarta', city: 'Kota Jakarta Selatan', district: 'Kebayoran Baru', postcode: '12190', latitude: '-6.22', longitude: '106.8' }),
];

describe.each(dialects)('[%s] area routes', (dialect) => {
  let t: TestDatabase;
  let gateway: Gateway;
  let url: string;
  let key: string;
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
    await upsertAreaBatch(t.database, AREAS, { now: NOW });
    const partner = await createPartner(t.database, { name: 'Maps Partner', email: 'dev@maps.example', tier: 'small' }, NOW);
    key = (await createApiKey(t.database, partner.id, { environment: 'test' }, NOW)).secret;
    const config = loadGatewayConfig({ CREDENTIALS_KEY: 'c'.repeat(64), GATEWAY_HOST: '127.0.0.1', GATEWAY_PORT: '0' });
    gateway = createGateway(config, { database: t.database, logger: pino({ level: 'silent' }) });
    url = (await gateway.listen()).url;
  });
  afterAll(async () => {
    await gateway.close();
    await t.cleanup();
  });

  const get = (path: string, headers: Record<string, string> = { Authorization: `Bearer ${key}` }) => fetch(`${url}${path}`, { headers });

  it('searches by level, case-insensitively, in code order, in envelope B with the exact Area shape', async () => {
    const res = await get('/api/partner/v1/areas?search_by=city&search_value=BANDUNG&per_page=2');
    expect(res.status).toBe(200);
    const body = areaSearchResponse.parse(await res.json());
    expect(body.data.areas.map((a) => a.subdistrict_code)).toEqual(['32.04.01.2001', '32.73.01.1001']);
    expect(body.data.pagination).toEqual({ current_page: 1, per_page: 2, total: 3, last_page: 2, from: 1, to: 2, has_more_pages: true });
    expect(body.data.areas[1]).toMatchObject({ latitude: '-6.88000000', longitude: '107.59731234', postcode: '40162', state_code: '32', city_code: '32.73' });
    expect(typeof body.data.areas[1]!.region_id).toBe('number');
  });

  it.each([
    ['search_by=subdistrict&search_value=40161', ['32.73.01.1002']],
    ['search_value=jakarta', ['31.74.05.1001']],
    ['search_value=12190', ['31.74.05.1001']],
    ['search_by=district&search_value=sukajadi', ['32.73.01.1001', '32.73.01.1002']],
    ['', ['31.74.05.1001', '32.04.01.2001', '32.73.01.1001', '32.73.01.1002']],
    ['page=3&per_page=2', []],
  ])('answers ?%s', async (query, codes) => {
    const body = areaSearchResponse.parse(await (await get(`/api/partner/v1/areas?${query}`)).json());
    expect(body.data.areas.map((a) => a.subdistrict_code)).toEqual(codes);
  });

  it('refuses an unknown search_by with 422 on that parameter', async () => {
    const res = await get('/api/partner/v1/areas?search_by=village&search_value=x');
    expect(res.status).toBe(422);
    expect(errorEnvelope.parse(await res.json()).error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'search_by' } });
  });

  it('reads one area with its timestamps; a malformed code is 422, an unknown one 404', async () => {
    const ok = await get('/api/partner/v1/areas/detail?subdistrict_code=31.74.05.1001');
    expect(ok.status).toBe(200);
    const body = areaDetailResponse.parse(await ok.json());
    expect(body.data).toMatchObject({ subdistrict: 'Senayan', longitude: '106.80000000', created_at: NOW.toISOString(), updated_at: NOW.toISOString() });

    const bad = await get('/api/partner/v1/areas/detail?subdistrict_code=31.74.5.1001');
    expect(bad.status).toBe(422);
    expect(errorEnvelope.parse(await bad.json()).error.details.field).toBe('subdistrict_code');
    const missing = await get('/api/partner/v1/areas/detail?subdistrict_code=99.99.99.9999');
    expect(missing.status).toBe(404);
    expect(errorEnvelope.parse(await missing.json()).error.code).toBe('NOT_FOUND');
  });

  it('needs a key but no tenant, and counts search in its own 200-per-minute bucket', async () => {
    expect((await get('/api/partner/v1/areas', {})).status).toBe(401);
    const search = await get('/api/partner/v1/areas');
    expect(search.headers.get('x-ratelimit-limit')).toBe('200');
    const detail = await get('/api/partner/v1/areas/detail?subdistrict_code=31.74.05.1001');
    expect(detail.headers.get('x-ratelimit-limit')).toBe('1000');
  });
});
