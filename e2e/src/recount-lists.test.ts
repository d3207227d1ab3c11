// `npm run recount-lists` as an operator runs it after an upgrade past migration 014
// (docs/operating-guarantees.md#upgrading): the built command on a SQLite file whose adjustment
// totals were counted twice, as a process from before 014 would leave them. It names the tenant it
// repaired, leaves the totals right, finds nothing on a second run, and refuses an unusable URL.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDatabase, findListCountMismatches, migrateOrThrow } from '@pits/persistence';
import { seedTenantWorld } from '@pits/persistence/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnChild } from './harness/child-process.js';

const run = async (databaseUrl: string) => {
  const child = spawnChild({ name: 'recount-lists', script: 'packages/persistence/dist/bin/recount-lists.js', builtBy: '@pits/persistence', env: { DATABASE_URL: databaseUrl }, stopGraceMs: 5_000 });
  const exit = await child.exited;
  await child.drained;
  return { code: exit.code, output: child.output().join('\n') };
};

describe('npm run recount-lists', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pits-e2e-recount-'));
  const file = join(dir, 'pits.sqlite');
  let tenantId = '';

  beforeAll(async () => {
    const database = createDatabase({ dialect: 'sqlite', location: file });
    try {
      await migrateOrThrow(database);
      const w = await seedTenantWorld(database, { openingGood: '10' });
      tenantId = w.tenant.id;
      // What a process from before 014 leaves behind: a count its documents do not have.
      await database.db.insertInto('adjustment_list_counts').values({ tenant_id: tenantId, status: 'pending', location_id: w.locations[0]!.id, type: 'increase', count: 1 }).execute();
      expect(await findListCountMismatches(database, tenantId)).toHaveLength(1);
    } finally {
      await database.destroy();
    }
  }, 60_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('rebuilds the totals that drifted, names the tenant, and finds nothing the second time', async () => {
    const first = await run(file);
    expect(first.code, first.output).toBe(0);
    expect(first.output).toContain(`tenant ${tenantId}: 1 list total rebuilt`);
    expect(first.output).toMatch(/1 tenant checked, 1 repaired, on sqlite:/);
    const database = createDatabase({ dialect: 'sqlite', location: file });
    try {
      expect(await findListCountMismatches(database, tenantId)).toEqual([]);
    } finally {
      await database.destroy();
    }
    const second = await run(file);
    expect(second.code, second.output).toBe(0);
    expect(second.output).toMatch(/1 tenant checked, 0 repaired/);
  }, 60_000);

  it('refuses a URL it cannot use, with exit code 2', async () => {
    const refused = await run('mysql://db.internal/pits');
    expect(refused.code, refused.output).toBe(2);
    expect(refused.output).toContain('DATABASE_URL');
  }, 30_000);
});
