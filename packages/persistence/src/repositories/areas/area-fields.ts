// The fields of an area as the import reads them, the lower-cased columns search reads, and the
// AreaStore each database implements (one file per dialect here, registered beside its dialect in
// dialects/dialect-registry.ts).
import type { AreaRegionLevel } from '../../schema/index.js';
import type { Scope, Tx } from '../../transaction.js';

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

/**
 * The area search's substring matching and the area import's batch writes, which each database
 * does its own way (everything else about areas is in area-repository.ts).
 */
export interface AreaStore {
  /** A needle shorter than this cannot use the substring index; the repository scans instead. */
  readonly shortestIndexedNeedle: number;
  /** Regions of `levels` whose lower-cased name contains `needle` (shortestIndexedNeedle or more characters). */
  matchRegions(scope: Scope, levels: readonly AreaRegionLevel[], needle: string): Promise<RegionMatch[]>;
  /** Subdistrict codes of the villages whose lower-cased name contains `needle`. */
  matchVillageCodes(scope: Scope, needle: string): Promise<string[]>;
  /** The stored areas among `codes`, by code, in the batch's transaction. */
  existingAreas(tx: Tx, codes: readonly string[]): Promise<Map<string, StoredArea>>;
  /** Inserts new areas, and indexes them for search, in the batch's transaction. */
  insertAreas(tx: Tx, records: readonly AreaImportRow[], at: string): Promise<void>;
  /** Rewrites `fields` (plus the search columns and updated_at) of existing areas, and their index entries. */
  updateAreas(tx: Tx, updates: readonly AreaUpdate[], fields: readonly (keyof AreaImportRow)[], at: string): Promise<void>;
  insertRegions(tx: Tx, regions: readonly RegionInsert[]): Promise<void>;
  /** Sets the name and adds `added` villages to the count of existing regions. */
  updateRegions(tx: Tx, regions: readonly RegionUpdate[]): Promise<void>;
}

