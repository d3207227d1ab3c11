import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { actionBody, documentListFields, documentNumber, partnerActor, rejectBody } from './document-schemas.js';
import { check } from './testing/check.js';

describe('partnerActor', () => {
  it('is {id, name, email}', () => {
    expect(partnerActor.safeParse({ id: 1, name: 'Acme', email: 'ops@acme.test' }).success).toBe(true);
    expect(partnerActor.safeParse({ id: '1', name: 'Acme', email: 'ops@acme.test' }).success).toBe(false);
  });
});

describe('the document family', () => {
  it('documentNumber takes its own prefix, a date and six digits or more, at most 32 characters', () => {
    expect(documentNumber('TRF').safeParse('TRF-20261122-000001').success).toBe(true);
    expect(documentNumber('TRF').safeParse('TRF-20261122-1234567').success).toBe(true);
    for (const bad of ['ADJ-20261122-000001', 'TRF-2026112-000001', 'TRF-20261122-00001', `TRF-20261122-${'0'.repeat(20)}`]) {
      expect(documentNumber('TRF').safeParse(bad).success).toBe(false);
    }
    expect(z.toJSONSchema(documentNumber('RSV'))).toMatchObject({ type: 'string', maxLength: 32, pattern: '^RSV-\\d{8}-\\d{6,}$' });
  });

  it('rejectBody wants a trimmed reason of 1 to 500 characters', () => {
    const body = rejectBody('SomeRejectBody', 'thing');
    expect(check(body, { reason: '  counted twice ' })).toEqual({ value: { reason: 'counted twice' } });
    expect(check(body, { reason: ' ' })).toEqual({ refused: 'must not be empty' });
    expect(check(body, { reason: 'x'.repeat(501) })).toEqual({ refused: 'must be at most 500 characters' });
    expect(check(body, {})).toEqual({ refused: 'is required' });
    expect(z.globalRegistry.get(body)).toEqual({ id: 'SomeRejectBody', description: 'Why the thing is rejected.' });
  });

  it('actionBody is {} or no body, unknown keys ignored', () => {
    const body = actionBody('SomeActionBody');
    expect(check(body, undefined)).toEqual({ value: {} });
    expect(check(body, { note: 'x' })).toEqual({ value: {} });
    expect(check(body, 'x')).toHaveProperty('refused');
  });

  it('documentListFields are page, per_page (default 10, at most 100) and an optional status, in that order', () => {
    const query = z.object({ ...documentListFields(z.enum(['open', 'shut'])), extra: z.string().optional() });
    expect(Object.keys(query.shape)).toEqual(['page', 'per_page', 'status', 'extra']);
    expect(check(query, {})).toEqual({ value: { page: 1, per_page: 10 } });
    expect(check(query, { per_page: '101' })).toEqual({ refused: 'must be at most 100' });
    expect(check(query, { status: 'ajar' })).toHaveProperty('refused');
  });
});
