// A document's location and its lines' products: refused the same way whether they are read in one
// statement (lines naming products by id) or two (lines naming any by SKU), the location first.
import { AppError, type FieldIssue } from '@pits/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeWrite } from '../execution/execute.js';
import type { Scope } from '../execution/scope.js';
import { type TenantWorld, type TestDatabase, countingScope, openTestDatabase, seedTenantWorld, testDialects } from '../testing/index.js';
import { type ProductRef, requireLocationAndLineProducts } from './catalogue-checks.js';

const dialects = await testDialects();

async function refusal(promise: Promise<unknown>): Promise<{ field: string; issues: FieldIssue[] }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof AppError)) throw new Error(`expected a refusal, got ${String(error)}`);
  return { field: error.error.details.field, issues: error.error.issues ?? [error.error.details] };
}

describe.each(dialects)('[%s] a document\'s location and line products', (dialect) => {
  let t: TestDatabase;
  let w: TenantWorld;
  let other: TenantWorld;
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
    w = await seedTenantWorld(t.database, { products: 3, label: 'catalogue' });
    other = await seedTenantWorld(t.database, { products: 1, label: 'catalogue-other' });
  });
  afterAll(() => t.cleanup());

  const check = (scope: Scope, locationId: number, refs: ProductRef[]) => requireLocationAndLineProducts(scope, w.tenant.id, locationId, 'location_id', refs);

  it('reads lines that name products by id with their location in one statement, in line order', async () => {
    const counted = countingScope(t.database);
    const [p1, p2, p3] = w.products;
    const { location, products } = await check(counted.scope, w.locations[1].id, [{ productId: p3!.id }, { productId: p1!.id }, { productId: p2!.id }]);
    expect(counted.statements).toBe(1);
    expect(location).toMatchObject({ id: w.locations[1].id, tenantId: w.tenant.id, code: w.locations[1].code });
    expect(products.map((p) => [p.id, p.sku, p.costPrice])).toEqual([p3, p1, p2].map((p) => [p!.id, p!.sku, p!.costPrice]));
  });

  it('refuses another tenant\'s or an unknown location first, whatever the lines', async () => {
    for (const locationId of [other.locations[0].id, 999_999]) {
      expect(await refusal(check(t.database, locationId, [{ productId: w.products[0]!.id }]))).toMatchObject({ field: 'location_id' });
      expect(await refusal(check(t.database, locationId, [{ sku: w.products[0]!.sku }]))).toMatchObject({ field: 'location_id' });
      expect(await refusal(check(t.database, locationId, [{ productId: 999_999 }]))).toMatchObject({ field: 'location_id' });
    }
  });

  it('refuses unknown, foreign, deleted and repeated products together, on the lines that name them, by id or by SKU', async () => {
    const [p1, p2, p3] = w.products;
    await executeWrite(t.database, t.database.db.updateTable('products').set({ deleted_at: '2026-11-22T00:00:00.000Z' }).where('id', '=', p3!.id));
    const byId = await refusal(check(t.database, w.locations[0].id, [{ productId: p1!.id }, { productId: other.products[0]!.id }, { productId: p3!.id }, { productId: p1!.id }]));
    expect(byId.issues.map((i) => i.field)).toEqual(['items[1].product_id', 'items[2].product_id', 'items[3].product_id']);
    expect(byId.issues[2]!.issue).toBe('is the same product as items[0]');
    // A line by SKU reads the products apart from the location; the refusals are the same.
    const counted = countingScope(t.database);
    const mixed = await refusal(check(counted.scope, w.locations[0].id, [{ sku: p2!.sku }, { productId: other.products[0]!.id }, { productId: p2!.id }]));
    expect(counted.statements).toBe(3);
    expect(mixed.issues.map((i) => i.field)).toEqual(['items[1].product_id', 'items[2].product_id']);
  });
});
