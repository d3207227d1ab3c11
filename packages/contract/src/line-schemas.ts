// Ids and lines of request bodies: positive integer ids in a JSON body, the lines of a body (at
// most 500) and the two ways a line names its product, with the checks on repeated lines; and the
// product id of responses.
import { z } from 'zod';
import { requiredOr } from './field-messages.js';
import { TEXT_LIMITS, digitText, textField } from './text-schemas.js';

/** An integer id in a JSON body: a positive safe integer. @example bodyId.parse(3) === 3 */
export const bodyId = z
  .int({ error: requiredOr('must be a positive integer') })
  .min(1, { error: 'must be a positive integer' })
  .meta({ description: 'A positive integer id.' });

/** The most lines an adjustment, transfer or receive body may carry; more is 413 (docs/input-rules.md#sizes). */
export const MAX_ITEMS_PER_REQUEST = 500;

/**
 * Where a line repeats the key of an earlier line, as `{index, first}` pairs. Keys that are not
 * strings or numbers (their line was already refused) are skipped.
 *
 * @example repeatedKeys([7, 8, 7]) // [{ index: 2, first: 0 }]
 */
export function repeatedKeys(keys: readonly unknown[]): { index: number; first: number }[] {
  const firstAt = new Map<string | number, number>();
  const repeats: { index: number; first: number }[] = [];
  keys.forEach((key, index) => {
    if (typeof key !== 'string' && typeof key !== 'number') return;
    const first = firstAt.get(key);
    if (first === undefined) firstAt.set(key, index);
    else repeats.push({ index, first });
  });
  return repeats;
}

/**
 * A product id on input: a digit string (`"1042"`) or a positive integer; the output is the number.
 *
 * @example productIdInput.parse('1042') === 1042
 */
export const productIdInput = z
  .union(
    [
      z.int().min(1, { error: 'must be a positive integer' }),
      z.string().regex(/^\d+$/, { error: 'must be a positive integer or a digit string' }).meta({ maxLength: TEXT_LIMITS.echo }),
    ],
    { error: requiredOr('must be a positive integer or a digit string') },
  )
  .transform((value, ctx) => {
    const id = Number(value);
    if (Number.isSafeInteger(id) && id >= 1) return id;
    ctx.issues.push({ code: 'custom', message: 'must be a positive integer', input: value });
    return z.NEVER;
  })
  .meta({ description: 'A product id: a digit string such as "1042", or a positive integer.' });

/**
 * A line's SKU on input, instead of `product_id`: 1 to 100 characters after trimming, matched
 * exactly (case included) against the tenant's catalogue.
 *
 * @example skuInput.parse(' KOPI-250 ') === 'KOPI-250'
 */
export const skuInput = textField({ trim: true, min: 1, max: TEXT_LIMITS.sku }).meta({
  description: "The product's SKU, instead of product_id (exactly one of the two).",
});

/**
 * The two ways a line names its product (docs/extensions.md#sku-as-a-product-reference): `product_id` or `sku`, exactly one.
 * Spread into a line's object and check the line with `requireOneProductRef`.
 */
export const productRefFields = {
  product_id: productIdInput.optional(),
  sku: skuInput.optional(),
};

/**
 * The refinement of a line with `productRefFields`: naming the product both ways is refused on
 * `sku`, naming it neither way on `product_id`.
 *
 * @example z.object({ ...productRefFields, quantity: quantityInput }).superRefine(requireOneProductRef)
 */
export function requireOneProductRef(line: { product_id?: unknown; sku?: unknown }, ctx: z.RefinementCtx): void {
  const byId = line.product_id !== undefined;
  const bySku = line.sku !== undefined;
  if (byId && bySku) ctx.addIssue({ code: 'custom', path: ['sku'], message: 'must not be given together with product_id' });
  if (!byId && !bySku) ctx.addIssue({ code: 'custom', path: ['product_id'], message: 'is required (or give sku instead)' });
}

/**
 * Adds an issue on every line that names the same product as an earlier line in the same way (the
 * same product_id, or the same sku). A product named once by id and once by SKU is found when the
 * SKU is resolved.
 */
export function refuseRepeatedProducts(items: readonly { product_id?: unknown; sku?: unknown }[], ctx: z.RefinementCtx): void {
  const field = (item: { product_id?: unknown }) => (item.product_id !== undefined ? 'product_id' : 'sku');
  const keys = items.map((item) => (item.product_id !== undefined ? item.product_id : typeof item.sku === 'string' ? `sku:${item.sku}` : undefined));
  for (const { index, first } of repeatedKeys(keys)) {
    const name = field(items[index]!);
    ctx.addIssue({ code: 'custom', path: ['items', index, name], message: `is the same product as items[${first}].${name}` });
  }
}

/** A product id in responses of adjustments, transfers and stock: a digit string. */
export const productIdText = digitText.meta({ description: 'A product id as a digit string.' });
