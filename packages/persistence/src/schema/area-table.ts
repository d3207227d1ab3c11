import type { Generated } from 'kysely';

/** One row per village (the contract's subdistrict). `*_search` columns hold lower-cased names. */
export interface AreaTable {
  region_id: Generated<number>;
  country: string;
  country_code: string;
  state: string;
  state_code: string;
  city: string;
  city_code: string;
  district: string;
  district_code: string;
  subdistrict: string;
  subdistrict_code: string;
  postcode: string;
  latitude: string;
  longitude: string;
  state_search: string;
  city_search: string;
  district_search: string;
  subdistrict_search: string;
  created_at: string;
  updated_at: string;
}
