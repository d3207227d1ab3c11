// npm run bench:areas — on a fresh SQLite and a fresh PostgreSQL database, in one run:
//   1. the full areas_id.csv the importer ships (apps/importer/assets, decompressed once to a
//      temporary plain CSV so that gunzip is not timed) through the importer (rows per second), next to the
//      driver's own bulk insert of the same rows into the same table (better-sqlite3 prepared
//      statement in one transaction; COPY FROM STDIN);
//   2. 1,000 area searches of mixed kinds: the repository's in-process query time next to the same
//      plan issued directly on the driver (p50/p99), then through the gateway process (p50/p99);
//   3. requests per second of the gateway's area search under load next to a bare Koa route that
//      runs the same searches directly on the driver.
// Both sides of every comparison run on this machine in this run. BENCH_SECONDS (default 10) sets
// the load duration; TEST_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/test) the server.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { importAreasFile, createRejectReport, silentProgress } from '@pits/importer';
import { type AreaSearch, type Database, type DatabaseConfig, createApiKey, createDatabase, createPartner, migrateOrThrow, searchAreas } from '@pits/persistence';
import { AREAS_FILE, readAreaRecords, readAreaText, testPostgresUrl } from '@pits/persistence/testing';
import { ROOT, freePort, load, printTable, startNode } from './bench-harness.js';
import { type RawDriver, postgresDriver, rawSearchAreas, sqliteDriver } from './raw-area-search.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const records = readAreaRecords();
const dir = mkdtempSync(join(tmpdir(), 'pits-areas-bench-'));
const areasCsv = join(dir, 'areas_id.csv');
writeFileSync(areasCsv, readAreaText(AREAS_FILE));
const credentialsKey = 'b'.repeat(64);

// ---------------------------------------------------------------------------------------------
// The search mix: 1,000 searches drawn with a fixed seed from the file's own names and postcodes.

