import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { contractErrorMap, formatIssuePath, parseWith, validationError, zodIssuesToFieldIssues } from './validation-issues.js';

/** Every `{field, issue}` of a refusal, parsed with the contract's messages. */
function issuesOf(schema: z.ZodType, input: unknown) {
  const parsed = schema.safeParse(input, { error: contractErrorMap });
  if (parsed.success) throw new Error('expected a refusal');
  return zodIssuesToFieldIssues(parsed.error);
}

function zodError(schema: z.ZodType, input: unknown): z.ZodError {
  const parsed = schema.safeParse(input, { error: contractErrorMap });
  if (parsed.success) throw new Error('expected a refusal');
  return parsed.error;
}

describe('formatIssuePath', () => {
  it.each([
    [[], ''],
    [['type'], 'type'],
    [['items', 2, 'quantity'], 'items[2].quantity'],
    [['items', 0], 'items[0]'],
    [[0, 'a', 1, 2], '[0].a[1][2]'],
    [['data', Symbol('s')], 'data.Symbol(s)'],
  ])('%j -> %s', (path, field) => {
    expect(formatIssuePath(path)).toBe(field);
  });
});

describe('contractErrorMap messages', () => {
  it.each([
    ['a missing field', z.object({ reason: z.string() }), {}, 'reason', 'is required'],
    ['a string expected', z.object({ reason: z.string() }), { reason: 5 }, 'reason', 'must be a string'],
    ['an integer expected', z.object({ n: z.int() }), { n: 1.5 }, 'n', 'must be an integer'],
    ['an integer expected, given text', z.object({ n: z.int() }), { n: '3' }, 'n', 'must be an integer'],
    ['a number expected', z.object({ n: z.number() }), { n: 'x' }, 'n', 'must be a number'],
    ['a boolean expected', z.object({ b: z.boolean() }), { b: 'yes' }, 'b', 'must be a boolean'],
    ['an array expected', z.object({ items: z.array(z.string()) }), { items: {} }, 'items', 'must be an array'],
    ['an object expected', z.object({ o: z.object({}) }), { o: [] }, 'o', 'must be an object'],
    ['null expected', z.object({ errors: z.null() }), { errors: 1 }, 'errors', 'must be null'],
    ['an unusual type expected', z.object({ n: z.bigint() }), { n: 1 }, 'n', 'must be bigint'],
    ['an empty string', z.object({ s: z.string().min(1) }), { s: '' }, 's', 'must not be empty'],
    ['a short string', z.object({ s: z.string().min(3) }), { s: 'ab' }, 's', 'must be at least 3 characters'],
    ['a long string', z.object({ s: z.string().max(1) }), { s: 'ab' }, 's', 'must be at most 1 character'],
    ['too few items', z.object({ a: z.array(z.int()).min(1) }), { a: [] }, 'a', 'must have at least 1 item'],
    ['too many items', z.object({ a: z.array(z.int()).max(2) }), { a: [1, 2, 3] }, 'a', 'must have at most 2 items'],
    ['a number below an inclusive minimum', z.object({ n: z.number().min(0) }), { n: -1 }, 'n', 'must be at least 0'],
    ['a number at an exclusive minimum', z.object({ n: z.number().positive() }), { n: 0 }, 'n', 'must be greater than 0'],
    ['a number above an inclusive maximum', z.object({ n: z.number().max(5) }), { n: 6 }, 'n', 'must be at most 5'],
    ['a number at an exclusive maximum', z.object({ n: z.number().lt(5) }), { n: 5 }, 'n', 'must be less than 5'],
    ['an enum', z.object({ type: z.enum(['increase', 'decrease']) }), { type: 'up' }, 'type', 'must be one of: increase, decrease'],
    ['a literal', z.object({ status: z.literal('ok') }), { status: 'fine' }, 'status', 'must be ok'],
    ['a UUID', z.object({ id: z.uuid() }), { id: 'x' }, 'id', 'must be a UUID'],
    ['a URL', z.object({ url: z.url() }), { url: 'x' }, 'url', 'must be a URL'],
    ['an email', z.object({ e: z.email() }), { e: 'x' }, 'e', 'must be an email address'],
    ['a date', z.object({ d: z.iso.date() }), { d: '2025-09-31' }, 'd', 'must be a real calendar date in YYYY-MM-DD form'],
    ['a timestamp', z.object({ t: z.iso.datetime() }), { t: 'now' }, 't', 'must be an ISO 8601 timestamp'],
    ['a pattern', z.object({ s: z.string().regex(/^a$/) }), { s: 'b' }, 's', 'has an invalid format'],
    ['a multiple', z.object({ n: z.number().multipleOf(5) }), { n: 7 }, 'n', 'must be a multiple of 5'],
    ['a refinement without a message', z.object({ n: z.number().refine((n) => n > 1) }), { n: 1 }, 'n', 'is invalid'],
  ])('%s', (_case, schema, input, field, issue) => {
    expect(issuesOf(schema, input)).toEqual([{ field, issue }]);
  });

  it('names each unknown key of a strict object as its own field', () => {
    expect(issuesOf(z.strictObject({ a: z.object({}).strict() }), { a: { x: 1, y: 2 } })).toEqual([
      { field: 'a.x', issue: 'is not an accepted field' },
      { field: 'a.y', issue: 'is not an accepted field' },
    ]);
  });

  it('keeps a message a schema gives itself', () => {
    expect(issuesOf(z.object({ s: z.string().regex(/^a$/, { error: 'must be a' }) }), { s: 'b' })).toEqual([
      { field: 's', issue: 'must be a' },
    ]);
  });
});

