// Areas in the v1 contract's shape: coordinates as decimal strings with eight places.
import { toFixedString } from '@pits/domain';
import type { AreaView } from '@pits/persistence';

const EIGHT_PLACES = /^-?\d+\.\d{8}$/;

/** A stored coordinate as eight-place text; the importer stores that form already, so most pass as they are. */
const coordinate = (value: string) => (EIGHT_PLACES.test(value) ? value : toFixedString(value, 8));

/** One entry of `data.areas`. */
export function presentArea(row: AreaView) {
  return {
    region_id: row.region_id,
    country: row.country,
    country_code: row.country_code,
    state: row.state,
    state_code: row.state_code,
    city: row.city,
    city_code: row.city_code,
    district: row.district,
    district_code: row.district_code,
    subdistrict: row.subdistrict,
    subdistrict_code: row.subdistrict_code,
    postcode: row.postcode,
    longitude: coordinate(row.longitude),
    latitude: coordinate(row.latitude),
  };
}

/** `data` of the detail: the area with its timestamps. */
export function presentAreaDetail(row: AreaView) {
  return { ...presentArea(row), created_at: row.created_at, updated_at: row.updated_at };
}
