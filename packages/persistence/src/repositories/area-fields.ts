// The fields of an area as the import reads them, the lower-cased columns search reads, and what
// the area import hands a dialect's AreaStore (see ../dialects/sql-dialect.ts) to write.
import type { AreaRegionLevel } from '../schema/index.js';

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
/** One area (a village with its parents) as the import reads it: the canonical form of `areas_id.csv`. */
export type AreaImportRow = Readonly<Record<AreaField, string>>;

/** The lower-cased name columns that search reads, derived from the names. */
export const SEARCH_COLUMNS = [
  ['state_search', 'state'],
  ['city_search', 'city'],
  ['district_search', 'district'],
  ['subdistrict_search', 'subdistrict'],
] as const;

export interface AreaUpdate {
  regionId: number;
  record: AreaImportRow;
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

/** The lower-cased search values of a record, in SEARCH_COLUMNS order. */
export const searchValues = (record: AreaImportRow): string[] => SEARCH_COLUMNS.map(([, name]) => record[name].toLowerCase());

/** The columns an area insert writes, in order: the fields, the search columns, the timestamps. */
export const AREA_INSERT_COLUMNS = [...AREA_FIELDS, ...SEARCH_COLUMNS.map(([column]) => column), 'created_at', 'updated_at'] as const;

/** The stored columns an import compares a record with. */
export const STORED_AREA_COLUMNS = ['region_id', ...AREA_FIELDS, 'subdistrict_search'] as const;