describe('zodIssuesToFieldIssues', () => {
  it('lists every offending field in order, the first issue of a field only', () => {
    const schema = z.object({ a: z.string().min(3).regex(/^x/), items: z.array(z.object({ q: z.number() })) });
    expect(issuesOf(schema, { a: 'b', items: [{ q: 1 }, { q: 'x' }] })).toEqual([
      { field: 'a', issue: 'must be at least 3 characters' },
      { field: 'items[1].q', issue: 'must be a number' },
    ]);
  });

  it('names the root ""', () => {
    expect(issuesOf(z.object({}), 'text')).toEqual([{ field: '', issue: 'must be an object' }]);
  });
});

describe('validationError', () => {
  const body = z.object({ type: z.enum(['increase', 'decrease']), reason: z.string(), items: z.array(z.int()).max(500) });

  it('is a VALIDATION_ERROR whose details are the only issue', () => {
    const error = validationError(zodError(body, { type: 'up', reason: 'r', items: [] }));
    expect(error).toEqual({
      kind: 'VALIDATION_ERROR',
      message: 'type must be one of: increase, decrease',
      details: { field: 'type', issue: 'must be one of: increase, decrease' },
    });
  });

  it('puts the first issue in details and all of them in issues', () => {
    const error = validationError(zodError(body, { type: 'up', items: [] }));
    expect(error.message).toBe('type must be one of: increase, decrease (and 1 more issue)');
    expect(error.details).toEqual({ field: 'type', issue: 'must be one of: increase, decrease' });
    expect(error.issues).toEqual([
      { field: 'type', issue: 'must be one of: increase, decrease' },
      { field: 'reason', issue: 'is required' },
    ]);
  });

  it('speaks of the request when the root is at fault', () => {
    expect(validationError(zodError(body, null))).toMatchObject({
      message: 'request must be an object',
      details: { field: '', issue: 'must be an object' },
    });
  });

  it('is PAYLOAD_TOO_LARGE when items holds more than 500 lines', () => {
    const error = validationError(zodError(body, { type: 'increase', reason: 'r', items: Array.from({ length: 501 }, () => 1) }));
    expect(error).toEqual({
      kind: 'PAYLOAD_TOO_LARGE',
      message: 'items must have at most 500 lines',
      details: { field: 'items', issue: 'must have at most 500 items' },
    });
  });

  it('still names the root when zod reports no issue', () => {
    expect(validationError(new z.ZodError([])).details).toEqual({ field: '', issue: 'is invalid' });
  });
});

describe('parseWith', () => {
  const schema = z.object({ page: z.int().min(1) });

  it('returns the parsed value', () => {
    expect(parseWith(schema, { page: 2, extra: true })).toEqual({ ok: true, value: { page: 2 } });
  });

  it('returns the refusal with the contract messages, never throwing', () => {
    expect(parseWith(schema, {})).toEqual({
      ok: false,
      error: { kind: 'VALIDATION_ERROR', message: 'page is required', details: { field: 'page', issue: 'is required' } },
    });
  });
});
