#!/usr/bin/env node
// `npm start`: the newcomer's path. Builds the apps, migrates the database (SQLite under ./data by
// default), seeds demo data when the database is empty, prints the demo API key, tenant id and curl
// lines, then runs the gateway, the internal API and the webhook worker until Ctrl-C.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');
const env = {
  ...process.env,
  NX_NO_CLOUD: 'true',
  DATABASE_URL: process.env.DATABASE_URL || join(root, 'data', 'demo.sqlite'),
  // Development defaults only: production sets its own secrets (see README, Configuration).
  CREDENTIALS_KEY: process.env.CREDENTIALS_KEY || 'demo-only-credentials-key-change-me-0000000000',
  INTERNAL_API_TOKEN: process.env.INTERNAL_API_TOKEN || 'demo-only-internal-token-change-me',
  GATEWAY_PORT: process.env.GATEWAY_PORT || '4000',
  GATEWAY_HOST: process.env.GATEWAY_HOST || '127.0.0.1',
  INTERNAL_API_PORT: process.env.INTERNAL_API_PORT || '4001',
};

const apps = [
  { name: 'gateway', main: 'apps/gateway/dist/main.js' },
  { name: 'internal-api', main: 'apps/internal-api/dist/main.js' },
  { name: 'webhook-worker', main: 'apps/gateway/dist/webhook-worker-main.js', optional: true },
];

console.log('start: building');
const build = spawnSync('npx', ['nx', 'run-many', '-t', 'build', '--outputStyle=static', '--projects=@pits/gateway,@pits/internal-api,@pits/importer'], {
  cwd: root,
  env,
  stdio: ['ignore', 'ignore', 'inherit'],
});
if (build.status !== 0) {
  console.error('start: the build failed (run `npm run build` to see why)');
  process.exit(1);
}

const persistence = await import('@pits/persistence');
const database = persistence.createDatabase(persistence.parseDatabaseUrl(env.DATABASE_URL));
await persistence.migrateOrThrow(database);
const credentialsFile = join(root, 'data', 'demo-credentials.json');
let demo;
if (await persistence.isDatabaseEmpty(database)) {
  demo = await persistence.seedDemoData(database, persistence.createCredentialCipher(env.CREDENTIALS_KEY), new Date());
  mkdirSync(join(root, 'data'), { recursive: true });
  writeFileSync(credentialsFile, `${JSON.stringify({ database: env.DATABASE_URL, apiKey: demo.apiKey, tenantId: demo.tenantId, invitedTenantId: demo.invitedTenantId }, null, 2)}\n`, { mode: 0o600 });
  console.log('start: seeded demo data');
} else if (existsSync(credentialsFile)) {
  demo = JSON.parse(readFileSync(credentialsFile, 'utf8'));
}
const areas = await (await import('@pits/importer')).loadDemoAreas(database);
if (areas) console.log(`start: loaded ${areas.inserted} areas from the idn-area-data package`);
await database.destroy();

const gatewayUrl = `http://${env.GATEWAY_HOST}:${env.GATEWAY_PORT}`;
if (demo) {
  console.log(`
  Demo API key:   ${demo.apiKey}
  Demo tenant id: ${demo.tenantId}
  Demo tenant to authorize: ${demo.invitedTenantId} (granted access, not connected yet)
  Demo location id: ${demo.locationIds[0]} (the demo tenant's Jakarta warehouse)

  curl -s ${gatewayUrl}/api/partner/v1/tenants -H "Authorization: Bearer ${demo.apiKey}"
  curl -s ${gatewayUrl}/api/partner/v1/tenants/locations -H "Authorization: Bearer ${demo.apiKey}" -H "X-Tenant-Id: ${demo.tenantId}"
  curl -s -X POST ${gatewayUrl}/api/partner/v1/tenants/authorize -H "Authorization: Bearer ${demo.apiKey}" -H "Content-Type: application/json" -d '{"tenant_id":"${demo.invitedTenantId}","days_connected":0,"installation_type":"custom"}'
  Reference: ${gatewayUrl}/docs
`);
} else {
  console.log('start: the database already had data not seeded by this script; create a key with the internal API');
}

const children = [];
for (const app of apps) {
  if (!existsSync(join(root, app.main))) {
    if (!app.optional) console.error(`start: ${app.main} is missing`);
    continue;
  }
  const child = spawn(process.execPath, [join(root, app.main)], { cwd: root, env, stdio: ['ignore', 'inherit', 'inherit'] });
  child.on('exit', (code, signal) => {
    console.log(`start: ${app.name} exited (${signal ?? code})`);
    if (!stopping) stop(code ?? 1);
  });
  children.push(child);
}

let stopping = false;
function stop(code = 0) {
  stopping = true;
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  const wait = setInterval(() => {
    if (children.every((c) => c.exitCode !== null || c.signalCode !== null)) {
      clearInterval(wait);
      process.exit(code);
    }
  }, 50);
}
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));
