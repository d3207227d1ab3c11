// Checks of one product row (CSV text or a JSON object) against the contract's Product fields,
// with the catalogue's defaults for what a row leaves out, and one row per SKU in a file. Text and
// nesting follow the domain's rules for input that is never accepted (docs/input-rules.md).
import { NESTING_ISSUE, dec, exceedsNestingDepth, textIssue } from '@pits/domain';
import type { ProductImportRow } from '@pits/persistence';
import type { RowIssue } from '../report/reject-report.js';
import type { Checked } from './area-row.js';

/** The columns a product file may carry; `sku` and `name` are required. */
export const PRODUCT_COLUMNS = [
  'sku', 'name', 'category_id', 'barcode', 'description', 'brand', 'product_type',
  'published_price', 'cost_price', 'weight', 'width', 'height', 'length', 'status',
  'is_bundle', 'is_managed_by_fulfillment', 'advance_qc', 'production_batch', 'cold_storage',
  'fulfillment_manage_by', 'outbound_expired', 'inbound_expired', 'outer_barcode',
] as const;
type Column = (typeof PRODUCT_COLUMNS)[number];

const TEXT = { sku: 100, name: 255, barcode: 100, description: 5000, product_type: 50, status: 50 } as const;
const NULLABLE = { brand: 255, fulfillment_manage_by: 255, outer_barcode: 100 } as const;
const DECIMALS = ['published_price', 'cost_price', 'weight', 'width', 'height', 'length'] as const;
const BOOLEANS = ['is_bundle', 'is_managed_by_fulfillment', 'advance_qc', 'production_batch', 'cold_storage'] as const;
const INTEGERS = ['category_id', 'outbound_expired', 'inbound_expired'] as const;

const DEFAULTS: ProductImportRow = {
  sku: '', name: '', category_id: 0, barcode: '', description: '', brand: null, product_type: 'physical',
  published_price: '0.00', cost_price: '0.00', weight: '0.00', width: '0.00', height: '0.00', length: '0.00',
  status: 'published', is_bundle: false, is_managed_by_fulfillment: true, advance_qc: false, production_batch: false,
  cold_storage: false, fulfillment_manage_by: null, outbound_expired: 0, inbound_expired: 0, outer_barcode: null,
};

const TWO_PLACES = /^\d{1,18}(\.\d{1,2})?$/;
/**
 * Prices and dimensions stay below 10^13, as the internal API takes them: a cost price becomes a
 * transfer's unit_price, a JSON number that must stay exact (docs/input-rules.md#quantities-and-totals).
 */
const DECIMAL_LIMIT = '10000000000000';

/** A value is absent when a CSV cell is empty or a JSON key is missing. */
const absent = (v: unknown) => v === undefined || v === '';

function decimal(value: unknown): string | undefined {
  const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
  if (typeof text !== 'string' || !TWO_PLACES.test(text.trim())) return undefined;
  const [whole, fraction = ''] = text.trim().split('.');
  return `${whole}.${fraction.padEnd(2, '0')}`;
}

/** The trimmed text, or why it is refused: a NUL or an unpaired surrogate (docs/input-rules.md#text), or more than `max` characters. */
function text(value: string, max: number): { value: string } | { reason: string } {
  const unsafe = textIssue(value);
  if (unsafe !== undefined) return { reason: unsafe };
  const trimmed = value.trim();
  return trimmed.length > max ? { reason: `must be at most ${max} characters` } : { value: trimmed };
}

function integer(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/**
 * A flag: JSON true/false, or the text true or false in any letter case (spreadsheets write TRUE).
 * Nothing else: 1/0 and yes/no are refused with the same words the report uses, never guessed.
 */
function boolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value !== 'string') return undefined;
  const text = value.trim().toLowerCase();
  return text === 'true' ? true : text === 'false' ? false : undefined;
}

/** What a flag column accepts, as the report says it. */
export const BOOLEAN_ISSUE = 'must be true or false (any letter case; 1/0 and yes/no are not accepted)';

/** Checks product rows, refusing a SKU the file already listed. */
export class ProductRowChecker {
  readonly #skus = new Map<string, number>();

  check(line: number, input: Readonly<Record<string, unknown>>): Checked<ProductImportRow> {
    // A JSON line may nest without bound; nothing below walks it before this check.
    if (exceedsNestingDepth(input)) return { ok: false, issues: [{ field: '', reason: NESTING_ISSUE }] };
    const issues: RowIssue[] = [];
    const row: ProductImportRow = { ...DEFAULTS };
    const set = <K extends keyof ProductImportRow>(key: K, value: ProductImportRow[K]) => {
      row[key] = value;
    };
    for (const key of Object.keys(input)) {
      if (!(PRODUCT_COLUMNS as readonly string[]).includes(key)) issues.push({ field: key, reason: 'is not a product field' });
    }
    for (const [field, max] of Object.entries(TEXT) as [keyof typeof TEXT, number][]) {
      const value = input[field];
      if (absent(value)) {
        if (field === 'sku' || field === 'name') issues.push({ field, reason: 'is required' });
      } else if (typeof value !== 'string') issues.push({ field, reason: 'must be a string' });
      else {
        const checked = text(value, max);
        if ('reason' in checked) issues.push({ field, reason: checked.reason });
        else set(field, checked.value);
      }
    }
    for (const [field, max] of Object.entries(NULLABLE) as [keyof typeof NULLABLE, number][]) {
      const value = input[field];
      if (absent(value) || value === null) continue;
      if (typeof value !== 'string') issues.push({ field, reason: 'must be a string or null' });
      else {
        const checked = text(value, max);
        if ('reason' in checked) issues.push({ field, reason: checked.reason });
        else set(field, checked.value);
      }
    }
    for (const field of DECIMALS) {
      if (absent(input[field])) continue;
      const value = decimal(input[field]);
      if (value === undefined) issues.push({ field, reason: 'must be a non-negative decimal with at most two places' });
      else if (dec(value).gte(DECIMAL_LIMIT)) issues.push({ field, reason: `must be less than ${DECIMAL_LIMIT}` });
      else set(field, value);
    }
    for (const field of INTEGERS) {
      if (absent(input[field])) continue;
      const value = integer(input[field]);
      if (value === undefined) issues.push({ field, reason: 'must be a non-negative integer' });
      else set(field, value);
    }
    for (const field of BOOLEANS) {
      if (absent(input[field])) continue;
      const value = boolean(input[field]);
      if (value === undefined) issues.push({ field, reason: BOOLEAN_ISSUE });
      else set(field, value);
    }
    if (issues.length > 0) return { ok: false, issues };
    const seen = this.#skus.get(row.sku);
    if (seen !== undefined) return { ok: false, issues: [{ field: 'sku', reason: `${row.sku} is already on line ${seen}` }] };
    this.#skus.set(row.sku, line);
    return { ok: true, value: row };
  }
}

export type { Column as ProductColumn };
