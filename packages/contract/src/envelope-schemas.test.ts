import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { envelopeA, envelopeB, errorEnvelope } from './envelope-schemas.js';

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
