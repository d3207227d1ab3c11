import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { withFields } from './object-fields.js';

// V8's own check of two objects' hidden classes, compiled once the flag that allows it is set.
setFlagsFromString('--allow-natives-syntax');
const sameHiddenClass = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

const head = (i: number) => ({ id: i, number: `ADJ-${i}`, status: 'pending', note: null as string | null, total: i * 2 });

describe('withFields', () => {
  it('has the fields of { ...base, ...extra }, in the same order, the extra ones winning', () => {
    const base = head(7);
    const built = withFields(base, { status: 'approved', items: [1, 2] });
    const spread = { ...base, status: 'approved', items: [1, 2] };
    expect(built).toEqual(spread);
    expect(Object.keys(built)).toEqual(Object.keys(spread));
    expect(JSON.stringify(built)).toBe(JSON.stringify(spread));
    expect(base.status).toBe('pending');
  });

  it('copies fields whose value is undefined, as a spread does', () => {
    const built = withFields({ a: 1, b: undefined as number | undefined }, { c: undefined });
    expect(Object.keys(built)).toEqual(['a', 'b', 'c']);
  });

  it('gives objects of the same shapes one hidden class (docs/benchmarks.md#spread-then-extended-objects)', () => {
    const built = Array.from({ length: 50 }, (_, i) => withFields(head(i), { items: [i], currentStock: i }));
    for (const object of built.slice(1)) expect(sameHiddenClass(object, built[0]!)).toBe(true);
  });
});
