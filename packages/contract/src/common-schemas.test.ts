import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  bodyId,
  queryIdList,
  skuList,
  calendarDate,
  calendarDateInput,
  decimalString,
  envelopeA,
  envelopeB,
  errorEnvelope,
  fixedDecimalString,
  genericPaginationSchema,
  isoTimestampInput,
  microsecondTimestamp,
  morePaginationSchema,
  pageQuery,
  partnerActor,
  perPageQuery,
  productIdInput,
  productIdText,
  quantityInput,
  queryBoolean,
  queryId,
  queryInteger,
  rangePaginationSchema,
  repeatedKeys,
  safeText,
  safeTextCheck,
  simplePaginationSchema,
  textField,
  timestamp,
  unitCostInput,
} from './common-schemas.js';
import { parseWith } from './validation-issues.js';

/** The value, or the first `{field, issue}` of the refusal. */
function check(schema: z.ZodType, input: unknown) {
  const result = parseWith(schema, input);
  return result.ok ? { value: result.value } : { refused: result.error.details.issue };
}

describe('calendarDate', () => {
  it.each(['2024-02-29', '2026-01-31', '2000-02-29'])('accepts the real date %s', (date) => {
    expect(check(calendarDate, date)).toEqual({ value: date });
  });

  it.each(['2025-09-31', '2025-02-29', '2100-02-29', '2025-13-01', '2025-1-01', '2025-01-01T00:00:00Z', 20250101])(
    'refuses %s',
    (date) => {
      expect(check(calendarDate, date)).toEqual({ refused: 'must be a real calendar date in YYYY-MM-DD form' });
    },
  );

  it('says a missing date is required', () => {
    expect(check(calendarDate, undefined)).toEqual({ refused: 'is required' });
  });
});

describe('safeText and textField', () => {
  it('accept any well-formed text, emoji included, and keep z.string() messages for the limits', () => {
    const reason = textField({ trim: true, min: 1, max: 5 });
    expect(check(reason, ' ok \ud83d\ude00 ')).toEqual({ value: 'ok \ud83d\ude00' });
    expect(check(reason, '   ')).toEqual({ refused: 'must not be empty' });
    expect(check(reason, 'too long')).toEqual({ refused: 'must be at most 5 characters' });
    expect(check(reason, 7)).toEqual({ refused: 'must be a string' });
    expect(check(reason, undefined)).toEqual({ refused: 'is required' });
    expect(check(textField({ max: 3 }), ' a ')).toEqual({ value: ' a ' });
  });

  it.each([
    ['a NUL', 'stock\u0000count', 'must not contain the NUL character'],
    ['a lone high surrogate', 'stock\ud800', 'must not contain unpaired surrogates (invalid Unicode)'],
    ['a lone low surrogate', '\udc00', 'must not contain unpaired surrogates (invalid Unicode)'],
  ])('refuse %s, ahead of any limit it also breaks', (_, text, issue) => {
    expect(check(safeText, text)).toEqual({ refused: issue });
    expect(check(textField({ trim: true, min: 1, max: 2 }), `${text}${'x'.repeat(10)}`)).toEqual({ refused: issue });
  });

  it('safeTextCheck adds the rule to other string schemas', () => {
    const url = z.url().superRefine(safeTextCheck);
    expect(check(url, 'https://hooks.example/a\u0000b')).toEqual({ refused: 'must not contain the NUL character' });
    expect(check(url, 'https://hooks.example/ok')).toEqual({ value: 'https://hooks.example/ok' });
  });

  it('publish their limits in JSON Schema', () => {
    expect(z.toJSONSchema(textField({ trim: true, min: 1, max: 500 }))).toMatchObject({ type: 'string', minLength: 1, maxLength: 500 });
  });
});

describe('calendarDateInput', () => {
  it.each(['1900-01-01', '2024-02-29', '9999-12-31'])('accepts %s', (date) => {
    expect(check(calendarDateInput, date)).toEqual({ value: date });
  });

  it.each(['0000-01-01', '0001-01-01', '1899-12-31', '10000-01-01', '99999-01-01'])('refuses %s as out of range', (date) => {
    expect(check(calendarDateInput, date)).toEqual({ refused: 'must be a date from 1900-01-01 to 9999-12-31' });
  });

  it('still refuses dates that do not exist, and says a missing one is required', () => {
    expect(check(calendarDateInput, '2025-02-29')).toEqual({ refused: 'must be a real calendar date in YYYY-MM-DD form' });
    expect(check(calendarDateInput, '2025-01-01\u0000')).toEqual({ refused: 'must be a real calendar date in YYYY-MM-DD form' });
    expect(check(calendarDateInput, undefined)).toEqual({ refused: 'is required' });
  });

  it('leaves the response form alone: calendarDate reads any stored date', () => {
    expect(check(calendarDate, '1899-12-31')).toEqual({ value: '1899-12-31' });
  });
});

