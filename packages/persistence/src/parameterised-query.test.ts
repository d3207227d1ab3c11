import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute, executeTakeFirst, executeWrite } from './execution/execute.js';
import { type ParamRef, markedColumns, markedList, markedRows, preparedQuery } from './parameterised-query.js';
import { withTransaction } from './transaction.js';
import { type TenantWorld, type TestDatabase, openTestDatabase, seedTenantWorld, testDialects } from './testing/index.js';

const dialects = await testDialects();
const NOW = new Date('2026-11-22T00:00:00.000Z');

describe.each(dialects)('[%s] parameterised queries', (dialect) => {
  let t: TestDatabase;
  let world: TenantWorld;
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
    world = await seedTenantWorld(t.database, { now: NOW });
  });
  afterAll(() => t.cleanup());

  type Filters = { tenantId: string; name: string; ids: number[]; limit: number };
  // The build sees markers and the shape only: whether `name` is empty is decided by `shape` on
  // every call, so an empty name and a real one each get their own SQL.
  const byFilters = preparedQuery({
    shape: (p: Filters) => ({ named: p.name !== '', ids: p.ids.length }),
    build: (scope, param, shape) => {
      let query = scope.db
        .selectFrom('products')
        .select(['id', 'sku'])
        .where('tenant_id', '=', param('tenantId'))
        .where('id', 'in', Array.from({ length: shape.ids }, (_, i) => param('ids', i)));
      if (shape.named) query = query.where('name', '=', param('name'));
      return query.orderBy('id').limit(param('limit'));
    },
  });

  const plain = (p: Filters) => {
    let query = t.database.db.selectFrom('products').select(['id', 'sku']).where('tenant_id', '=', p.tenantId).where('id', 'in', p.ids);
    if (p.name) query = query.where('name', '=', p.name);
    return query.orderBy('id').limit(p.limit).compile();
  };

  it('a build cannot branch on a value: the truthiness case gives exactly what plain Kysely builds, in either order', () => {
    const ids = world.products.map((p) => p.id);
    const empty = { tenantId: world.tenant.id, name: '', ids, limit: 5 };
    const named = { tenantId: world.tenant.id, name: 'Product 1', ids, limit: 5 };
    for (const params of [empty, named, empty, named]) {
      const compiled = byFilters.compile(t.database, params);
      expect(compiled.sql).toBe(plain(params).sql);
      expect(compiled.parameters).toEqual(plain(params).parameters);
    }
  });

  it('binds new values into the template and returns what the database holds', async () => {
    const ids = world.products.map((p) => p.id);
    expect((await execute(t.database, byFilters.with({ tenantId: world.tenant.id, name: '', ids, limit: 100 }))).map((r) => r.id)).toEqual([...ids].sort((a, b) => a - b));
    const first = world.products[0]!;
    expect(await execute(t.database, byFilters.with({ tenantId: world.tenant.id, name: first.name, ids, limit: 100 }))).toEqual([{ id: first.id, sku: first.sku }]);
    expect(await executeTakeFirst(t.database, byFilters.with({ tenantId: 'no-such-tenant', name: '', ids, limit: 1 }))).toBeUndefined();
  });

  it('builds once per shape: later calls of a shape only bind', async () => {
    let builds = 0;
    const counted = preparedQuery({
      shape: (p: { tenantId: string; ids: number[] }) => p.ids.length,
      build: (scope, param, count) => {
        builds += 1;
        return scope.db.selectFrom('products').select('id').where('tenant_id', '=', param('tenantId')).where('id', 'in', Array.from({ length: count }, (_, i) => param('ids', i)));
      },
    });
    const [a, b, c] = world.products.map((p) => p.id);
    for (const id of [a!, b!, c!]) expect(await execute(t.database, counted.with({ tenantId: world.tenant.id, ids: [id] }))).toEqual([{ id }]);
    expect(builds).toBe(1);
    await execute(t.database, counted.with({ tenantId: world.tenant.id, ids: [a!, b!] }));
    expect(builds).toBe(2);
  });

  it('keeps constants, takes raw sql, runs in a transaction, and inserts marked rows', async () => {
    const count = preparedQuery({
      build: (scope, param: ParamRef<{ tenantId: string }>) =>
        scope.db.selectFrom('products').select((eb) => eb.fn.countAll<number>().as('n')).where('tenant_id', '=', param('tenantId')).where('sku', '!=', 'never-a-sku'),
    });
    expect(Number((await executeTakeFirst(t.database, count.with({ tenantId: world.tenant.id })))!.n)).toBe(world.products.length);
    const inTx = await withTransaction(t.database, (tx) => executeTakeFirst(tx, count.with({ tenantId: world.tenant.id })));
    expect(Number(inTx!.n)).toBe(world.products.length);

    const raw = preparedQuery({
      shape: (p: { tenantId: string; skus: string[] }) => p.skus.length,
      build: (_scope, param, n) =>
        sql<{ sku: string }>`select sku from products where tenant_id = ${param('tenantId')} and sku in (${sql.join(Array.from({ length: n }, (_, i) => param('skus', i)))}) order by sku`,
    });
    const skus = world.products.slice(0, 2).map((p) => p.sku).sort();
    expect(await execute(t.database, raw.with({ tenantId: world.tenant.id, skus }))).toEqual(skus.map((sku) => ({ sku })));

    const rename = preparedQuery({
      shape: (p: { rows: { id: number; name: string }[] }) => p.rows.length,
      build: (scope, param, n) =>
        scope.db.insertInto('tenants').values(markedRows(param, 'rows', n, ['id', 'name'] as const).map((r) => ({ id: String(r.id), name: r.name, tenant_type: 'live', created_at: NOW.toISOString(), updated_at: NOW.toISOString() }))),
    });
    expect(() => rename.compile(t.database, { rows: [{ id: 1, name: 'x' }] })).toThrow(/parameter "rows.0.id"/);
  });

  it('refuses a build that computes with a value instead of binding it', () => {
    const computing = preparedQuery({
      build: (scope, param: ParamRef<{ page: number; perPage: number }>) => scope.db.selectFrom('products').selectAll().limit(param('perPage')).offset((param('page') - 1) * param('perPage')),
    });
    expect(() => computing.compile(t.database, { page: 2, perPage: 10 })).toThrow(/parameter "page"/);
    const inlining = preparedQuery({ build: (scope, param: ParamRef<{ name: string }>) => scope.db.selectFrom('products').selectAll().where(sql.lit(param('name')), '=', 'x') });
    expect(() => inlining.compile(t.database, { name: 'a' })).toThrow(/parameter "name"/);
  });

  it('refuses a list bound whole, and binds one element by element with markedList', async () => {
    const whole = preparedQuery({
      build: (scope, param: ParamRef<{ ids: number[] }>) => scope.db.selectFrom('products').select('id').where('id', 'in', param('ids') as unknown as number),
    });
    expect(() => whole.compile(t.database, { ids: [1, 2] })).toThrow(/"ids" is a list bound as one value/);
    const listed = preparedQuery({
      shape: (p: { ids: number[] }) => p.ids.length,
      build: (scope, param: ParamRef<{ ids: number[] }>, n) => scope.db.selectFrom('products').select('id').where('id', 'in', markedList(param, 'ids', n)).orderBy('id'),
    });
    const ids = world.products.slice(0, 2).map((p) => p.id);
    expect((await execute(t.database, listed.with({ ids }))).map((r) => r.id)).toEqual([...ids].sort((a, b) => a - b));
  });

  it('binds every column of a one-row insert by name with markedColumns', async () => {
    const insert = preparedQuery({
      build: (scope, param: ParamRef<{ id: string; name: string; tenant_type: 'live'; created_at: string; updated_at: string }>) =>
        scope.db.insertInto('tenants').values(markedColumns(param, ['id', 'name', 'tenant_type', 'created_at', 'updated_at'] as const)),
    });
    const at = NOW.toISOString();
    await executeWrite(t.database, insert.with({ id: 'marked-columns-tenant', name: 'Marked', tenant_type: 'live', created_at: at, updated_at: at }));
    const row = await t.database.db.selectFrom('tenants').select(['name']).where('id', '=', 'marked-columns-tenant').executeTakeFirst();
    expect(row).toEqual({ name: 'Marked' });
  });

  it('reports affected rows for writes', async () => {
    const rename = preparedQuery({
      build: (scope, param: ParamRef<{ id: number; name: string }>) => scope.db.updateTable('products').set({ name: param('name') }).where('id', '=', param('id')),
    });
    const product = world.products[1]!;
    expect((await executeWrite(t.database, rename.with({ id: product.id, name: 'Renamed' }))).affectedRows).toBe(1);
  });
});
