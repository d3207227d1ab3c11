// Checks of one opening-stock row, before the database is asked: a location code and a SKU as
// text the domain accepts (docs/input-rules.md#text), a lot number and dates of the lot rules'
// shape (docs/lots.md#lots), good units as an exact positive decimal
// (docs/input-rules.md#quantities-and-totals), and one row per location, SKU and lot in a file.
// Whether the location, the product and the lot exist, and what the product's lot rules ask, is
// the database's part (importOpeningStockBatch).
import { INPUT_DECIMALS, dec, hasAtMostDecimals, lotDateIssues, lotLineFields, lotNumberIssue, textIssue } from '@pits/domain';
import type { OpeningStockImportRow } from '@pits/persistence';
import type { RowIssue } from '../report/reject-report.js';
import type { Checked } from './area-row.js';

/** The columns of an opening-stock file; the lot columns may be left out when no product has lots. */
export const STOCK_COLUMNS = ['location_code', 'sku', 'lot_number', 'expiry_date', 'production_date', 'good'] as const;

/** The columns every opening-stock file carries. */
export const REQUIRED_STOCK_COLUMNS = ['location_code', 'sku', 'good'] as const;

const TEXT = { location_code: 50, sku: 100 } as const;

/** The largest quantity the service takes on input (the contract's MAX_QUANTITY, 15 significant digits with 4 places). */
const MAX_GOOD = '100000000000';

const DECIMAL_TEXT = /^\d+(\.\d+)?$/;

/** Why good units are refused: anything but a plain decimal above 0 with at most 4 places, up to MAX_GOOD. */
export const GOOD_ISSUE = `must be a plain number above 0 with at most ${INPUT_DECIMALS} decimal places (such as 12.5)`;

/** Checks opening-stock rows, refusing a location, SKU and lot the file already listed. */
export class StockRowChecker {
  readonly #seen = new Map<string, number>();

  check(line: number, input: Readonly<Record<string, string>>): Checked<OpeningStockImportRow> {
    const issues: RowIssue[] = [];
    const texts = { location_code: '', sku: '' };
    for (const [field, max] of Object.entries(TEXT) as [keyof typeof TEXT, number][]) {
      const value = input[field] ?? '';
      const unsafe = textIssue(value);
      const trimmed = value.trim();
      if (unsafe !== undefined) issues.push({ field, reason: unsafe });
      else if (trimmed === '') issues.push({ field, reason: 'is required' });
      else if (trimmed.length > max) issues.push({ field, reason: `must be at most ${max} characters` });
      else texts[field] = trimmed;
    }
    // A lot number is taken exactly as written (case counts, nothing trimmed): only an empty cell means "no lot".
    const lotNumber = (input.lot_number ?? '') === '' ? null : input.lot_number!;
    if (lotNumber !== null) {
      const issue = lotNumberIssue(lotNumber);
      if (issue !== undefined) issues.push({ field: 'lot_number', reason: issue });
    }
    const expiryDate = (input.expiry_date ?? '').trim() || null;
    const productionDate = (input.production_date ?? '').trim() || null;
    if (lotNumber === null) {
      // Dates without a lot would be dropped: a product without lots has no dates to keep.
      if (expiryDate !== null) issues.push({ field: 'expiry_date', reason: 'must be empty when lot_number is' });
      if (productionDate !== null) issues.push({ field: 'production_date', reason: 'must be empty when lot_number is' });
    } else {
      issues.push(...lotDateIssues({ expiryDate, productionDate }, lotLineFields('')).map((i) => ({ field: i.field, reason: i.issue })));
    }
    const goodText = (input.good ?? '').trim();
    let good: string | undefined;
    if (goodText === '') issues.push({ field: 'good', reason: 'is required' });
    else if (!DECIMAL_TEXT.test(goodText)) issues.push({ field: 'good', reason: GOOD_ISSUE });
    else {
      const amount = dec(goodText);
      if (amount.isZero() || !hasAtMostDecimals(amount, INPUT_DECIMALS)) issues.push({ field: 'good', reason: GOOD_ISSUE });
      else if (amount.gt(MAX_GOOD)) issues.push({ field: 'good', reason: `must be at most ${MAX_GOOD}` });
      else good = amount.toFixed();
    }
    if (issues.length > 0 || good === undefined) return { ok: false, issues };

    const key = JSON.stringify([texts.location_code, texts.sku, lotNumber]);
    const seen = this.#seen.get(key);
    if (seen !== undefined) {
      const what = lotNumber === null ? `location ${texts.location_code} and SKU ${texts.sku}` : `location ${texts.location_code}, SKU ${texts.sku} and lot ${lotNumber}`;
      return { ok: false, issues: [{ field: '', reason: `${what} are already on line ${seen}` }] };
    }
    this.#seen.set(key, line);
    return { ok: true, value: { location_code: texts.location_code, sku: texts.sku, lot_number: lotNumber, expiry_date: expiryDate, production_date: productionDate, good } };
  }
}
