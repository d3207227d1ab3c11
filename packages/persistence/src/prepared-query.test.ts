import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parameterShape, preparedQuery } from './prepared-query.js';
import { type TenantWorld, type TestDatabase, openTestDatabase, seedTenantWorld, testDialects } from './testing/index.js';

const dialects = await testDialects();
const NOW = new Date('2026-11-22T00:00:00.000Z');

describe('parameterShape', () => {
  it('keeps structure and SQL-changing values, hides values that only fill the SQL', () => {
    expect(parameterShape({ a: 1, b: 'x', c: new Date(0) })).toBe('{"a":$,"b":$,"c":$,}');
    expect(parameterShape({ a: undefined, b: null, c: true, d: false })).toBe('{"a":u,"b":n,"c":t,"d":f,}');
    expect(parameterShape({ ids: [1, 2, 3] })).toBe('{"ids":[$,$,$],}');
    expect(parameterShape({ ids: [1, 2] })).not.toBe(parameterShape({ ids: [1, 2, 3] }));
    // Key order decides column order in inserts, so it is part of the shape.
    expect(parameterShape({ a: 1, b: 2 })).not.toBe(parameterShape({ b: 2, a: 1 }));
  });
});

describe.each(dialects)('[%s] preparedQuery', (dialect) => {
  let t: TestDatabase;
  let world: TenantWorld;
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
    world = await seedTenantWorld(t.database, { now: NOW });
  });
  afterAll(() => t.cleanup());

  const byFilters = preparedQuery((scope, p: { tenantId: string; sku?: string | undefined; ids: number[]; limit: number }) => {
    let query = scope.db.selectFrom('products').select(['id', 'sku']).where('tenant_id', '=', p.tenantId).where('id', 'in', p.ids);
    if (p.sku !== undefined) query = query.where('sku', '=', p.sku);
    return query.orderBy('id').limit(p.limit);
  });

  it('compiles to exactly what Kysely builds from the values, with the values bound in order', () => {
    const params = { tenantId: world.tenant.id, sku: 'X-1', ids: [1, 2, 3], limit: 5 };
    const direct = t.database.db
      .selectFrom('products')
      .select(['id', 'sku'])
      .where('tenant_id', '=', params.tenantId)
      .where('id', 'in', params.ids)
      .where('sku', '=', params.sku)
      .orderBy('id')
      .limit(params.limit)
      .compile();
    const prepared = byFilters.compile(t.database, params);
    expect(prepared.sql).toBe(direct.sql);
    expect(prepared.parameters).toEqual(direct.parameters);
  });

  it('binds new values into the cached query and returns what the database holds', async () => {
    const ids = world.products.map((p) => p.id);
    const all = await byFilters.execute(t.database, { tenantId: world.tenant.id, ids, limit: 100 });
    expect(all.map((r) => r.id)).toEqual([...ids].sort((a, b) => a - b));
    const first = world.products[0]!;
    const one = await byFilters.execute(t.database, { tenantId: world.tenant.id, sku: first.sku, ids, limit: 100 });
    expect(one).toEqual([{ id: first.id, sku: first.sku }]);
    // A different list length is another shape, compiled on its own.
    const two = await byFilters.execute(t.database, { tenantId: world.tenant.id, ids: ids.slice(0, 2), limit: 1 });
    expect(two).toHaveLength(1);
    expect(await byFilters.takeFirst(t.database, { tenantId: 'no-such-tenant', ids, limit: 1 })).toBeUndefined();
  });

  it('builds once per shape: later calls of the shape only bind', async () => {
    let builds = 0;
    const counted = preparedQuery((scope, p: { tenantId: string; ids: number[] }) => {
      builds += 1;
      return scope.db.selectFrom('products').select('id').where('tenant_id', '=', p.tenantId).where('id', 'in', p.ids);
    });
    const [a, b, c] = world.products.map((p) => p.id);
    expect(await counted.execute(t.database, { tenantId: world.tenant.id, ids: [a!] })).toEqual([{ id: a }]);
    expect(await counted.execute(t.database, { tenantId: world.tenant.id, ids: [b!] })).toEqual([{ id: b }]);
    expect(await counted.execute(t.database, { tenantId: world.tenant.id, ids: [c!] })).toEqual([{ id: c }]);
    expect(builds).toBe(1);
    await counted.execute(t.database, { tenantId: world.tenant.id, ids: [a!, b!] });
    expect(builds).toBe(2);
  });

  it('keeps constants the build put in the SQL, and runs inside a transaction', async () => {
    const constant = preparedQuery((scope, p: { tenantId: string }) =>
      scope.db.selectFrom('products').select((eb) => eb.fn.countAll<number>().as('n')).where('tenant_id', '=', p.tenantId).where('deleted_at', 'is', null).where('sku', '!=', 'never-a-sku'),
    );
    const { n } = (await constant.takeFirst(t.database, { tenantId: world.tenant.id }))!;
    expect(Number(n)).toBe(world.products.length);
    const inTx = await t.database.db.transaction().execute((trx) => constant.takeFirst({ db: trx, dialect }, { tenantId: world.tenant.id }));
    expect(Number(inTx!.n)).toBe(world.products.length);
  });

  it('takes a raw sql template too', async () => {
    const raw = preparedQuery((_scope, p: { tenantId: string; skus: string[] }) =>
      sql<{ sku: string }>`select sku from products where tenant_id = ${p.tenantId} and sku in (${sql.join(p.skus)}) order by sku`,
    );
    const skus = world.products.slice(0, 2).map((p) => p.sku).sort();
    expect(await raw.execute(t.database, { tenantId: world.tenant.id, skus })).toEqual(skus.map((sku) => ({ sku })));
    expect(raw.compile(t.database, { tenantId: world.tenant.id, skus }).parameters).toEqual([world.tenant.id, ...skus]);
  });

  it('refuses a build that computes with a value instead of binding it', () => {
    const computing = preparedQuery((scope, p: { page: number; perPage: number }) =>
      scope.db.selectFrom('products').selectAll().limit(p.perPage).offset((p.page - 1) * p.perPage),
    );
    expect(() => computing.compile(t.database, { page: 2, perPage: 10 })).toThrow(/parameter "page"/);
    const inlining = preparedQuery((scope, p: { name: string }) => scope.db.selectFrom('products').selectAll().where(sql.lit(p.name), '=', 'x'));
    expect(() => inlining.compile(t.database, { name: 'a' })).toThrow(/parameter "name"/);
  });

  it('reports a run result with affected rows for writes', async () => {
    const rename = preparedQuery((scope, p: { id: number; name: string }) => scope.db.updateTable('products').set({ name: p.name }).where('id', '=', p.id));
    const product = world.products[1]!;
    const result = await rename.run(t.database, { id: product.id, name: 'Renamed' });
    expect(Number(result.numAffectedRows)).toBe(1);
    const after = await t.database.db.selectFrom('products').select('name').where('id', '=', product.id).executeTakeFirstOrThrow();
    expect(after.name).toBe('Renamed');
  });
});
