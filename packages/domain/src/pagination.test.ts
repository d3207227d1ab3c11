import { describe, expect, it } from 'vitest';
import { genericPagination, morePagination, pageFacts, pageOffset, rangePagination, simplePagination } from './pagination.js';

describe('pageOffset', () => {
  it('skips the rows of the earlier pages', () => {
    expect(pageOffset({ page: 1, perPage: 10 })).toBe(0);
    expect(pageOffset({ page: 3, perPage: 10 })).toBe(20);
    expect(pageOffset({ page: 2, perPage: 100 })).toBe(100);
  });
});

describe('pageFacts (Laravel paginator semantics)', () => {
  it('no rows at all: one last page, from and to null, no more pages', () => {
    expect(pageFacts(0, { page: 1, perPage: 10 })).toStrictEqual({
      current_page: 1,
      per_page: 10,
      total: 0,
      last_page: 1,
      from: null,
      to: null,
      has_more_pages: false,
    });
  });

  it('25 rows by 10: pages 1 to 3, the last one from 21 to 25', () => {
    const request = (page: number) => ({ page, perPage: 10 });
    expect(pageFacts(25, request(1))).toStrictEqual({
      current_page: 1,
      per_page: 10,
      total: 25,
      last_page: 3,
      from: 1,
      to: 10,
      has_more_pages: true,
    });
    expect(pageFacts(25, request(2))).toMatchObject({ from: 11, to: 20, has_more_pages: true });
    expect(pageFacts(25, request(3))).toStrictEqual({
      current_page: 3,
      per_page: 10,
      total: 25,
      last_page: 3,
      from: 21,
      to: 25,
      has_more_pages: false,
    });
  });

  it('last_page is the ceiling of total / per_page', () => {
    expect(pageFacts(30, { page: 1, perPage: 10 }).last_page).toBe(3);
    expect(pageFacts(31, { page: 1, perPage: 10 }).last_page).toBe(4);
    expect(pageFacts(1, { page: 1, perPage: 100 }).last_page).toBe(1);
    expect(pageFacts(7, { page: 1, perPage: 1 }).last_page).toBe(7);
  });

  it('a page past the end is empty with from/to null and the correct totals', () => {
    expect(pageFacts(25, { page: 4, perPage: 10 })).toStrictEqual({
      current_page: 4,
      per_page: 10,
      total: 25,
      last_page: 3,
      from: null,
      to: null,
      has_more_pages: false,
    });
    expect(pageFacts(0, { page: 2, perPage: 10 })).toMatchObject({ last_page: 1, from: null, to: null, has_more_pages: false });
  });

  it('uses the number of rows actually on the page when given', () => {
    // Rows deleted between the count and the page query: `to` follows the rows returned.
    expect(pageFacts(25, { page: 1, perPage: 10 }, 7)).toMatchObject({ from: 1, to: 7, total: 25 });
    expect(pageFacts(25, { page: 2, perPage: 10 }, 0)).toMatchObject({ from: null, to: null });
  });
});

describe('pagination objects', () => {
  const facts = pageFacts(25, { page: 2, perPage: 10 });

  it('simple (adjustments, transfers): current_page, per_page, total, last_page only', () => {
    expect(simplePagination(facts)).toStrictEqual({ current_page: 2, per_page: 10, total: 25, last_page: 3 });
  });

  it('range (inbound list): the simple fields plus from and to', () => {
    expect(rangePagination(facts)).toStrictEqual({ current_page: 2, per_page: 10, total: 25, last_page: 3, from: 11, to: 20 });
    expect(rangePagination(pageFacts(0, { page: 1, perPage: 10 }))).toStrictEqual({
      current_page: 1,
      per_page: 10,
      total: 0,
      last_page: 1,
      from: null,
      to: null,
    });
  });

  it('more (tenants, locations, logistics, areas): the range fields plus has_more_pages', () => {
    expect(morePagination(facts)).toStrictEqual({
      current_page: 2,
      per_page: 10,
      total: 25,
      last_page: 3,
      from: 11,
      to: 20,
      has_more_pages: true,
    });
  });

  it('generic: total_pages, total_items, has_next, has_prev', () => {
    expect(genericPagination(facts)).toStrictEqual({
      current_page: 2,
      per_page: 10,
      total_pages: 3,
      total_items: 25,
      has_next: true,
      has_prev: true,
    });
  });

  it('generic has_prev is false on the first page and has_next false on the last', () => {
    expect(genericPagination(pageFacts(25, { page: 1, perPage: 10 }))).toMatchObject({ has_prev: false, has_next: true });
    expect(genericPagination(pageFacts(25, { page: 3, perPage: 10 }))).toMatchObject({ has_prev: true, has_next: false });
    expect(genericPagination(pageFacts(0, { page: 1, perPage: 10 }))).toStrictEqual({
      current_page: 1,
      per_page: 10,
      total_pages: 1,
      total_items: 0,
      has_next: false,
      has_prev: false,
    });
  });
});
