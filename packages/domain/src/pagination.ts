// Page arithmetic with Laravel paginator semantics, and the pagination object of every variant the
// contract uses. `page` and `per_page` are validated before they get here (page >= 1, per_page >= 1).
import { withFields } from './object-fields.js';

export interface PageRequest {
  page: number;
  perPage: number;
}

/** Rows to skip for a page. @example pageOffset({ page: 3, perPage: 10 }) === 20 */
export function pageOffset(request: PageRequest): number {
  return (request.page - 1) * request.perPage;
}

/** Every figure a paginator can report about one page. */
export interface PageFacts {
  current_page: number;
  per_page: number;
  total: number;
  last_page: number;
  from: number | null;
  to: number | null;
  has_more_pages: boolean;
}

/**
 * @example
 * pageFacts(25, { page: 3, perPage: 10 })
 * // { current_page: 3, per_page: 10, total: 25, last_page: 3, from: 21, to: 25, has_more_pages: false }
 */
export function pageFacts(total: number, request: PageRequest, rowsOnPage?: number): PageFacts {
  const lastPage = Math.max(1, Math.ceil(total / request.perPage));
  const offset = pageOffset(request);
  const onPage = rowsOnPage ?? Math.max(0, Math.min(request.perPage, total - offset));
  return {
    current_page: request.page,
    per_page: request.perPage,
    total,
    last_page: lastPage,
    from: onPage > 0 ? offset + 1 : null,
    to: onPage > 0 ? offset + onPage : null,
    has_more_pages: request.page < lastPage,
  };
}

/** Adjustments and transfers lists: `current_page, per_page, total, last_page`. */
export function simplePagination(facts: PageFacts) {
  return { current_page: facts.current_page, per_page: facts.per_page, total: facts.total, last_page: facts.last_page };
}

/** Inbound list: the simple object plus `from` and `to`. */
export function rangePagination(facts: PageFacts) {
  return withFields(simplePagination(facts), { from: facts.from, to: facts.to });
}

/** Tenants, locations, logistics, areas: the range object plus `has_more_pages`. */
export function morePagination(facts: PageFacts) {
  return withFields(rangePagination(facts), { has_more_pages: facts.has_more_pages });
}

/** The spec's generic convention: `total_pages`, `total_items`, `has_next`, `has_prev`. */
export function genericPagination(facts: PageFacts) {
  return {
    current_page: facts.current_page,
    per_page: facts.per_page,
    total_pages: facts.last_page,
    total_items: facts.total,
    has_next: facts.has_more_pages,
    has_prev: facts.current_page > 1,
  };
}
