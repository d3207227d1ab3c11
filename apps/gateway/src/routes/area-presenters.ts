// Areas in the v1 contract's shape: coordinates as decimal strings with eight places.
import { toFixedString } from '@pits/domain';
import type { AreaRecord } from '@pits/persistence';
import type * as contract from '@pits/contract';
import type { z } from 'zod';

const EIGHT_PLACES = /^-?\d+\.\d{8}$/;

/** A stored coordinate as eight-place text; the importer stores that form already, so most pass as they are. */
const coordinate = (value: string) => (EIGHT_PLACES.test(value) ? value : toFixedString(value, 8));

/** One entry of `data.areas`. */
export function presentArea(area: AreaRecord): z.input<typeof contract.area> {
  return {
    region_id: area.regionId,
    country: area.country,
    country_code: area.countryCode,
    state: area.state,
    state_code: area.stateCode,
    city: area.city,
    city_code: area.cityCode,
    district: area.district,
    district_code: area.districtCode,
    subdistrict: area.subdistrict,
    subdistrict_code: area.subdistrictCode,
    postcode: area.postcode,
    longitude: coordinate(area.longitude),
    latitude: coordinate(area.latitude),
  };
}

/** `data` of the detail: the area with its timestamps. */
export function presentAreaDetail(area: AreaRecord): z.input<typeof contract.areaDetail> {
  return { ...presentArea(area), created_at: area.createdAt, updated_at: area.updatedAt };
}
