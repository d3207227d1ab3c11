// The ledger invariant (docs/stock-rules.md#ledger), checked at the end of every e2e suite: for every stock row
// and bucket, the sum of its ledger rows equals its balance. Asked of the internal API's on-call
// check (`stock.checkLedger` without a tenant: every tenant of the database).
import { expect } from 'vitest';
import type { ServiceStack } from './service-stack.js';

/**
 * Expects `balanced: true` and no mismatches over every tenant of the stack's database.
 *
 * @example
 * afterAll(async () => {
 *   await expectLedgerBalanced(stack);
 *   await stack.stop();
 * });
 */
export async function expectLedgerBalanced(stack: Pick<ServiceStack, 'internal'>): Promise<void> {
  const result = await stack.internal.stock.checkLedger.query({});
  expect(result.mismatches, 'every stock row: its ledger sums to its balance').toEqual([]);
  expect(result.balanced).toBe(true);
}

/**
 * The ledger check, then `stop()` whatever the check found (a failed check is rethrown after the
 * processes are down). Does nothing when the stack never started.
 *
 * @example
 * afterAll(() => stopAfterLedgerCheck(stack));
 */
export async function stopAfterLedgerCheck(stack: ServiceStack | undefined): Promise<void> {
  if (stack === undefined) return;
  try {
    await expectLedgerBalanced(stack);
  } finally {
    await stack.stop();
  }
}
