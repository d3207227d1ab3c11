// Area search: the regions above the villages (provinces, cities, districts) with their lower-cased
// names and village counts, and substring indexes on the names — FTS5 trigram tables on SQLite,
// pg_trgm GIN indexes on PostgreSQL. Frozen once landed.
import { type Kysely, sql } from 'kysely';
import type { MigrationContext } from './migration-context.js';

const LEVELS = [
  ['province', 'state_code', 'state_search'],
  ['city', 'city_code', 'city_search'],
  ['district', 'district_code', 'district_search'],
] as const;

export async function up(db: Kysely<unknown>, { dialect, types: t, idColumn }: MigrationContext): Promise<void> {
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

  if (dialect === 'sqlite') {
    // External-content tables: the text stays in areas / area_regions; the import keeps the
    // indexes in step in the same transaction as the rows (set-based, far cheaper than triggers).
    await sql`create virtual table areas_fts using fts5(subdistrict_search, content='areas', content_rowid='region_id', tokenize='trigram', columnsize=0)`.execute(db);
    await sql`create virtual table area_regions_fts using fts5(name_search, content='area_regions', content_rowid='id', tokenize='trigram', columnsize=0)`.execute(db);
    await sql`insert into areas_fts(areas_fts) values ('rebuild')`.execute(db);
    await sql`insert into area_regions_fts(area_regions_fts) values ('rebuild')`.execute(db);
    return;
  }

  // pg_trgm lives in one schema of the database (public unless it was installed elsewhere), never
  // in a schema of its own that a test or tenant could drop; the operator class is named with it.
  const available = await sql<{ n: number }>`select count(*)::int as n from pg_available_extensions where name = 'pg_trgm'`.execute(db);
  if ((available.rows[0]?.n ?? 0) === 0) return; // without pg_trgm, substring search scans (correct, slower)
  let installed = await sql<{ schema: string }>`select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'`.execute(db);
  if (installed.rows.length === 0) {
    const hasPublic = await sql<{ n: number }>`select count(*)::int as n from pg_namespace where nspname = 'public'`.execute(db);
    await ((hasPublic.rows[0]?.n ?? 0) > 0 ? sql`create extension if not exists pg_trgm with schema public` : sql`create extension if not exists pg_trgm`).execute(db);
    installed = await sql<{ schema: string }>`select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'`.execute(db);
  }
  const opclass = sql`${sql.id(installed.rows[0]!.schema)}.gin_trgm_ops`;
  await sql`create index areas_subdistrict_search_trgm_idx on areas using gin (subdistrict_search ${opclass})`.execute(db);
  await sql`create index area_regions_name_search_trgm_idx on area_regions using gin (name_search ${opclass})`.execute(db);
}

export async function down(db: Kysely<unknown>, { dialect }: MigrationContext): Promise<void> {
  if (dialect === 'sqlite') {
    await sql`drop table if exists areas_fts`.execute(db);
    await sql`drop table if exists area_regions_fts`.execute(db);
  } else {
    await sql`drop index if exists areas_subdistrict_search_trgm_idx`.execute(db);
  }
  await db.schema.dropTable('area_regions').execute();
}
