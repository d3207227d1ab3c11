import { describe, expect, it } from 'vitest';
import { AppError, ERROR_KINDS, type Result, domainError, fail, ok, unwrap } from './errors.js';

describe('ERROR_KINDS', () => {
  it('is exactly the closed list of codes in the contract error table', () => {
    expect([...ERROR_KINDS].sort()).toStrictEqual(
      [
        'FORBIDDEN',
        'IDEMPOTENCY_KEY_REUSED',
        'INSUFFICIENT_STOCK',
        'INTERNAL_ERROR',
        'INVALID_REQUEST',
        'INVALID_STATE',
        'METHOD_NOT_ALLOWED',
        'NOT_FOUND',
        'PAYLOAD_TOO_LARGE',
        'RATE_LIMITED',
        'REQUEST_TIMEOUT',
        'SERVICE_UNAVAILABLE',
        'SHELF_LIFE_TOO_SHORT',
        'STALE_QUANTITY',
        'UNAUTHORIZED',
        'UNSUPPORTED_MEDIA_TYPE',
        'VALIDATION_ERROR',
      ].sort(),
    );
  });
});

describe('domainError', () => {
  it('without options names no field and repeats the message as the issue', () => {
    expect(domainError('INTERNAL_ERROR', 'something broke')).toStrictEqual({
      kind: 'INTERNAL_ERROR',
      message: 'something broke',
      details: { field: '', issue: 'something broke' },
    });
  });

  it('carries the offending field, and the message as issue when no issue is given', () => {
    expect(domainError('INVALID_STATE', 'adjustment is approved', { field: 'status' })).toStrictEqual({
      kind: 'INVALID_STATE',
      message: 'adjustment is approved',
      details: { field: 'status', issue: 'adjustment is approved' },
    });
  });

  it('keeps an explicit issue separate from the message', () => {
    const e = domainError('VALIDATION_ERROR', 'invalid request', { field: 'per_page', issue: 'must be at most 100' });
    expect(e.details).toStrictEqual({ field: 'per_page', issue: 'must be at most 100' });
    expect(e.message).toBe('invalid request');
  });

  it('has no `issues` key when there is a single issue or none', () => {
    const single = domainError('VALIDATION_ERROR', 'bad', {
      field: 'items[0].quantity',
      issue: 'must be > 0',
      issues: [{ field: 'items[0].quantity', issue: 'must be > 0' }],
    });
    expect(single).toStrictEqual({
      kind: 'VALIDATION_ERROR',
      message: 'bad',
      details: { field: 'items[0].quantity', issue: 'must be > 0' },
    });
    expect('issues' in single).toBe(false);
    expect('issues' in domainError('VALIDATION_ERROR', 'bad', { issues: [] })).toBe(false);
  });

  it('lists every issue when there are several, with the first in details', () => {
    const issues = [
      { field: 'items[0].quantity', issue: 'must be > 0' },
      { field: 'items[3].product_id', issue: 'unknown product' },
    ];
    expect(domainError('VALIDATION_ERROR', 'must be > 0', { field: 'items[0].quantity', issue: 'must be > 0', issues })).toStrictEqual({
      kind: 'VALIDATION_ERROR',
      message: 'must be > 0',
      details: { field: 'items[0].quantity', issue: 'must be > 0' },
      issues,
    });
  });
});

describe('ok / fail', () => {
  it('build the two result shapes', () => {
    expect(ok(5)).toStrictEqual({ ok: true, value: 5 });
    const error = domainError('NOT_FOUND', 'no such adjustment');
    expect(fail(error)).toStrictEqual({ ok: false, error });
  });
});

describe('AppError', () => {
  it('is an Error carrying the refusal and its kind', () => {
    const error = domainError('INSUFFICIENT_STOCK', 'not enough', { field: 'items[1].quantity' });
    const thrown = new AppError(error);
    expect(thrown).toBeInstanceOf(Error);
    expect(thrown.name).toBe('AppError');
    expect(thrown.message).toBe('not enough');
    expect(thrown.error).toBe(error);
    expect(thrown.kind).toBe('INSUFFICIENT_STOCK');
  });
});

describe('unwrap', () => {
  it('returns the value of a successful result', () => {
    const result: Result<{ id: string }> = ok({ id: 'ADJ-20260101-000001' });
    expect(unwrap(result)).toStrictEqual({ id: 'ADJ-20260101-000001' });
  });

  it('throws the refusal of a failed result as an AppError', () => {
    const error = domainError('INVALID_STATE', 'transfer is completed', { field: 'status' });
    const result: Result<number> = fail(error);
    let caught: unknown;
    try {
      unwrap(result);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(AppError);
    expect((caught as AppError).error).toBe(error);
    expect((caught as AppError).kind).toBe('INVALID_STATE');
  });
});
