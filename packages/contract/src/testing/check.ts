// What the contract's tests of one schema read: the parsed value, or the first issue of the refusal.
import type { z } from 'zod';
import { parseWith } from '../validation-issues.js';

/**
 * The value, or the first `{field, issue}` of the refusal.
 *
 * @example expect(check(pageQuery, '0')).toEqual({ refused: 'must be at least 1' })
 */
export function check(schema: z.ZodType, input: unknown): { value: unknown } | { refused: string } {
  const result = parseWith(schema, input);
  return result.ok ? { value: result.value } : { refused: result.error.details.issue };
}
