import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { LOT_NUMBER_ISSUE, LOT_NUMBER_PATTERN, isCalendarDate, lotNumberIssue } from '@pits/domain';
import {
  lotAllocation,
  lotAllocations,
  lotAllocationsExample,
  lotLineInputFields,
  lotNumberInput,
  lotNumberText,
  refuseProductionAfterExpiry,
} from './lot-schemas.js';
import { parseWith } from './validation-issues.js';

const line = z.object(lotLineInputFields).superRefine(refuseProductionAfterExpiry);

function refusal(schema: z.ZodType, input: unknown) {
  const result = parseWith(schema, input);
  if (result.ok) throw new Error('expected a refusal');
  return result.error;
}

const LOT_NUMBERS = ['B1', 'b1', 'SB-2611/A.1_x', '0', 'L'.repeat(64), '', 'L'.repeat(65), 'B 1', ' B1', 'B1 ', 'B:1', 'B|1', 'Ä1', 'B\u00001', 'B1\n', 'LEGACY'];

describe('lotNumberInput', () => {
  it.each(LOT_NUMBERS)('decides %j as the domain rule does', (lotNumber) => {
    const parsed = parseWith(lotNumberInput, lotNumber);
    const issue = lotNumberIssue(lotNumber);
    expect(parsed).toEqual(issue === undefined ? { ok: true, value: lotNumber } : expect.objectContaining({ ok: false }));
    if (issue !== undefined) expect(refusal(lotNumberInput, lotNumber).details).toEqual({ field: '', issue: LOT_NUMBER_ISSUE });
  });

  it.each([null, 7, ['B1'], { lot: 'B1' }])('refuses %j with the rule, not a type name', (value) => {
    expect(refusal(lotNumberInput, value).details).toEqual({ field: '', issue: LOT_NUMBER_ISSUE });
  });

  it('publishes the rule as a pattern with its lengths, on input and in answers', () => {
    expect(z.toJSONSchema(lotNumberInput, { io: 'input' })).toMatchObject({ type: 'string', pattern: LOT_NUMBER_PATTERN.source, minLength: 1, maxLength: 64 });
    expect(z.toJSONSchema(lotNumberText, { io: 'output' })).toMatchObject({ type: 'string', pattern: LOT_NUMBER_PATTERN.source, maxLength: 64 });
  });
});

describe('the lot fields of a line', () => {
  it('are all optional', () => {
    expect(parseWith(line, {})).toEqual({ ok: true, value: {} });
  });

  it.each(['2024-02-29', '2000-02-29', '1900-02-28', '9999-12-31', '2025-02-29', '1900-02-29', '2100-02-29', '2025-09-31', '2025-00-10', '2025-1-01'])(
    'take %s as an expiry date exactly when the domain calls it a calendar day',
    (date) => {
      expect(parseWith(line, { expiry_date: date }).ok).toBe(isCalendarDate(date));
    },
  );

  it('refuse a production date after the expiry date on production_date, and accept the same day', () => {
    expect(parseWith(line, { expiry_date: '2027-01-31', production_date: '2027-01-31' }).ok).toBe(true);
    expect(refusal(line, { expiry_date: '2027-01-31', production_date: '2027-02-01' }).details).toEqual({
      field: 'production_date',
      issue: 'must not be after the expiry date, 2027-01-31',
    });
  });

  it('leave a malformed date to its own field, once', () => {
    const error = refusal(line, { expiry_date: '2027-02-30', production_date: '2027-03-01' });
    expect(error.details).toEqual({ field: 'expiry_date', issue: 'must be a real calendar date in YYYY-MM-DD form' });
    expect('issues' in error).toBe(false);
  });
});

describe('lotAllocations', () => {
  it('lists lots with their expiry dates (null for a lot without one) and quantities', () => {
    expect(lotAllocations.parse(lotAllocationsExample)).toEqual(lotAllocationsExample);
    expect(lotAllocations.parse([])).toEqual([]);
    expect(lotAllocation.safeParse({ lot_number: 'LEGACY', expiry_date: null, quantity: 0.5 }).success).toBe(true);
  });

  it.each([
    ['a negative quantity', { quantity: -1 }],
    ['a quantity as text', { quantity: '2' }],
    ['an expiry date that is not a day', { expiry_date: '2027-02-29' }],
    ['no expiry_date', { expiry_date: undefined }],
    ['a lot number the rule refuses', { lot_number: 'A B' }],
    ['an unknown field', { days_left: 3 }],
  ])('refuses an allocation with %s', (_case, change) => {
    expect(lotAllocation.safeParse({ ...lotAllocationsExample[0], ...change }).success).toBe(false);
  });

  it('takes the earlier expiry first in its example, as first expired first out does', () => {
    const dates = lotAllocationsExample.map((a) => a.expiry_date ?? '9999-99-99');
    expect([...dates].sort()).toEqual(dates);
  });
});
