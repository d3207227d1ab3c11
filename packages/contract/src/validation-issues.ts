// Turns zod's issues into the contract's `{field, issue}` pairs and a VALIDATION_ERROR refusal.
// Messages are decided at parse time by `contractErrorMap` (parseWith passes it), because only
// then does zod still hold the input and can say "is required".
import type { z } from 'zod';
import { type DomainError, type FieldIssue, type Result, domainError, fail, ok } from '@pits/domain';
import { MAX_ITEMS_PER_REQUEST } from './line-schemas.js';


const ARTICLE: Record<string, string> = {
  int: 'an integer',
  number: 'a number',
  string: 'a string',
  boolean: 'a boolean',
  array: 'an array',
  object: 'an object',
  null: 'null',
};

const FORMAT: Record<string, string> = {
  date: 'must be a real calendar date in YYYY-MM-DD form',
  datetime: 'must be an ISO 8601 timestamp',
  uuid: 'must be a UUID',
  guid: 'must be a UUID',
  url: 'must be a URL',
  email: 'must be an email address',
};

/** True when the failing schema is an integer one (`z.int()`), which reports `expected: 'number'` for non-numbers. */
function expectsInteger(issue: z.core.$ZodRawIssue): boolean {
  const def = issue.inst?._zod.def;
  return def !== undefined && 'format' in def && typeof def.format === 'string' && def.format.includes('int');
}

const plural = (n: number | bigint, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * Short messages for a partner developer, in the contract's wording: "is required", "must be an
 * integer", "must be one of: increase, decrease", "must be at most 500 characters".
 *
 * @example schema.safeParse(input, { error: contractErrorMap })
 */
export function contractErrorMap(issue: z.core.$ZodRawIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required';
      if (expectsInteger(issue)) return 'must be an integer';
      return `must be ${ARTICLE[issue.expected] ?? issue.expected}`;
    case 'too_small':
      if (issue.origin === 'string') {
        return issue.minimum === 1 ? 'must not be empty' : `must be at least ${plural(issue.minimum, 'character')}`;
      }
      if (issue.origin === 'array') return `must have at least ${plural(issue.minimum, 'item')}`;
      return issue.inclusive === false ? `must be greater than ${issue.minimum}` : `must be at least ${issue.minimum}`;
    case 'too_big':
      if (issue.origin === 'string') return `must be at most ${plural(issue.maximum, 'character')}`;
      if (issue.origin === 'array') return `must have at most ${plural(issue.maximum, 'item')}`;
      return issue.inclusive === false ? `must be less than ${issue.maximum}` : `must be at most ${issue.maximum}`;
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${String(issue.values[0])}`
        : `must be one of: ${issue.values.map(String).join(', ')}`;
    case 'invalid_format':
      return FORMAT[issue.format] ?? 'has an invalid format';
    case 'unrecognized_keys':
      return 'is not an accepted field';
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor}`;
    default:
      return 'is invalid';
  }
}

/**
 * A zod path in the contract's form: numbers as `[n]`, keys joined by `.`, `""` for the root.
 *
 * @example formatIssuePath(['items', 2, 'quantity']) === 'items[2].quantity'
 */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out;
}

/**
 * Every offending input of a failed parse, in order, one per field (the first issue of a field
 * wins). An unknown key becomes its own field.
 *
 * @example zodIssuesToFieldIssues(error) // [{ field: 'items[0].quantity', issue: 'must be greater than 0' }]
 */
export function zodIssuesToFieldIssues(error: z.ZodError): FieldIssue[] {
  const out: FieldIssue[] = [];
  const seen = new Set<string>();
  const add = (field: string, issue: string) => {
    if (seen.has(field)) return;
    seen.add(field);
    out.push({ field, issue });
  };
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) add(formatIssuePath([...issue.path, key]), issue.message);
    } else {
      add(formatIssuePath(issue.path), issue.message);
    }
  }
  return out;
}

function isTooManyItems(issue: z.core.$ZodIssue): boolean {
  return issue.code === 'too_big' && issue.origin === 'array' && issue.path.length === 1 && issue.path[0] === 'items';
}

/**
 * The refusal for a failed parse: VALIDATION_ERROR with `details` = the first issue and `issues`
 * = all of them; or PAYLOAD_TOO_LARGE when the body's `items` holds more than 500 lines
 * (docs/errors.md#error-envelope).
 *
 * @example validationError(error).details // { field: 'type', issue: 'must be one of: increase, decrease' }
 */
export function validationError(error: z.ZodError): DomainError {
  const issues = zodIssuesToFieldIssues(error);
  const tooMany = error.issues.find(isTooManyItems);
  if (tooMany) {
    return domainError('PAYLOAD_TOO_LARGE', `items must have at most ${MAX_ITEMS_PER_REQUEST} lines`, {
      field: 'items',
      issue: tooMany.message,
    });
  }
  const first = issues[0] ?? { field: '', issue: 'is invalid' };
  const more = issues.length > 1 ? ` (and ${plural(issues.length - 1, 'more issue')})` : '';
  const message = `${first.field === '' ? 'request' : first.field} ${first.issue}${more}`;
  return domainError('VALIDATION_ERROR', message, { field: first.field, issue: first.issue, issues });
}

/**
 * Parses with the contract's messages and returns the domain `Result`, never throwing.
 *
 * @example
 * const parsed = parseWith(createAdjustmentBody, body);
 * if (!parsed.ok) return parsed; // VALIDATION_ERROR with field paths
 */
export function parseWith<S extends z.ZodType>(schema: S, input: unknown): Result<z.output<S>> {
  const parsed = schema.safeParse(input, { error: contractErrorMap });
  return parsed.success ? ok(parsed.data) : fail(validationError(parsed.error));
}
