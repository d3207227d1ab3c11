import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { decimalString, fixedDecimalString, quantityInput, unitCostInput } from './decimal-schemas.js';
import { check } from './testing/check.js';

describe('quantityInput', () => {
  it.each([
    [0.1, '0.1'],
    ['1.50', '1.5'],
    [10, '10'],
    [0.0001, '0.0001'],
    ['007.25', '7.25'],
    [1e11, '100000000000'],
    ['100000000000', '100000000000'],
  ])('accepts %j as the exact decimal %s', (input, canonical) => {
    expect(check(quantityInput, input)).toEqual({ value: canonical });
  });

  it.each([
    [0, 'must be greater than 0'],
    ['-1', 'must be greater than 0'],
    [-0.5, 'must be greater than 0'],
    ['1.23456', 'must have at most 4 decimal places'],
    [0.1 + 0.2, 'must have at most 4 decimal places'],
    [1e-7, 'must have at most 4 decimal places'],
    ['100000000000.0001', 'must be at most 100000000000'],
    [1e21, 'must be at most 100000000000'],
    ['abc', 'must be a number'],
    ['1,5', 'must be a number'],
    ['', 'must be a number'],
    [true, 'must be a number'],
    [null, 'must be a number'],
    [undefined, 'is required'],
  ])('refuses %j: %s', (input, issue) => {
    expect(check(quantityInput, input)).toEqual({ refused: issue });
  });
});

describe('bounds in JSON Schema', () => {
  it('publishes the maximum and minimum of quantities and unit costs on their number form', () => {
    const quantity = z.toJSONSchema(quantityInput, { io: 'input' }) as { anyOf: object[]; description: string };
    expect(quantity.anyOf[0]).toEqual({ type: 'number', maximum: 1e11, exclusiveMinimum: 0 });
    expect(quantity.description).toContain('15 significant digits');
    const cost = z.toJSONSchema(unitCostInput, { io: 'input' }) as { anyOf: object[]; description: string };
    expect(cost.anyOf[0]).toEqual({ type: 'number', maximum: 1e13, minimum: 0 });
    expect(cost.description).toContain('15 significant digits');
  });
});

describe('unitCostInput', () => {
  it('accepts zero and up to 1e13 with four decimals, as canonical strings', () => {
    expect(check(unitCostInput, 0)).toEqual({ value: '0' });
    expect(check(unitCostInput, '19.9900')).toEqual({ value: '19.99' });
    expect(check(unitCostInput, 1e13)).toEqual({ value: '10000000000000' });
  });

  it('refuses a negative cost, a fifth decimal and more than 1e13', () => {
    expect(check(unitCostInput, -0.01)).toEqual({ refused: 'must be at least 0' });
    expect(check(unitCostInput, 1.00001)).toEqual({ refused: 'must have at most 4 decimal places' });
    expect(check(unitCostInput, 1e13 + 1)).toEqual({ refused: 'must be at most 10000000000000' });
  });

  it('refuses more than 15 significant digits, which a response would echo inexactly', () => {
    expect(check(unitCostInput, '99999999999.9999')).toEqual({ value: '99999999999.9999' });
    expect(check(unitCostInput, '999999999999.9999')).toEqual({ refused: 'must have at most 15 significant digits' });
    expect(check(unitCostInput, '9999999999999.9999')).toEqual({ refused: 'must have at most 15 significant digits' });
  });
});

describe('decimal strings of responses', () => {
  it('fixedDecimalString(2) wants exactly two decimals', () => {
    const price = fixedDecimalString(2);
    expect(price.safeParse('19.90').success).toBe(true);
    expect(price.safeParse('-1.00').success).toBe(true);
    for (const bad of ['19.9', '19', '19.900', 19.9]) expect(price.safeParse(bad).success).toBe(false);
  });

  it('decimalString takes any precision but only decimal notation', () => {
    expect(decimalString.safeParse('-6.2146').success).toBe(true);
    expect(decimalString.safeParse('1e5').success).toBe(false);
  });
});
