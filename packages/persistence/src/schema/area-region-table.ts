import type { Generated } from 'kysely';

/** The level of a region above a village. */
export type AreaRegionLevel = 'province' | 'city' | 'district';

/**
 * One province, city or district, derived from the areas by the area import: its lower-cased name
 * (for substring search) and how many villages it holds (so that a search counts and pages by
 * region instead of by village).
 */
export interface AreaRegionTable {
  id: Generated<number>;
  level: AreaRegionLevel;
  code: string;
  name_search: string;
  area_count: number;
}
