import { describe, expect, it } from 'vitest';
import {
  DATE_RANGE_ISSUE,
  MAX_NESTING_DEPTH,
  NUL_ISSUE,
  TIMESTAMP_RANGE_ISSUE,
  UNPAIRED_SURROGATE_ISSUE,
  exceedsNestingDepth,
  isDateInRange,
  isTimestampInRange,
  textIssue,
} from './input-rules.js';

/** `levels` arrays inside one another, as JSON text: `[[[]]]` for 3. */
const nestedArrays = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
/** `levels` objects inside one another: `{"a":{"a":{}}}` for 3. */
const nestedObjects = (levels: number) => `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;

describe('textIssue', () => {
  it.each([
    ['plain text', 'stock count'],
    ['an empty string', ''],
    ['accents and scripts', 'café 東京 Jl. Merdeka'],
    ['a surrogate pair (one emoji)', 'box \ud83d\udce6 ok'],
    ['other control characters', 'tab\tnew\nline\u0001'],
    ['U+FFFD, the replacement character', 'bad \ufffd byte'],
  ])('accepts %s', (_, text) => {
    expect(textIssue(text)).toBeUndefined();
  });

  it.each([
    ['a NUL alone', '\u0000'],
    ['a NUL in the middle', 'stock\u0000count'],
    ['a NUL at the end', 'count\u0000'],
  ])('refuses %s', (_, text) => {
    expect(textIssue(text)).toBe(NUL_ISSUE);
  });

  it.each([
    ['a lone high surrogate', '\ud800'],
    ['a lone low surrogate', '\udc00'],
    ['a high surrogate before a letter', 'a\ud83db'],
    ['a low surrogate after a letter', 'a\udce6b'],
    ['a pair in the wrong order', '\udce6\ud83d'],
    ['a high surrogate at the end after a pair', '\ud83d\udce6\ud83d'],
  ])('refuses %s', (_, text) => {
    expect(textIssue(text)).toBe(UNPAIRED_SURROGATE_ISSUE);
  });
});

describe('exceedsNestingDepth', () => {
  it('counts arrays and objects, not scalars', () => {
    expect(exceedsNestingDepth('text', 0)).toBe(false);
    expect(exceedsNestingDepth(42, 0)).toBe(false);
    expect(exceedsNestingDepth(null, 0)).toBe(false);
    expect(exceedsNestingDepth({}, 0)).toBe(true);
    expect(exceedsNestingDepth({}, 1)).toBe(false);
    expect(exceedsNestingDepth({ items: [{ product_id: '1' }] }, 2)).toBe(true);
    expect(exceedsNestingDepth({ items: [{ product_id: '1' }] }, 3)).toBe(false);
  });

  it(`allows ${MAX_NESTING_DEPTH} levels and refuses ${MAX_NESTING_DEPTH + 1}, for arrays and objects`, () => {
    expect(exceedsNestingDepth(JSON.parse(nestedArrays(MAX_NESTING_DEPTH)))).toBe(false);
    expect(exceedsNestingDepth(JSON.parse(nestedArrays(MAX_NESTING_DEPTH + 1)))).toBe(true);
    expect(exceedsNestingDepth(JSON.parse(nestedObjects(MAX_NESTING_DEPTH)))).toBe(false);
    expect(exceedsNestingDepth(JSON.parse(nestedObjects(MAX_NESTING_DEPTH + 1)))).toBe(true);
  });

  it('finds the one deep path among many shallow ones', () => {
    const body = { items: Array.from({ length: 500 }, () => ({ product_id: '1', quantity: 1 })), notes: JSON.parse(nestedArrays(MAX_NESTING_DEPTH)) as unknown };
    expect(exceedsNestingDepth(body)).toBe(true);
    expect(exceedsNestingDepth({ ...body, notes: 'flat' })).toBe(false);
  });

  it('measures a 200,000-level body without overflowing the stack', () => {
    const deep: unknown = JSON.parse(nestedArrays(200_000));
    expect(exceedsNestingDepth(deep)).toBe(true);
    const deepObjects: unknown = JSON.parse(nestedObjects(200_000));
    expect(exceedsNestingDepth(deepObjects)).toBe(true);
  });

  it('walks keys JSON.parse made own properties, __proto__ included, without touching Object.prototype', () => {
    const body: unknown = JSON.parse(`{"__proto__": ${nestedArrays(40)}, "constructor": {"prototype": {}}}`);
    expect(exceedsNestingDepth(body)).toBe(true);
    expect(exceedsNestingDepth(JSON.parse('{"__proto__": {"polluted": true}}'))).toBe(false);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('ends on an object that contains itself', () => {
    const loop: Record<string, unknown> = {};
    loop['self'] = loop;
    expect(exceedsNestingDepth(loop)).toBe(true);
  });
});

describe('dates in years 1900 to 9999', () => {
  it.each([
    ['1900-01-01', true],
    ['2026-02-01', true],
    ['9999-12-31', true],
    ['1899-12-31', false],
    ['0000-01-01', false],
    ['0001-01-01', false],
    ['10000-01-01', false],
    ['+10000-01-01', false],
    ['', false],
  ])('isDateInRange(%s) is %s', (date, inRange) => {
    expect(isDateInRange(date)).toBe(inRange);
  });

  it.each([
    ['1900-01-01T00:00:00Z', true],
    ['1900-01-01T07:00:00+07:00', true],
    ['9999-12-31T23:59:59.999Z', true],
    ['2026-01-31T15:15:30+07:00', true],
    ['1899-12-31T23:59:59.999Z', false],
    ['1900-01-01T00:30:00+01:00', false],
    ['9999-12-31T23:00:00-05:00', false],
    ['0000-01-01T00:00:00Z', false],
    ['not a time', false],
  ])('isTimestampInRange(%s) is %s', (timestamp, inRange) => {
    expect(isTimestampInRange(timestamp)).toBe(inRange);
  });

  it('says what the range is', () => {
    expect(DATE_RANGE_ISSUE).toBe('must be a date from 1900-01-01 to 9999-12-31');
    expect(TIMESTAMP_RANGE_ISSUE).toBe('must be a time from 1900-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z');
  });
});
