// Migrations are frozen: the SQL each one sends must never change. This runs every migration's up
// (then every down, newest first) on a fresh database of each dialect, records the statements
// sent, and compares them byte for byte with the text committed beside this test (recorded before
// the dialect-specific DDL moved out of the migrations into the dialects' named operations).
import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createDatabase } from '../create-database.js';
import { MIGRATIONS } from '../migrations/index.js';
import { migrationContext } from '../migrations/migration-context.js';
import { testDialects } from '../testing/index.js';
import { dialectNamed } from './dialect-registry.js';

const dialects = await testDialects();

describe.each(dialects)('[%s] migrations send exactly the SQL they always sent', (name) => {
  it('up and down of every migration, statement by statement', async () => {
    const dialect = dialectNamed(name);
    const lines: string[] = [];
    const throwaway = await dialect.testing.createThrowaway(process.env, { shared: false, poolSize: 1 });
    const database = createDatabase(throwaway.config, {
      onQuery: (text, parameters) => {
        lines.push(`${text};`);
        if (parameters.length > 0) lines.push(`-- parameters: ${JSON.stringify(parameters)}`);
      },
    });
    try {
      const db = database.db as unknown as Kysely<unknown>;
      const context = migrationContext(dialect);
      const names = Object.keys(MIGRATIONS);
      for (const migration of names) {
        lines.push(`-- up ${migration}`);
        await MIGRATIONS[migration]!.up(db, context);
      }
      for (const migration of [...names].reverse()) {
        const down = MIGRATIONS[migration]!.down;
        if (!down) continue;
        lines.push(`-- down ${migration}`);
        await down(db, context);
      }
    } finally {
      await database.destroy();
      await throwaway.drop();
    }
    await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot(`./emitted-ddl/${name}.sql`);
  });
});
