import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { area, areaDetail, areaDetailQuery, areaDetailResponse, areaSearchQuery, areaSearchResponse } from './area-schemas.js';
import { parseWith } from './validation-issues.js';

function refusal(schema: z.ZodType, input: unknown) {
  const result = parseWith(schema, input);
  if (result.ok) throw new Error('expected a refusal');
  return result.error;
}

describe('areaSearchQuery', () => {
  it('defaults to page 1 of 20 and trims the keyword', () => {
    expect(parseWith(areaSearchQuery, {})).toEqual({ ok: true, value: { page: 1, per_page: 20 } });
    expect(parseWith(areaSearchQuery, { search_by: 'subdistrict', search_value: ' 12190 ', per_page: '5' })).toEqual({
      ok: true,
      value: { page: 1, per_page: 5, search_by: 'subdistrict', search_value: '12190' },
    });
  });

  it('takes an empty keyword as no filter', () => {
    expect(parseWith(areaSearchQuery, { search_value: '' })).toEqual({ ok: true, value: { page: 1, per_page: 20, search_value: '' } });
  });

  it.each([
    [{ search_by: 'village' }, 'search_by', 'must be one of: province, city, district, subdistrict'],
    [{ search_value: 'k'.repeat(101) }, 'search_value', 'must be at most 100 characters'],
    [{ per_page: '101' }, 'per_page', 'must be at most 100'],
    [{ search_value: 'Jakarta\u0000' }, 'search_value', 'must not contain the NUL character'],
    [{ search_value: 'Jakarta\ud800' }, 'search_value', 'must not contain unpaired surrogates (invalid Unicode)'],
    [{ search_by: 'city\u0000' }, 'search_by', 'must be one of: province, city, district, subdistrict'],
  ])('refuses %j', (query, field, issue) => {
    expect(refusal(areaSearchQuery, query).details).toEqual({ field, issue });
  });
});

describe('areaDetailQuery', () => {
  it('needs a subdistrict code NN.NN.NN.NNNN', () => {
    expect(parseWith(areaDetailQuery, { subdistrict_code: '31.74.05.1001' })).toEqual({
      ok: true,
      value: { subdistrict_code: '31.74.05.1001' },
    });
    expect(refusal(areaDetailQuery, {}).details).toEqual({ field: 'subdistrict_code', issue: 'is required' });
    expect(refusal(areaDetailQuery, { subdistrict_code: '31.74.5.1001' }).details).toEqual({
      field: 'subdistrict_code',
      issue: 'must have the form NN.NN.NN.NNNN',
    });
  });
});

const senayan = {
  region_id: 31740501,
  country: 'Indonesia',
  country_code: 'ID',
  state: 'DKI Jakarta',
  state_code: '31',
  city: 'Jakarta Selatan',
  city_code: '31.74',
  district: 'Kebayoran Baru',
  district_code: '31.74.05',
  subdistrict: 'Senayan',
  subdistrict_code: '31.74.05.1001',
  postcode: '12190',
  longitude: '106.80213300',
  latitude: '-6.22716700',
};
const ts = '2026-01-31T08:15:30.123Z';
const envelopeB = (data: unknown) => ({ status: 200, message: 'Ok', data, errors: null, request_id: '3f2c1e9a-7b4d-4c3e-9a1b-2d3e4f5a6b7c' });
const more = { current_page: 1, per_page: 20, total: 1, last_page: 1, from: 1, to: 1, has_more_pages: false };

describe('area resources', () => {
  it('carries coordinates as strings with eight decimals', () => {
    expect(area.safeParse(senayan).success).toBe(true);
    expect(area.safeParse({ ...senayan, latitude: '-6.227167' }).success).toBe(false);
    expect(area.safeParse({ ...senayan, longitude: 106.802133 }).success).toBe(false);
  });

  it('checks the code formats', () => {
    expect(area.safeParse({ ...senayan, city_code: '3174' }).success).toBe(false);
    expect(area.safeParse({ ...senayan, district_code: '31.74.5' }).success).toBe(false);
  });

  it('adds timestamps in the detail only', () => {
    const detail = { ...senayan, created_at: ts, updated_at: ts };
    expect(areaDetail.safeParse(detail).success).toBe(true);
    expect(area.safeParse(detail).success).toBe(false);
    expect(areaDetail.safeParse(senayan).success).toBe(false);
  });

  it('responds in envelope B: areas with pagination, and the detail as data itself', () => {
    expect(areaSearchResponse.safeParse(envelopeB({ areas: [senayan], pagination: more })).success).toBe(true);
    expect(areaDetailResponse.safeParse(envelopeB({ ...senayan, created_at: ts, updated_at: ts })).success).toBe(true);
    expect(areaDetailResponse.safeParse(envelopeB({ area: { ...senayan, created_at: ts, updated_at: ts } })).success).toBe(false);
  });
});
