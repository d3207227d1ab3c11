// How lists page (docs/envelopes-and-pagination.md): the `page` and `per_page` query parameters, the
// pagination objects of answers, and the reference's examples of those objects.
import { z } from 'zod';
import type { Example } from './examples.js';
import { queryInteger } from './query-schemas.js';

// ---------------------------------------------------------------------------------------------
// Query parameters

/** `page`: an integer >= 1, default 1. @example pageQuery.parse(undefined) === 1 */
export const pageQuery = queryInteger({ min: 1, defaultValue: 1 }).meta({ description: 'Page number, from 1.' });

/** The most records a page of any list holds: `per_page` is at most 100 (docs/envelopes-and-pagination.md). */
export const MAX_PER_PAGE = 100;

/**
 * `per_page`: an integer from 1 to `max`, default `defaultValue`.
 *
 * @example perPageQuery(20).parse('50') === 50
 */
export function perPageQuery(defaultValue: number, max = MAX_PER_PAGE) {
  return queryInteger({ min: 1, max, defaultValue }).meta({ description: `Records per page, 1 to ${max}.` });
}

// ---------------------------------------------------------------------------------------------
// Pagination objects. Named with a `Schema` suffix: `simplePagination` and its siblings are the
// builders in @pits/domain (packages/domain/src/pagination.ts).

const pageNumber = z.int().min(1);
const count = z.int().min(0);
const position = z.int().min(1).nullable();

/** Adjustments and transfers lists: `current_page, per_page, total, last_page`. */
export const simplePaginationSchema = z
  .strictObject({ current_page: pageNumber, per_page: pageNumber, total: count, last_page: pageNumber })
  .meta({ id: 'SimplePagination', description: 'Page figures of the adjustments and transfers lists.' });

/** Inbound list: the simple object plus `from` and `to` (1-based positions, null on an empty page). */
export const rangePaginationSchema = simplePaginationSchema
  .extend({ from: position, to: position })
  .meta({ id: 'RangePagination', description: 'Page figures of the inbound list; from/to are null on an empty page.' });

/** Tenants, locations, logistics, areas: the range object plus `has_more_pages`. */
export const morePaginationSchema = rangePaginationSchema
  .extend({ has_more_pages: z.boolean() })
  .meta({ id: 'MorePagination', description: 'Page figures of the tenant and area lists.' });

/** The spec's generic convention: `current_page, per_page, total_pages, total_items, has_next, has_prev`. */
export const genericPaginationSchema = z
  .strictObject({ current_page: pageNumber, per_page: pageNumber, total_pages: pageNumber, total_items: count, has_next: z.boolean(), has_prev: z.boolean() })
  .meta({ id: 'GenericPagination', description: 'The generic pagination convention.' });

// ---------------------------------------------------------------------------------------------
// Examples (see `Example` in examples.ts)

/** The figures of a first page holding `count` of `total` records. */
export function simplePageExample(total: number, perPage = 10): Example<typeof simplePaginationSchema> {
  return { current_page: 1, per_page: perPage, total, last_page: Math.max(1, Math.ceil(total / perPage)) };
}
export function rangePageExample(total: number, perPage = 20): Example<typeof rangePaginationSchema> {
  return { ...simplePageExample(total, perPage), from: total === 0 ? null : 1, to: total === 0 ? null : Math.min(total, perPage) };
}
export function morePageExample(total: number, perPage = 10): Example<typeof morePaginationSchema> {
  return { ...rangePageExample(total, perPage), has_more_pages: total > perPage };
}
