// The v1 area endpoints: search the province > city > district > subdistrict hierarchy, and read
// one area by subdistrict code (envelope B, no tenant). Search has its own rate-limit bucket,
// `areas.search`. The presenters give an area the contract's shape.
import { areaDetailQuery, areaDetailResponse, areaExample, areaSearchQuery, areaSearchResponse, morePageExample } from '@pits/contract';
import type * as contract from '@pits/contract';
import { AppError, domainError, morePagination, pageFacts, toFixedString, withFields } from '@pits/domain';
import { type AreaRecord, findArea, searchAreas } from '@pits/persistence';
import { pageOf } from './route-helpers.js';
import { type Route, defineRoute } from './route-spec.js';
import type { z } from 'zod';

export function areaRoutes(): Route[] {
  return [
    defineRoute({
      name: 'areas.search',
      method: 'GET',
      path: '/api/partner/v1/areas',
      summary: 'Search areas',
      description:
        '`search_value` is a case-insensitive substring of the level named by `search_by`: `province` (the state name), `city`, ' +
        '`district` or `subdistrict` (the village name; five digits match the postcode exactly instead). Without `search_by` it ' +
        'matches any of the four names or, with five digits, the postcode; without `search_value` every area is listed. ' +
        'Ordered by `subdistrict_code`. Rate-limited in its own bucket besides the tier limit.',
      tag: 'Areas',
      tenantScoped: false,
      query: areaSearchQuery,
      envelope: 'B',
      status: 200,
      response: areaSearchResponse,
      errors: ['VALIDATION_ERROR'],
      queryExample: { page: 1, per_page: 20, search_by: 'subdistrict', search_value: 'cengkareng' },
      responseExample: { areas: [areaExample], pagination: morePageExample(1, 20) },
      handler: async ({ db, query }) => {
        const page = pageOf(query);
        const { rows, total } = await searchAreas(db, { searchBy: query.search_by, searchValue: query.search_value }, page);
        return { areas: rows.map(presentArea), pagination: morePagination(pageFacts(total, page, rows.length)) };
      },
    }),
    defineRoute({
      name: 'areas.detail',
      method: 'GET',
      path: '/api/partner/v1/areas/detail',
      summary: 'Read an area',
      description: 'One area by its `subdistrict_code` (`NN.NN.NN.NNNN`), with `created_at` and `updated_at`.',
      tag: 'Areas',
      tenantScoped: false,
      query: areaDetailQuery,
      envelope: 'B',
      status: 200,
      response: areaDetailResponse,
      errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
      queryExample: { subdistrict_code: '31.73.01.1001' },
      responseExample: withFields(areaExample, { created_at: '2026-11-22T09:29:58.004Z', updated_at: '2026-11-22T09:29:58.004Z' }),
      handler: async ({ db, query }) => {
        const row = await findArea(db, query.subdistrict_code);
        if (!row) throw new AppError(domainError('NOT_FOUND', `area ${query.subdistrict_code} does not exist`, { field: 'subdistrict_code' }));
        return presentAreaDetail(row);
      },
    }),
  ];
}

// ---------------------------------------------------------------------------------------------
// Presenters: coordinates as decimal strings with eight places.

const EIGHT_PLACES = /^-?\d+\.\d{8}$/;

/** A stored coordinate as eight-place text; the importer stores that form already, so most pass as they are. */
const coordinate = (value: string) => (EIGHT_PLACES.test(value) ? value : toFixedString(value, 8));

/** One entry of `data.areas`. */
function presentArea(area: AreaRecord): z.input<typeof contract.area> {
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
function presentAreaDetail(area: AreaRecord): z.input<typeof contract.areaDetail> {
  return withFields(presentArea(area), { created_at: area.createdAt, updated_at: area.updatedAt });
}
