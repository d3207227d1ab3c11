// The shared update of a product or a location: which columns a change sets, and the statement
// that writes them, on every dialect.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestDatabase, openTestDatabase, testDialects } from '../testing/index.js';
import { changedColumns, stampedUpdate } from './row-changes.js';

const dialects = await testDialects();

describe('changedColumns', () => {
  const columns = { name: 'name', isDefault: 'is_default', city: 'city', originCode: 'origin_code' } as const;

  it('sets each given field under its column, booleans as 0 | 1, and leaves absent fields out', () => {
    expect(changedColumns({ name: 'Gudang', isDefault: true, city: undefined, originCode: null }, columns)).toEqual({ name: 'Gudang', is_default: 1, origin_code: null });
    expect(changedColumns({ isDefault: false }, columns)).toEqual({ is_default: 0 });
    expect(changedColumns({}, columns)).toEqual({});
  });

  it('writes a value as `store` says, in the order the change gives the fields', () => {
    const set = changedColumns({ city: 'bogor', name: 'x' }, columns, (field, value) => (field === 'city' ? (value as string).toUpperCase() : (value as string)));
    expect(set).toEqual({ city: 'BOGOR', name: 'x' });
    expect(Object.keys(set)).toEqual(['city', 'name']);
  });
});

describe.each(dialects)('[%s] stampedUpdate', (dialect) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
  });
  afterAll(() => t.cleanup());

  const change = { tenantId: 't-1', id: 7, set: { name: 'After' }, actor: 'ops', now: new Date('2026-11-22T08:00:00.000Z') };

  it('stamps the actor and time, matches the tenant and id, and returns the row', () => {
    const compiled = stampedUpdate(t.database, 'products', { ...change, live: false }).compile();
    expect(compiled.sql).toMatch(/^update "products" set "name" = \S+, "updated_by" = \S+, "updated_at" = \S+ where "tenant_id" = \S+ and "id" = \S+ returning \*$/);
    expect(compiled.parameters).toEqual(['After', 'ops', '2026-11-22T08:00:00.000Z', 't-1', 7]);
  });

  it('matches only a live row when asked', () => {
    const compiled = stampedUpdate(t.database, 'locations', { ...change, live: true }).compile();
    expect(compiled.sql).toMatch(/^update "locations" set .* where "tenant_id" = \S+ and "id" = \S+ and "deleted_at" is null returning \*$/);
  });
});
