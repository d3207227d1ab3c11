// The areas routes of the v1 contract: search the province > city > district > subdistrict
// hierarchy, and read one area by its subdistrict code (both envelope B); the reference's example.
import { z } from 'zod';
import { requiredOr } from './field-messages.js';
import { TEXT_LIMITS, safeTextCheck, storedText, textField } from './text-schemas.js';
import { timestamp } from './date-schemas.js';
import { MAX_PER_PAGE, morePaginationSchema, pageQuery, perPageQuery } from './pagination-schemas.js';
import { fixedDecimalString } from './decimal-schemas.js';
import { envelopeB } from './envelope-schemas.js';
import type { Example } from './examples.js';

/** The level `search_value` is matched on: `province`, `city`, `district` or `subdistrict`. */
export const areaSearchBy = z.enum(['province', 'city', 'district', 'subdistrict']);

const SUBDISTRICT_CODE = /^\d{2}\.\d{2}\.\d{2}\.\d{4}$/;

// ---------------------------------------------------------------------------------------------
// Requests

/**
 * Query of `GET /api/partner/v1/areas`: page, per_page (default 20, max 100), `search_by`, and
 * `search_value` (trimmed; empty or absent lists every area).
 */
export const areaSearchQuery = z
  .object({
    page: pageQuery,
    per_page: perPageQuery(20),
    search_by: areaSearchBy.optional(),
    search_value: textField({ trim: true, max: 100 }).optional(),
  })
  .meta({ id: 'AreaSearchQuery', description: 'Paging and a case-insensitive keyword on one level or on all.' });
export type AreaSearchQuery = z.output<typeof areaSearchQuery>;

/** Query of `GET /api/partner/v1/areas/detail`: `subdistrict_code`, `NN.NN.NN.NNNN`. */
export const areaDetailQuery = z
  .object({
    subdistrict_code: z
      .string({ error: requiredOr('must have the form NN.NN.NN.NNNN') })
      .superRefine(safeTextCheck)
      .regex(SUBDISTRICT_CODE, { error: 'must have the form NN.NN.NN.NNNN' })
      .meta({ maxLength: 13 }),
  })
  .meta({ id: 'AreaDetailQuery', description: 'The subdistrict code of the area to read.' });
export type AreaDetailQuery = z.output<typeof areaDetailQuery>;

// ---------------------------------------------------------------------------------------------
// Responses

const coordinate = fixedDecimalString(8);

const areaFields = {
  region_id: z.int(),
  country: storedText(TEXT_LIMITS.place),
  country_code: storedText(TEXT_LIMITS.place),
  state: storedText(TEXT_LIMITS.place),
  state_code: storedText(TEXT_LIMITS.place),
  city: storedText(TEXT_LIMITS.place),
  city_code: storedText(TEXT_LIMITS.place).regex(/^\d{2}\.\d{2}$/),
  district: storedText(TEXT_LIMITS.place),
  district_code: storedText(TEXT_LIMITS.place).regex(/^\d{2}\.\d{2}\.\d{2}$/),
  subdistrict: storedText(TEXT_LIMITS.place),
  subdistrict_code: storedText(TEXT_LIMITS.place).regex(SUBDISTRICT_CODE),
  postcode: storedText(TEXT_LIMITS.place),
  longitude: coordinate,
  latitude: coordinate,
};

/** An area (one subdistrict) as the search returns it; coordinates are strings with eight decimals. */
export const area = z.strictObject(areaFields).meta({ id: 'Area', description: 'One subdistrict with its parents.' });

/** An area as the detail returns it: with `created_at` and `updated_at`. */
export const areaDetail = z
  .strictObject({ ...areaFields, created_at: timestamp, updated_at: timestamp })
  .meta({ id: 'AreaDetail', description: 'One subdistrict with its parents and timestamps.' });

/** 200 of search: envelope B, `data.areas` and the more-pagination object. */
export const areaSearchResponse = envelopeB(
  z.strictObject({ areas: z.array(area).max(MAX_PER_PAGE), pagination: morePaginationSchema }),
).meta({ id: 'AreaSearchResponse', description: 'A page of areas by subdistrict code.' });

/** 200 of detail: envelope B, `data` is the area. */
export const areaDetailResponse = envelopeB(areaDetail).meta({ id: 'AreaDetailResponse', description: 'One area.' });

// ---------------------------------------------------------------------------------------------
// Examples (see `Example` in examples.ts)

export const areaExample: Example<typeof area> = {
  region_id: 25639,
  country: 'Indonesia',
  country_code: 'ID',
  state: 'Daerah Khusus Ibukota Jakarta',
  state_code: '31',
  city: 'Kota Administrasi Jakarta Barat',
  city_code: '31.73',
  district: 'Cengkareng',
  district_code: '31.73.01',
  subdistrict: 'Cengkareng Barat',
  subdistrict_code: '31.73.01.1001',
  postcode: '11730',
  longitude: '106.72379100',
  latitude: '-6.13867708',
};
