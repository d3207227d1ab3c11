import { describe, expect, it } from 'vitest';
import { bodyId, productIdInput, productIdText, repeatedKeys } from './line-schemas.js';
import { check } from './testing/check.js';

describe('bodyId', () => {
  it('is a positive integer in a JSON body, not a string', () => {
    expect(check(bodyId, 3)).toEqual({ value: 3 });
    for (const bad of ['3', 0, -2, 1.5]) expect(check(bodyId, bad)).toEqual({ refused: 'must be a positive integer' });
    expect(check(bodyId, undefined)).toEqual({ refused: 'is required' });
  });
});

describe('productIdInput', () => {
  it('takes a digit string or a positive integer and gives the number', () => {
    expect(check(productIdInput, '1042')).toEqual({ value: 1042 });
    expect(check(productIdInput, 1042)).toEqual({ value: 1042 });
  });

  it.each([
    ['0', 'must be a positive integer'],
    [0, 'must be a positive integer'],
    ['99999999999999999999', 'must be a positive integer'],
    ['12a', 'must be a positive integer or a digit string'],
    [1.5, 'must be a positive integer or a digit string'],
    [undefined, 'is required'],
  ])('refuses %j: %s', (input, issue) => {
    expect(check(productIdInput, input)).toEqual({ refused: issue });
  });

  it('productIdText is the digit-string form of responses', () => {
    expect(productIdText.safeParse('1042').success).toBe(true);
    expect(productIdText.safeParse(1042).success).toBe(false);
  });
});

describe('repeatedKeys', () => {
  it('points every repeat at the first line with that key, skipping refused keys', () => {
    expect(repeatedKeys([7, 8, 7, undefined, undefined, 8, '7'])).toEqual([
      { index: 2, first: 0 },
      { index: 5, first: 1 },
    ]);
  });
});