function random(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

interface MixedSearch {
  kind: string;
  search: AreaSearch;
  page: number;
}

function searchMix(n: number): MixedSearch[] {
  const rnd = random(6);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const piece = (name: string) => {
    const words = name.split(' ').filter((w) => w.length >= 4);
    const word = words.length > 0 ? pick(words) : name;
    const length = Math.min(word.length, 4 + Math.floor(rnd() * 4));
    const start = Math.floor(rnd() * (word.length - length + 1));
    return word.slice(start, start + length);
  };
  const page = () => (rnd() < 0.7 ? 1 : 2 + Math.floor(rnd() * 5));
  const kinds: [string, number, () => MixedSearch][] = [
    ['all areas', 0.12, () => ({ kind: 'all areas', search: {}, page: rnd() < 0.8 ? page() : 1 + Math.floor(rnd() * 4000) })],
    ['province', 0.14, () => ({ kind: 'province', search: { searchBy: 'province', searchValue: piece(pick(records).state) }, page: page() })],
    ['city', 0.14, () => ({ kind: 'city', search: { searchBy: 'city', searchValue: piece(pick(records).city) }, page: page() })],
    ['district', 0.14, () => ({ kind: 'district', search: { searchBy: 'district', searchValue: piece(pick(records).district) }, page: page() })],
    ['subdistrict', 0.16, () => ({ kind: 'subdistrict', search: { searchBy: 'subdistrict', searchValue: piece(pick(records).subdistrict) }, page: page() })],
    ['postcode', 0.12, () => ({ kind: 'postcode', search: { searchBy: 'subdistrict', searchValue: pick(records).postcode }, page: 1 })],
    ['any level', 0.18, () => ({ kind: 'any level', search: { searchValue: piece(pick(records).city) }, page: page() })],
  ];
  return Array.from({ length: n }, () => {
    let x = rnd();
    for (const [, share, make] of kinds) {
      if ((x -= share) < 0) return make();
    }
    return kinds[0]![2]();
  });
}

const mix = searchMix(1000);
const PER_PAGE = 20;
const queryString = (m: MixedSearch) =>
  new URLSearchParams({
    page: String(m.page),
    per_page: String(PER_PAGE),
    ...(m.search.searchBy ? { search_by: m.search.searchBy } : {}),
    ...(m.search.searchValue ? { search_value: m.search.searchValue } : {}),
  }).toString();

// ---------------------------------------------------------------------------------------------

const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
const ms = (x: number) => x.toFixed(2).padStart(8);
const rate = (rows: number, millis: number) => Math.round((rows * 1000) / millis);

interface Target {
  name: 'sqlite' | 'postgres';
  config: DatabaseConfig;
  /** DATABASE_URL for child processes. */
  url: string;
  raw(): RawDriver & { close(): Promise<void> };
  /** The driver's own bulk insert of `records` into a fresh, migrated database; returns milliseconds. */
  bulkInsert(): Promise<number>;
  dropAll(): Promise<void>;
}

const INSERT_COLUMNS = ['country', 'country_code', 'state', 'state_code', 'city', 'city_code', 'district', 'district_code', 'subdistrict', 'subdistrict_code', 'postcode', 'latitude', 'longitude'] as const;
const fullRow = (r: (typeof records)[number], at: string) => [
  ...INSERT_COLUMNS.map((c) => r[c]),
  r.state.toLowerCase(),
  r.city.toLowerCase(),
  r.district.toLowerCase(),
  r.subdistrict.toLowerCase(),
  at,
  at,
];
const ALL_COLUMNS = [...INSERT_COLUMNS, 'state_search', 'city_search', 'district_search', 'subdistrict_search', 'created_at', 'updated_at'];

function sqliteTarget(): Target {
  const location = join(dir, 'areas.sqlite');
  return {
    name: 'sqlite',
    config: { dialect: 'sqlite', location },
    url: location,
    raw() {
      const handle = new BetterSqlite3(location, { readonly: true });
      return {
        ...sqliteDriver(handle),
        close: async () => {
          handle.close();
        },
      };
    },
    async bulkInsert() {
      const location2 = join(dir, 'bulk.sqlite');
      const fresh = createDatabase({ dialect: 'sqlite', location: location2 });
      await migrateOrThrow(fresh);
      await fresh.destroy();
      const handle = new BetterSqlite3(location2);
      handle.pragma('journal_mode = WAL');
      handle.pragma('synchronous = NORMAL');
      const at = new Date().toISOString();
      const started = performance.now();
      const insert = handle.prepare(`insert into areas (${ALL_COLUMNS.join(', ')}) values (${ALL_COLUMNS.map(() => '?').join(', ')})`);
      handle.transaction(() => {
        for (const r of records) insert.run(...fullRow(r, at));
      })();
      const elapsed = performance.now() - started;
      handle.close();
      return elapsed;
    },
    async dropAll() {},
  };
}

function postgresTarget(): Target {
  const base = testPostgresUrl();
  const schema = `pits_bench_${randomBytes(4).toString('hex')}`;
  const bulkSchema = `${schema}_bulk`;
  const withSchema = (s: string) => {
    const u = new URL(base);
    u.searchParams.set('options', `-c search_path=${s}`);
    return u.toString();
  };
  const admin = async (text: string) => {
    const client = new pg.Client({ connectionString: base });
    await client.connect();
    try {
      await client.query(text);
    } finally {
      await client.end();
    }
  };
  return {
    name: 'postgres',
    config: { dialect: 'postgres', url: base, schema },
    url: withSchema(schema),
    raw() {
      const pool = new pg.Pool({ connectionString: withSchema(schema), max: 10 });
      return { ...postgresDriver(pool), close: () => pool.end() };
    },
    async bulkInsert() {
      await admin(`create schema ${bulkSchema}`);
      const fresh = createDatabase({ dialect: 'postgres', url: base, schema: bulkSchema });
      await migrateOrThrow(fresh);
      await fresh.destroy();
      const client = new pg.Client({ connectionString: withSchema(bulkSchema) });
      await client.connect();
      const at = new Date().toISOString();
      const escape = (v: string) => v.replace(/[\\\t\n\r]/g, (c) => ({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' })[c]!);
      const started = performance.now();
      await pipeline(
        Readable.from(
          (function* () {
            let chunk = '';
            for (const r of records) {
              chunk += `${fullRow(r, at).map(escape).join('\t')}\n`;
              if (chunk.length > 65_536) {
                yield chunk;
                chunk = '';
              }
            }
            if (chunk) yield chunk;
          })(),
        ),
        client.query(copyFrom(`copy areas (${ALL_COLUMNS.join(', ')}) from stdin`)),
      );
      const elapsed = performance.now() - started;
      await client.end();
      return elapsed;
    },
    async dropAll() {
      await admin(`drop schema if exists ${schema} cascade; drop schema if exists ${bulkSchema} cascade`);
    },
  };
}

async function benchTarget(target: Target): Promise<void> {
  console.log(`\n== ${target.name} ==`);
  if (target.name === 'postgres') await (async () => {
    const client = new pg.Client({ connectionString: testPostgresUrl() });
    await client.connect();
    await client.query(`create schema ${(target.config as { schema: string }).schema}`);
    await client.end();
  })();
  const database: Database = createDatabase(target.config);
  await migrateOrThrow(database);

  // 1. Import, and the driver's bulk insert of the same rows.
  const report = createRejectReport(join(dir, `${target.name}.rejected.csv`));
  const imported = await importAreasFile({ database, batchSize: 2000, dryRun: false, report, progress: silentProgress }, areasCsv);
  await report.close();
  if (imported.inserted !== records.length) throw new Error(`import inserted ${imported.inserted} of ${records.length}`);
  const bulkMs = await target.bulkInsert();
  const importRate = Math.round(imported.read / imported.seconds);
  const bulkRate = rate(records.length, bulkMs);
  console.log(`import of ${records.length} rows: ${(imported.seconds * 1000).toFixed(0)} ms, ${importRate} rows/s (CSV parse, checks, upsert, regions, search index)`);
  console.log(`driver bulk insert (${target.name === 'sqlite' ? 'prepared statement, one transaction' : 'COPY FROM STDIN'}): ${bulkMs.toFixed(0)} ms, ${bulkRate} rows/s`);
  console.log(`import / bulk insert: ${((importRate / bulkRate) * 100).toFixed(0)}% (goal: at least 25%)`);

  // 2. In-process query time: repository vs the same plan on the driver, same searches, same answers.
  const raw = target.raw();
  const repoTimes: number[] = [];
  const rawTimes: number[] = [];
  const byKind = new Map<string, { repo: number[]; raw: number[] }>();
  for (let round = 0; round < 2; round += 1) {
    for (const m of mix) {
      const page = { page: m.page, perPage: PER_PAGE };
      let t = performance.now();
      const mine = await searchAreas(database, m.search, page);
      const repoMs = performance.now() - t;
      t = performance.now();
      const theirs = await rawSearchAreas(raw, { ...m.search, page: m.page, perPage: PER_PAGE });
      const rawMs = performance.now() - t;
      if (mine.total !== theirs.total || mine.rows.map((r) => r.subdistrictCode).join() !== theirs.rows.map((r) => r.subdistrict_code).join()) {
        throw new Error(`repository and driver disagree on ${JSON.stringify(m)}`);
      }
      if (round === 0) continue; // the first round warms caches and checks answers
      repoTimes.push(repoMs);
      rawTimes.push(rawMs);
      const k = byKind.get(m.kind) ?? { repo: [], raw: [] };
      k.repo.push(repoMs);
      k.raw.push(rawMs);
      byKind.set(m.kind, k);
    }
  }
  console.log(`\nin-process query time of ${mix.length} mixed searches (ms)`);
  console.log(`${'kind'.padEnd(14)} ${'n'.padStart(5)} ${'repo p50'.padStart(8)} ${'raw p50'.padStart(8)} ${'repo p99'.padStart(8)} ${'raw p99'.padStart(8)}`);
  for (const [kind, k] of [...byKind, ['all', { repo: repoTimes, raw: rawTimes }] as const]) {
    console.log(`${kind.padEnd(14)} ${String(k.repo.length).padStart(5)} ${ms(percentile(k.repo, 50))} ${ms(percentile(k.raw, 50))} ${ms(percentile(k.repo, 99))} ${ms(percentile(k.raw, 99))}`);
  }
  const sumRepo = repoTimes.reduce((a, b) => a + b, 0);
  const sumRaw = rawTimes.reduce((a, b) => a + b, 0);
  console.log(`repository / driver, total time: ${(sumRepo / sumRaw).toFixed(2)}x (goal: at most 2x)`);

  // 3. Through the gateway process: latency of the same 1,000 searches, then load vs a bare Koa route.
  const partner = await createPartner(database, { name: 'Bench', email: 'bench@example.test', tier: 'large' }, new Date());
  const key = (await createApiKey(database, partner.id, { environment: 'test' }, new Date())).secret;
  await database.destroy();
  await raw.close();
  const gatewayPort = await freePort();
  const gateway = await startNode([join(ROOT, 'apps/gateway/dist/main.js')], {
    DATABASE_URL: target.url,
    CREDENTIALS_KEY: credentialsKey,
    GATEWAY_HOST: '127.0.0.1',
    GATEWAY_PORT: String(gatewayPort),
    LOG_LEVEL: 'warn',
    RATE_LIMIT_LARGE: '1000000',
    RATE_LIMIT_OPERATION: '1000000',
  }, gatewayPort);
  const barePort = await freePort();
  const bare = await startNode(['--import', 'tsx', join(ROOT, 'tools/bench/src/bare-area-server.ts')], { PORT: String(barePort), DATABASE_URL: target.url }, barePort);
  const headers = { Authorization: `Bearer ${key}` };
  try {
    const latencies = { gateway: [] as number[], bare: [] as number[] };
    for (let round = 0; round < 2; round += 1) {
      for (const m of mix) {
        for (const [side, base, h] of [['gateway', gateway.url, headers], ['bare', bare.url, {}]] as const) {
          const t = performance.now();
          const res = await fetch(`${base}/api/partner/v1/areas?${queryString(m)}`, { headers: h });
          await res.arrayBuffer();
          if (res.status !== 200) throw new Error(`${side} answered ${res.status} to ${queryString(m)}`);
          if (round === 1) latencies[side].push(performance.now() - t);
        }
      }
    }
    console.log(`\nlatency of ${mix.length} searches over HTTP, one at a time (ms)`);
    console.log(`gateway GET /api/partner/v1/areas  p50 ${ms(percentile(latencies.gateway, 50))}  p99 ${ms(percentile(latencies.gateway, 99))}`);
    console.log(`bare Koa route on the driver        p50 ${ms(percentile(latencies.bare, 50))}  p99 ${ms(percentile(latencies.bare, 99))}`);

    const requests = mix.map((m) => ({ method: 'GET' as const, path: `/api/partner/v1/areas?${queryString(m)}` }));
    const rows = [
      await load(`gateway area search (${target.name})`, gateway.url, { headers, seconds, connections: 20, requests }),
      await load(`bare Koa route, same searches on the driver`, bare.url, { seconds, connections: 20, requests }),
    ];
    printTable(`area search under load, ${seconds} s, 20 connections, the 1,000-search mix`, rows);
    console.log(`gateway / bare: ${((rows[0]!.requestsPerSecond / rows[1]!.requestsPerSecond) * 100).toFixed(0)}% (goal: at least 50%)`);
  } finally {
    await gateway.stop();
    await bare.stop();
  }
}

const targets = (process.env.BENCH_DIALECTS ?? 'sqlite,postgres').split(',').map((d) => (d.trim() === 'postgres' ? postgresTarget() : sqliteTarget()));
try {
  for (const target of targets) {
    try {
      await benchTarget(target);
    } finally {
      await target.dropAll();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
