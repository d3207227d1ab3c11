import { describe, expect, it } from 'vitest';
import { AreaRowChecker, coordinate } from './area-row.js';

const ROW = {
  country: 'Indonesia', country_code: 'ID', state: 'Aceh', state_code: '11', city: 'Kabupaten Aceh Selatan', city_code: '11.01',
  district: 'Bakongan', district_code: '11.01.01', subdistrict: 'Keude Bakongan', subdistrict_code: '11.01.01.2001',
  postcode: '23773', latitude: '2.9310948', longitude: ' 97.48458404 ',
};

describe('AreaRowChecker', () => {
  it('accepts a good row, trimmed, with coordinates as eight-place decimals', () => {
    expect(new AreaRowChecker().check(2, ROW)).toEqual({ ok: true, value: { ...ROW, latitude: '2.93109480', longitude: '97.48458404' } });
  });

  it.each([
    [{ subdistrict_code: '11.01.01.201' }, 'subdistrict_code', 'must have the form NN.NN.NN.NNNN'],
    [{ city_code: '12.01', district_code: '12.01.01', subdistrict_code: '12.01.01.2001' }, 'city_code', 'must start with its state_code 11'],
    [{ subdistrict_code: '11.01.02.2001' }, 'subdistrict_code', 'must start with its district_code 11.01.01'],
    [{ postcode: '2377' }, 'postcode', 'must be five digits'],
    [{ latitude: '-90.00000001' }, 'latitude', 'must be between -90 and 90'],
    [{ longitude: '1e2' }, 'longitude', 'must be a decimal number with at most eight decimals'],
    [{ district: '' }, 'district', 'is required'],
    [{ country_code: 'Id' }, 'country_code', 'must be two capital letters'],
    [{ district: 'Bakongan\u0000' }, 'district', 'must not contain the NUL character'],
    [{ subdistrict: 'Keude \ud800' }, 'subdistrict', 'must not contain unpaired surrogates (invalid Unicode)'],
  ])('refuses %j', (change, field, reason) => {
    const result = new AreaRowChecker().check(2, { ...ROW, ...change });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.issues).toContainEqual({ field, reason });
  });

  it('refuses a village code seen before and a region renamed, naming the earlier line', () => {
    const checker = new AreaRowChecker();
    expect(checker.check(2, ROW).ok).toBe(true);
    expect(checker.check(3, ROW)).toEqual({ ok: false, issues: [{ field: 'subdistrict_code', reason: '11.01.01.2001 is already on line 2' }] });
    expect(checker.check(4, { ...ROW, subdistrict_code: '11.01.01.2002', city: 'Aceh Selatan' })).toEqual({
      ok: false,
      issues: [{ field: 'city', reason: 'city 11.01 is named "Kabupaten Aceh Selatan" on line 2' }],
    });
    expect(checker.check(5, { ...ROW, subdistrict_code: '11.01.01.2002' }).ok).toBe(true);
  });

  it('does not ask a source without postcodes and coordinates for them', () => {
    expect(new AreaRowChecker({ location: false }).check(2, { ...ROW, postcode: '', latitude: '', longitude: '' }).ok).toBe(true);
  });

  it('keeps coordinates exact', () => {
    expect(coordinate('-6', 90)).toBe('-6.00000000');
    expect(coordinate('179.99999999', 180)).toBe('179.99999999');
  });
});
