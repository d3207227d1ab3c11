// The stock invariants, checked at the end of every e2e suite: for every stock row and bucket, the
// sum of its ledger rows equals its balance (docs/stock-rules.md#ledger), and what it keeps for
// order holds and for transfers equals the active holds and the approved transfers
// (docs/holds.md#stock-effect). Asked of the internal API's on-call checks (`stock.checkLedger`
// and `stock.verify` without a tenant: every tenant of the database).
import { expect } from 'vitest';
import type { ServiceStack } from './service-stack.js';

/**
 * Expects `balanced: true`, no ledger mismatches and an empty `stock.verify` over every tenant of
 * the stack's database.
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
  expect(await stack.internal.stock.verify.query({}), 'every stock row: held quantities match the holds and transfers that keep them').toEqual([]);
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
