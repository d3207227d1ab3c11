import { describe, expect, it } from 'vitest';
import { type HeaderSpec, matchHeader, sniffDelimiter, wrongHeaderMessage } from './csv-header.js';

const PRODUCTS: HeaderSpec = { columns: ['sku', 'name', 'published_price', 'cost_price', 'brand'], required: ['sku', 'name'] };
const AREAS: HeaderSpec = { columns: ['state', 'state_code', 'postcode'], required: ['state', 'state_code', 'postcode'] };

describe('sniffDelimiter', () => {
  it.each([
    ['sku,name,brand', ','],
    ['SKU;Name;Price', ';'],
    ['"SKU";"Name"', ';'],
    ['sku\tname\tbrand', '\t'],
    // A semicolon inside a comma-separated header (a quoted name) does not fool it: commas give the known columns.
    ['sku,name,"a;b"', ','],
    // Nothing known: the delimiter that splits the line most, so the message can name each column.
    ['Foo;Bar;Baz', ';'],
    ['just-one-column', ','],
  ])('reads %j as %j-separated', (line, delimiter) => {
    expect(sniffDelimiter(line, PRODUCTS.columns)).toBe(delimiter);
  });
});

describe('matchHeader', () => {
  it('matches names ignoring letter case and surrounding spaces, in any order, and ignores an error column', () => {
    expect(matchHeader([' Name', 'SKU ', 'Error', 'brand'], PRODUCTS)).toEqual({ ok: true, columns: ['name', 'sku', undefined, 'brand'] });
  });

  it('names each unknown column with what it was probably meant to be', () => {
    expect(matchHeader(['SKU', 'Nmae', 'Price', 'Published Price', 'colour'], PRODUCTS)).toEqual({
      ok: false,
      problems: [
        'unknown column "Nmae" (did you mean "name"?)',
        'unknown column "Price" (did you mean "published_price" or "cost_price"?)',
        'unknown column "Published Price" (did you mean "published_price"?)',
        'unknown column "colour"',
        'missing column "name"',
      ],
    });
  });

  it('refuses a column named twice and lists the missing ones', () => {
    expect(matchHeader(['sku', 'SKU'], PRODUCTS)).toEqual({ ok: false, problems: ['column "sku" appears twice', 'missing column "name"'] });
    expect(matchHeader(['state'], AREAS)).toEqual({ ok: false, problems: ['missing columns "state_code", "postcode"'] });
    expect(matchHeader(['a', 'b'], AREAS)).toEqual({ ok: false, problems: ['unknown column "a"', 'unknown column "b"', 'none of the expected columns is there'] });
  });
});

describe('wrongHeaderMessage', () => {
  it('says how the line was read and lists the expected columns', () => {
    const message = wrongHeaderMessage('catalogue.csv', ['unknown column "Nmae" (did you mean "name"?)'], ';', 'SKU;Nmae', PRODUCTS);
    expect(message).toBe(
      'catalogue.csv: wrong header (read as semicolon-separated): unknown column "Nmae" (did you mean "name"?).\n' +
        'Expected columns (sku and name required, any order, letter case ignored; a column named "error" is ignored): sku, name, published_price, cost_price, brand',
    );
  });

  it('points at a second delimiter on the header line', () => {
    const message = wrongHeaderMessage('areas.csv', ['unknown column "state;state_code"'], ',', 'state;state_code,postcode', AREAS);
    expect(message).toContain('The header line also holds a semicolon: columns are separated by one of comma, semicolon or tab, the same on every line.');
    expect(message).toContain('(all required, any order');
  });
});
