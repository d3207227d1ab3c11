// npm run bench:tenant-locations — requests per second of GET /api/partner/v1/tenants/locations on
// SQLite through the whole gateway (auth, rate limit, tenant guard, validation, query, envelope),
// next to a bare Koa route returning the same bytes, in the same run. 50 connections, 10 s each.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCredentialCipher, createDatabase, migrateOrThrow, seedDemoData } from '@pits/persistence';
import { ROOT, freePort, load, printTable, startNode } from './bench-harness.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const dir = mkdtempSync(join(tmpdir(), 'pits-bench-'));
const databaseUrl = join(dir, 'bench.sqlite');
const credentialsKey = 'b'.repeat(64);

const database = createDatabase({ dialect: 'sqlite', location: databaseUrl });
await migrateOrThrow(database);
const demo = await seedDemoData(database, createCredentialCipher(credentialsKey), new Date());
await database.destroy();

const gatewayPort = await freePort();
const gateway = await startNode([join(ROOT, 'apps/gateway/dist/main.js')], {
  DATABASE_URL: databaseUrl,
  CREDENTIALS_KEY: credentialsKey,
  GATEWAY_HOST: '127.0.0.1',
  GATEWAY_PORT: String(gatewayPort),
  LOG_LEVEL: 'warn',
  RATE_LIMIT_SMALL: '1000000',
}, gatewayPort);
const headers = { Authorization: `Bearer ${demo.apiKey}`, 'X-Tenant-Id': demo.tenantId };
const path = '/api/partner/v1/tenants/locations';
const sample = await fetch(`${gateway.url}${path}`, { headers });
if (sample.status !== 200) throw new Error(`gateway answered ${sample.status}`);
const bytes = Buffer.from(await sample.arrayBuffer());

const barePort = await freePort();
const bare = await startNode(['--import', 'tsx', join(ROOT, 'tools/bench/src/bare-static-server.ts')], { PORT: String(barePort), BODY_BASE64: bytes.toString('base64') }, barePort);

try {
  await load('warm-up', `${gateway.url}${path}`, { headers, seconds: 2 });
  const rows = [
    await load(`gateway GET ${path} (sqlite)`, `${gateway.url}${path}`, { headers, seconds }),
    await load('bare Koa route, same bytes', `http://127.0.0.1:${barePort}${path}`, { seconds }),
  ];
  printTable(`tenant locations, ${seconds} s, 50 connections, ${bytes.length} bytes per response`, rows);
  const [g, b] = rows as [typeof rows[0], typeof rows[0]];
  console.log(`gateway / bare: ${((g.requestsPerSecond / b.requestsPerSecond) * 100).toFixed(0)}%`);
} finally {
  await gateway.stop();
  await bare.stop();
  rmSync(dir, { recursive: true, force: true });
}
