// Input pieces the routers share (ids, paging) and the paging object of list outputs. The internal
// API speaks camelCase in every input and output, unlike the partners' snake_case REST contract.
import { z } from 'zod';
import { calendarDateInput, tenantIdInput } from '@pits/contract';
import { type Actor, AppError, LOT_NUMBER_ISSUE, LOT_NUMBER_PATTERN, type PageRequest, domainError, pageFacts } from '@pits/domain';

/** A database id: a positive integer. */
export const idInput = z.int().positive();

/** A tenant id: a UUID. */
export const tenantId = tenantIdInput;

/** A lot number (docs/lots.md#lots): 1 to 64 letters, digits, `.`, `_`, `/` and `-`, exactly as given (case counts, nothing trimmed). */
export const lotNumberInput = z.string().regex(LOT_NUMBER_PATTERN, LOT_NUMBER_ISSUE);

/** A calendar day `YYYY-MM-DD` that exists, from 1900-01-01 to 9999-12-31 (docs/input-rules.md#dates-and-times). */
export const calendarDay = calendarDateInput;

/** A price or dimension: a non-negative decimal string with at most two places (`"19.90"`), never a float. */
export const twoPlaceDecimal = z.string().regex(/^\d{1,13}(\.\d{1,2})?$/, 'must be a decimal string with at most 2 places, such as "19.90"');

/** Paging of every list: `page` from 1, `perPage` from 1 to 100 (default 20). */
export const pageFields = {
  page: z.int().min(1).default(1),
  perPage: z.int().min(1).max(100).default(20),
};

/** Paging alone, the whole input optional: `list()` is page 1 of 20. */
export const pageInput = z.strictObject(pageFields).prefault({});

/** Where a page sits in the whole list (Laravel paginator semantics, camelCase). */
export interface Pagination {
  page: number;
  perPage: number;
  total: number;
  lastPage: number;
  /** 1-based position of the first row on the page, null when the page is empty. */
  from: number | null;
  to: number | null;
  hasMorePages: boolean;
}

/** @example paginationOf(25, { page: 3, perPage: 10 }) // { page: 3, perPage: 10, total: 25, lastPage: 3, from: 21, to: 25, hasMorePages: false } */
export function paginationOf(total: number, request: PageRequest, rowsOnPage?: number): Pagination {
  const f = pageFacts(total, request, rowsOnPage);
  return { page: f.current_page, perPage: f.per_page, total: f.total, lastPage: f.last_page, from: f.from, to: f.to, hasMorePages: f.has_more_pages };
}

/** Absent fields stay absent: zod reports an omitted optional key as `undefined`, which the repositories' exact optional types refuse. */
export function definedOnly<T extends object>(value: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}

/** Who the persistence layer records as `created_by` / `updated_by` for internal API writes. */
export const INTERNAL_ACTOR = 'internal-api';

/**
 * Who acted, for internal API writes whose use case records a whole actor (transfers shipped or
 * received, reservations released) rather than the `INTERNAL_ACTOR` name: the internal API itself.
 */
export const INTERNAL_API_ACTOR: Actor = { id: 0, name: INTERNAL_ACTOR, email: 'internal@platform' };

/**
 * The operations name a missing document after the partners' path parameter (`id`); a procedure
 * that takes its number under another input name says that name instead, with the same message.
 *
 * @example catch (error) { throw notFoundOn(error, 'reservationNumber'); }
 */
export function notFoundOn(error: unknown, field: string): unknown {
  return error instanceof AppError && error.kind === 'NOT_FOUND' ? new AppError(domainError('NOT_FOUND', error.message, { field })) : error;
}
