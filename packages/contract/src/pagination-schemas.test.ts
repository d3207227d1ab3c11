import { describe, expect, it } from 'vitest';
import { genericPaginationSchema, morePaginationSchema, pageQuery, perPageQuery, rangePaginationSchema, simplePaginationSchema } from './pagination-schemas.js';
import { check } from './testing/check.js';

describe('page and per_page queries', () => {
  it('pageQuery turns a digit string into a number and defaults to 1', () => {
    expect(check(pageQuery, '2')).toEqual({ value: 2 });
    expect(check(pageQuery, 3)).toEqual({ value: 3 });
    expect(check(pageQuery, undefined)).toEqual({ value: 1 });
  });

  it.each([
    ['2.5', 'must be an integer'],
    ['abc', 'must be an integer'],
    ['', 'must be an integer'],
    [['2'], 'must be an integer'],
    [2.5, 'must be an integer'],
    ['0', 'must be at least 1'],
    ['-1', 'must be at least 1'],
  ])('pageQuery refuses %j: %s', (input, issue) => {
    expect(check(pageQuery, input)).toEqual({ refused: issue });
  });

  it('perPageQuery has its own default and maximum', () => {
    expect(check(perPageQuery(20), undefined)).toEqual({ value: 20 });
    expect(check(perPageQuery(20), '100')).toEqual({ value: 100 });
    expect(check(perPageQuery(20), '101')).toEqual({ refused: 'must be at most 100' });
    expect(check(perPageQuery(10, 50), '51')).toEqual({ refused: 'must be at most 50' });
    expect(check(perPageQuery(10), '0')).toEqual({ refused: 'must be at least 1' });
  });
});

describe('pagination objects', () => {
  const simple = { current_page: 2, per_page: 10, total: 25, last_page: 3 };

  it('simple has exactly four figures', () => {
    expect(simplePaginationSchema.safeParse(simple).success).toBe(true);
    expect(simplePaginationSchema.safeParse({ ...simple, from: 11, to: 20 }).success).toBe(false);
    expect(simplePaginationSchema.safeParse({ ...simple, total: -1 }).success).toBe(false);
  });

  it('range adds from/to, null on an empty page', () => {
    expect(rangePaginationSchema.safeParse({ ...simple, from: 11, to: 20 }).success).toBe(true);
    expect(rangePaginationSchema.safeParse({ ...simple, current_page: 9, from: null, to: null }).success).toBe(true);
    expect(rangePaginationSchema.safeParse(simple).success).toBe(false);
  });

  it('more adds has_more_pages', () => {
    const more = { ...simple, from: 11, to: 20, has_more_pages: true };
    expect(morePaginationSchema.safeParse(more).success).toBe(true);
    expect(morePaginationSchema.safeParse({ ...more, has_more_pages: 'yes' }).success).toBe(false);
  });

  it('generic has total_pages, total_items, has_next, has_prev', () => {
    const generic = { current_page: 1, per_page: 10, total_pages: 1, total_items: 0, has_next: false, has_prev: false };
    expect(genericPaginationSchema.safeParse(generic).success).toBe(true);
    expect(genericPaginationSchema.safeParse({ ...generic, total: 0 }).success).toBe(false);
  });
});
