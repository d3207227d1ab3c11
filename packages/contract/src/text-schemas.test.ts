import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { safeText, safeTextCheck, textField } from './text-schemas.js';
import { check } from './testing/check.js';

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
