// Area search: the regions above the villages (provinces, cities, districts) with their lower-cased
// names and village counts, and substring indexes on the names (each dialect's own kind, see
// createAreaSubstringIndexes). Frozen once landed.
import { type Kysely, sql } from 'kysely';
import type { MigrationContext } from './migration-context.js';

const LEVELS = [
  ['province', 'state_code', 'state_search'],
  ['city', 'city_code', 'city_search'],
  ['district', 'district_code', 'district_search'],
] as const;

export async function up(db: Kysely<unknown>, { types: t, idColumn, createAreaSubstringIndexes }: MigrationContext): Promise<void> {
  await db.schema
    .createTable('area_regions')
    .addColumn('id', t.id, idColumn)
    .addColumn('level', t.text, (c) => c.notNull().check(sql`level in ('province', 'city', 'district')`))
    .addColumn('code', t.text, (c) => c.notNull())
    .addColumn('name_search', t.text, (c) => c.notNull())
    .addColumn('area_count', t.bigint, (c) => c.notNull().defaultTo(0))
    .addUniqueConstraint('area_regions_level_code_key', ['level', 'code'])
    .execute();
  // Areas loaded before this migration get their regions now.
  for (const [level, code, name] of LEVELS) {
    await sql`insert into area_regions (level, code, name_search, area_count)
      select ${level}, ${sql.ref(code)}, min(${sql.ref(name)}), count(*) from areas group by ${sql.ref(code)}`.execute(db);
  }

  await createAreaSubstringIndexes(db);
}

export async function down(db: Kysely<unknown>, { dropAreaSubstringIndexes }: MigrationContext): Promise<void> {
  await dropAreaSubstringIndexes(db);
  await db.schema.dropTable('area_regions').execute();
}