describe('timestamps', () => {
  it('timestamp is UTC with milliseconds, as toISOString prints it', () => {
    expect(check(timestamp, new Date(0).toISOString())).toEqual({ value: '1970-01-01T00:00:00.000Z' });
    for (const bad of ['2026-01-31T08:15:30Z', '2026-01-31T08:15:30.123+07:00', '2026-01-31T08:15:30.123456Z']) {
      expect(check(timestamp, bad)).toEqual({ refused: 'must be an ISO 8601 UTC timestamp with milliseconds' });
    }
  });

  it('microsecondTimestamp has six fractional digits', () => {
    expect(check(microsecondTimestamp, '2026-01-31T08:15:30.123000Z')).toEqual({ value: '2026-01-31T08:15:30.123000Z' });
    expect(check(microsecondTimestamp, '2026-01-31T08:15:30.123Z')).toHaveProperty('refused');
  });

  it('isoTimestampInput takes Z or an offset, any precision, and refuses a local time', () => {
    for (const good of ['2026-01-31T08:15:30Z', '2026-01-31T15:15:30+07:00', '2026-01-31T08:15:30.5Z']) {
      expect(check(isoTimestampInput, good)).toEqual({ value: good });
    }
    expect(check(isoTimestampInput, '2026-01-31T08:15:30')).toEqual({
      refused: 'must be an ISO 8601 timestamp with Z or an offset',
    });
    expect(check(isoTimestampInput, '2026-02-30T08:15:30Z')).toHaveProperty('refused');
  });

  it('isoTimestampInput takes instants from 1900 to 9999 in UTC, offsets counted', () => {
    for (const good of ['1900-01-01T00:00:00Z', '1900-01-01T07:00:00+07:00', '9999-12-31T23:59:59.999Z']) {
      expect(check(isoTimestampInput, good)).toEqual({ value: good });
    }
    const outside = 'must be a time from 1900-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z';
    for (const bad of ['0000-01-01T00:00:00Z', '1899-12-31T23:59:59Z', '1900-01-01T00:30:00+01:00', '9999-12-31T23:00:00-05:00']) {
      expect(check(isoTimestampInput, bad)).toEqual({ refused: outside });
    }
    expect(check(isoTimestampInput, '10000-01-01T00:00:00Z')).toEqual({ refused: 'must be a date from 1900-01-01 to 9999-12-31' });
  });
});

describe('query integers', () => {
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

describe('bodyId', () => {
  it('is a positive integer in a JSON body, not a string', () => {
    expect(check(bodyId, 3)).toEqual({ value: 3 });
    for (const bad of ['3', 0, -2, 1.5]) expect(check(bodyId, bad)).toEqual({ refused: 'must be a positive integer' });
    expect(check(bodyId, undefined)).toEqual({ refused: 'is required' });
  });
});

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

describe('envelopes', () => {
  const requestId = '3f2c1e9a-7b4d-4c3e-9a1b-2d3e4f5a6b7c';

  it('envelopeA is {status: ok, data, errors: null, request_id}', () => {
    const schema = envelopeA(z.null());
    expect(schema.safeParse({ status: 'ok', data: null, errors: null, request_id: requestId }).success).toBe(true);
    expect(schema.safeParse({ status: 'error', data: null, errors: null, request_id: requestId }).success).toBe(false);
    expect(schema.safeParse({ status: 'ok', data: null, errors: [], request_id: requestId }).success).toBe(false);
    expect(schema.safeParse({ status: 'ok', data: null, errors: null, request_id: requestId, meta: {} }).success).toBe(false);
  });

  it('envelopeB is {status: 200, message: Ok, data, errors: null, request_id: uuid}', () => {
    const schema = envelopeB(z.object({ n: z.number() }));
    const good = { status: 200, message: 'Ok', data: { n: 1 }, errors: null, request_id: requestId };
    expect(schema.safeParse(good).success).toBe(true);
    expect(schema.safeParse({ ...good, status: '200' }).success).toBe(false);
    expect(schema.safeParse({ ...good, message: 'OK' }).success).toBe(false);
    expect(schema.safeParse({ ...good, request_id: 'req-1' }).success).toBe(false);
  });

  it('errorEnvelope carries code, message, details and optionally every issue', () => {
    const body = {
      status: 'unprocessable_entity',
      error: { code: 'VALIDATION_ERROR', message: 'type must be one of: increase, decrease', details: { field: 'type', issue: 'x' } },
      request_id: requestId,
    };
    expect(errorEnvelope.safeParse(body).success).toBe(true);
    const withIssues = { ...body, error: { ...body.error, issues: [{ field: 'type', issue: 'x' }, { field: '', issue: 'y' }] } };
    expect(errorEnvelope.safeParse(withIssues).success).toBe(true);
    expect(errorEnvelope.safeParse({ ...body, error: { ...body.error, code: 'OOPS' } }).success).toBe(false);
    expect(errorEnvelope.safeParse({ ...body, error: { ...body.error, stack: 'at x' } }).success).toBe(false);
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

describe('repeatedKeys', () => {
  it('points every repeat at the first line with that key, skipping refused keys', () => {
    expect(repeatedKeys([7, 8, 7, undefined, undefined, 8, '7'])).toEqual([
      { index: 2, first: 0 },
      { index: 5, first: 1 },
    ]);
  });
});

describe('partnerActor', () => {
  it('is {id, name, email}', () => {
    expect(partnerActor.safeParse({ id: 1, name: 'Acme', email: 'ops@acme.test' }).success).toBe(true);
    expect(partnerActor.safeParse({ id: '1', name: 'Acme', email: 'ops@acme.test' }).success).toBe(false);
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
