import { describe, expect, it } from 'vitest';
import { dec, toJsonNumber } from './decimal.js';
import { inexactTotals, pricedTotals } from './exact-totals.js';

const line = (quantity: string, price: string) => ({ quantity: dec(quantity), price: dec(price) });
const check = (lines: ReturnType<typeof line>[], totalQuantity = false) =>
  inexactTotals(pricedTotals(lines), { priceName: 'unit_cost', totalQuantity });

describe('pricedTotals', () => {
  it('multiplies and adds exactly', () => {
    const totals = pricedTotals([line('3', '19.99'), line('0.5', '0.1'), line('1.5', '0.3333')]);
    expect(totals.lineTotals.map((t) => t.toFixed())).toEqual(['59.97', '0.05', '0.49995']);
    expect(totals.total.toFixed()).toBe('60.51995');
    expect(totals.totalQuantity.toFixed()).toBe('5');
  });
});

describe('inexactTotals', () => {
  it('accepts totals of up to 15 significant digits, however large or small', () => {
    expect(check([line('99999999999.9999', '10000')])).toEqual([]); // 999999999999999
    expect(check([line('100000000000', '10000000000000')])).toEqual([]); // 1e24: one significant digit
    expect(check([line('0.0001', '0.0001')])).toEqual([]); // 1e-8
    expect(check([line('1234.5678', '1234.5678')])).toEqual([]); // 1524157.65279684
  });

  it('refuses a line past the bound on its quantity, naming the price and the exact total', () => {
    expect(check([line('1', '1'), line('99999999999.9999', '99999999999.9999')])).toEqual([
      {
        path: ['items', 1, 'quantity'],
        field: 'items[1].quantity',
        issue: 'quantity x unit_cost = 9999999999999980000000.00000001 has more than 15 significant digits, so it would not be exact as a JSON number',
      },
    ]);
    expect(check([line('12345.6789', '12345.6789')])[0]?.field).toBe('items[0].quantity');
  });

  it('refuses a document total past the bound on items, only when every line is fine', () => {
    expect(check([line('99999999999.9999', '10000'), line('99999999999.9999', '10000')])).toEqual([
      { path: ['items'], field: 'items', issue: expect.stringContaining('the lines add up to 1999999999999998') },
    ]);
    expect(check([line('99999999999.9999', '10000'), line('99999999999.9999', '10000.0001')]).map((f) => f.field)).toEqual(['items[1].quantity']);
  });

  it('checks the sum of the quantities only when asked', () => {
    const lines = [line('99999999999.9999', '0'), line('0.0002', '0')];
    expect(check(lines, false)).toEqual([]);
    expect(check(lines, true)).toEqual([{ path: ['items'], field: 'items', issue: expect.stringContaining('the quantities add up to 100000000000.0001') }]);
  });

  it('lets through only totals whose JSON number text is the exact decimal', () => {
    const accepted = [line('99999999999.9999', '10000'), line('0.0001', '0.0003'), line('7', '0.1')];
    for (const l of accepted) {
      const total = pricedTotals([l]).total;
      expect(check([l])).toEqual([]);
      expect(dec(JSON.stringify(toJsonNumber(total))).eq(total)).toBe(true);
    }
    const refused = line('99999999999.9999', '99999999999.9999');
    const total = pricedTotals([refused]).total;
    expect(dec(JSON.stringify(toJsonNumber(total))).eq(total), 'the refused total would have come back altered').toBe(false);
  });
});
