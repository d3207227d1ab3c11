import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { queryBoolean, queryId, queryIdList, queryInteger, skuList } from './query-schemas.js';
import { check } from './testing/check.js';

describe('query integers', () => {
  it('queryId is a positive integer id from the query string', () => {
    expect(check(queryId, '3')).toEqual({ value: 3 });
    expect(check(queryId, '0')).toEqual({ refused: 'must be at least 1' });
    expect(check(queryId, 'x3')).toEqual({ refused: 'must be an integer' });
    expect(check(queryId, undefined)).toEqual({ refused: 'is required' });
  });

  it('queryBoolean reads the texts true and false, and nothing else', () => {
    expect(check(queryBoolean, 'true')).toEqual({ value: true });
    expect(check(queryBoolean, 'false')).toEqual({ value: false });
    for (const text of ['1', 'yes', 'True', '', ['true'], true]) expect(check(queryBoolean, text)).toEqual({ refused: 'must be true or false' });
    expect(check(queryBoolean, undefined)).toEqual({ refused: 'is required' });
    expect(z.toJSONSchema(queryBoolean, { io: 'input' })).toMatchObject({ type: 'string', enum: ['true', 'false'] });
  });

  it('queryInteger without a default is required', () => {
    const limit = queryInteger({ min: 1, max: 5 });
    expect(check(limit, undefined)).toEqual({ refused: 'is required' });
    expect(check(limit, '5')).toEqual({ value: 5 });
  });
});

describe('comma-separated query lists', () => {
  it('reads up to 100 trimmed values in order, and refuses empty entries, bad ids and more than 100', () => {
    expect(queryIdList.parse('3, 7,3')).toEqual([3, 7, 3]);
    expect(skuList.parse(' KOPI-250 ,TEH_1')).toEqual(['KOPI-250', 'TEH_1']);
    expect(skuList.safeParse('A,,B').error?.issues[0]?.message).toBe('value 2 must not be empty');
    expect(queryIdList.safeParse('3,x').error?.issues[0]?.message).toBe('value 2 must be a positive integer');
    expect(queryIdList.safeParse('0').error?.issues[0]?.message).toBe('must be a positive integer');
    expect(queryIdList.parse(Array.from({ length: 100 }, (_, i) => i + 1).join(','))).toHaveLength(100);
    expect(queryIdList.safeParse(Array.from({ length: 101 }, (_, i) => i + 1).join(',')).error?.issues[0]?.message).toBe(
      'must have at most 100 comma-separated values',
    );
    expect(skuList.safeParse(`${'x'.repeat(101)}`).success).toBe(false);
    expect(skuList.safeParse('a\u0000').success).toBe(false);
  });
});
