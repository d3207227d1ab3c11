import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containsLower, isCheckViolation, isTransientConflict, isUniqueViolation } from './dialect.js';
import { createTenant } from './repositories/tenant-repository.js';
import { withTransaction } from './transaction.js';
import { type TestDatabase, openTestDatabase, seedTenantWorld, testDialects } from './testing/index.js';

const dialects = await testDialects();
const NOW = new Date('2026-11-22T00:00:00.000Z');

async function caught(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(() => undefined, (e: unknown) => e);
}

describe.each(dialects)('[%s] dialect differences', (dialect) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
  });
  afterAll(() => t.cleanup());

  it('recognises a unique violation and a CHECK violation the same way on both drivers', async () => {
    const tenant = await createTenant(t.database, { name: 'T' }, NOW);
    const duplicate = await caught(createTenant(t.database, { name: 'T2', id: tenant.id }, NOW));
    expect(isUniqueViolation(duplicate)).toBe(true);
    expect(isCheckViolation(duplicate)).toBe(false);
    const check = await caught(
      t.database.db.insertInto('partners').values({ name: 'p', email: 'e', tier: 'huge' as 'small', app_id: 'a', app_key: 'k', created_at: NOW.toISOString(), updated_at: NOW.toISOString() }).execute(),
    );
    expect(isCheckViolation(check)).toBe(true);
    expect(isUniqueViolation(check)).toBe(false);
    expect(isTransientConflict(check)).toBe(false);
    expect(isUniqueViolation(new Error('plain'))).toBe(false);
    expect(isTransientConflict({ code: 'SQLITE_BUSY' })).toBe(true);
    expect(isTransientConflict({ code: '40P01' })).toBe(true);
  });

  it('rolls a transaction back whole when it throws', async () => {
    const error = await caught(
      withTransaction(t.database, async (tx) => {
        await createTenant(tx, { name: 'rolled back', id: '00000000-0000-4000-8000-000000000001' }, NOW);
        throw new Error('boom');
      }),
    );
    expect((error as Error).message).toBe('boom');
    const rows = await t.database.db.selectFrom('tenants').select('id').where('id', '=', '00000000-0000-4000-8000-000000000001').execute();
    expect(rows).toEqual([]);
  });

  it('keeps stock_ledger rows immutable', async () => {
    await seedTenantWorld(t.database, { products: 1, openingGood: '3', label: 'Ledger' });
    const [row] = await t.database.db.selectFrom('stock_ledger').select('id').execute();
    expect(row).toBeDefined();
    expect(String(await caught(sql`update stock_ledger set actor = 'someone else' where id = ${row!.id}`.execute(t.database.db)))).toMatch(/immutable/);
    expect(String(await caught(sql`delete from stock_ledger where id = ${row!.id}`.execute(t.database.db)))).toMatch(/immutable/);
  });

  it('matches a lower-cased substring with LIKE wildcards taken literally', async () => {
    const rows = await sql<{ hit: number }>`select case when ${containsLower(sql<string>`'kota 50% bandung_x'`, '50%')} then 1 else 0 end as hit`.execute(t.database.db);
    expect(Number(rows.rows[0]?.hit)).toBe(1);
    const miss = await sql<{ hit: number }>`select case when ${containsLower(sql<string>`'kota 50x bandung'`, '50%')} then 1 else 0 end as hit`.execute(t.database.db);
    expect(Number(miss.rows[0]?.hit)).toBe(0);
  });
});
