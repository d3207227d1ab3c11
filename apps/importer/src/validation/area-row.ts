// Checks of one area row, and of the file as a whole: codes of the right form that nest
// (village in district in city in province), one row per village, one name per region code,
// postcode of five digits, coordinates in range (kept as eight-place decimal strings), and no
// text the domain never accepts (a NUL would end a full-text search string).
import { textIssue } from '@pits/domain';
import { AREA_FIELDS, type AreaField, type AreaImportRow } from '@pits/persistence';
import type { RowIssue } from '../report/reject-report.js';

export type Checked<T> = { ok: true; value: T } | { ok: false; issues: RowIssue[] };

const CODE_FORMS = [
  ['state_code', /^\d{2}$/, 'NN'],
  ['city_code', /^\d{2}\.\d{2}$/, 'NN.NN'],
  ['district_code', /^\d{2}\.\d{2}\.\d{2}$/, 'NN.NN.NN'],
  ['subdistrict_code', /^\d{2}\.\d{2}\.\d{2}\.\d{4}$/, 'NN.NN.NN.NNNN'],
] as const;

/** Each code and the code it must start with. */
const NESTING = [
  ['city_code', 'state_code'],
  ['district_code', 'city_code'],
  ['subdistrict_code', 'district_code'],
] as const;

/** Region codes and the field holding their name. */
const REGION_NAMES = [
  ['state_code', 'state', 'province'],
  ['city_code', 'city', 'city'],
  ['district_code', 'district', 'district'],
] as const;

const LOCATION_FIELDS: ReadonlySet<AreaField> = new Set(['postcode', 'latitude', 'longitude']);
const COORDINATES = [['latitude', 90], ['longitude', 180]] as const;
const COORDINATE = /^(-?)(\d{1,3})(?:\.(\d{1,8}))?$/;
const MAX_NAME = 200;

/** A coordinate as an eight-place decimal string, or an issue. @example coordinate('-6.2', 90) === '-6.20000000' */
export function coordinate(text: string, limit: number): string | RowIssue['reason'] {
  const m = COORDINATE.exec(text);
  if (!m) return 'must be a decimal number with at most eight decimals';
  const value = `${m[1]}${m[2]}.${(m[3] ?? '').padEnd(8, '0')}`;
  if (Math.abs(Number(value)) > limit) return `must be between -${limit} and ${limit}`;
  return value;
}

/**
 * Checks area rows one by one, remembering what the file said before: a village code seen
 * twice, or a region code named differently than on an earlier row, is refused with the line
 * that said it first. `location: false` is for sources without postcodes and coordinates.
 */
export class AreaRowChecker {
  readonly #villages = new Map<string, number>();
  readonly #regions = new Map<string, { name: string; line: number }>();
  readonly #location: boolean;

  constructor(options: { location: boolean } = { location: true }) {
    this.#location = options.location;
  }

  /** Checks one row given as the canonical fields (in any order of keys). Runs once per row: kept lean. */
  check(line: number, input: Readonly<Record<AreaField, string>>): Checked<AreaImportRow> {
    const issues: RowIssue[] = [];
    const record = {} as Record<AreaField, string>;
    for (const field of AREA_FIELDS) {
      const value = input[field].trim();
      record[field] = value;
      const unsafe = textIssue(value);
      if (unsafe !== undefined) issues.push({ field, reason: unsafe });
      else if (value === '') {
        if (this.#location || !LOCATION_FIELDS.has(field)) issues.push({ field, reason: 'is required' });
      } else if (value.length > MAX_NAME) issues.push({ field, reason: `must be at most ${MAX_NAME} characters` });
    }
    if (record.country_code !== '' && !/^[A-Z]{2}$/.test(record.country_code)) issues.push({ field: 'country_code', reason: 'must be two capital letters' });
    let nests = true;
    for (const [field, form, shape] of CODE_FORMS) {
      if (!form.test(record[field])) {
        nests = false;
        if (record[field] !== '') issues.push({ field, reason: `must have the form ${shape}` });
      }
    }
    if (nests) {
      for (const [child, parent] of NESTING) {
        if (!record[child].startsWith(record[parent]) || record[child].charCodeAt(record[parent].length) !== 46) {
          issues.push({ field: child, reason: `must start with its ${parent} ${record[parent]}` });
        }
      }
    }
    if (this.#location) {
      if (record.postcode !== '' && !/^\d{5}$/.test(record.postcode)) issues.push({ field: 'postcode', reason: 'must be five digits' });
      for (const [field, limit] of COORDINATES) {
        if (record[field] === '') continue;
        const value = coordinate(record[field], limit);
        if (value.startsWith('must')) issues.push({ field, reason: value });
        else record[field] = value;
      }
    }
    if (issues.length > 0) return { ok: false, issues };

    const seen = this.#villages.get(record.subdistrict_code);
    if (seen !== undefined) return { ok: false, issues: [{ field: 'subdistrict_code', reason: `${record.subdistrict_code} is already on line ${seen}` }] };
    for (const [code, name, level] of REGION_NAMES) {
      const known = this.#regions.get(record[code]);
      if (known && known.name !== record[name]) {
        issues.push({ field: name, reason: `${level} ${record[code]} is named "${known.name}" on line ${known.line}` });
      }
    }
    if (issues.length > 0) return { ok: false, issues };
    this.#villages.set(record.subdistrict_code, line);
    for (const [code, name] of REGION_NAMES) if (!this.#regions.has(record[code])) this.#regions.set(record[code], { name: record[name], line });
    return { ok: true, value: record };
  }
}
