#!/usr/bin/env node
// `npm start`: the newcomer's path. Builds the apps, migrates the database (the default of every
// entry point, ./data/pits.sqlite, unless DATABASE_URL names another), seeds demo data when the
// database is empty (with a webhook endpoint on a local receiver this script runs), loads the
// shipped areas once, prints the demo API key, tenant id and curl lines, then runs the gateway,
// the internal API and the webhook worker until Ctrl-C, SIGTERM or SIGHUP, and stops them all.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');

// ---------------------------------------------------------------------------------------------
// Stopping. package.json runs this script with `exec`, in place of npm's shell, so the SIGINT and
// SIGTERM that npm passes on to its child (a terminal's Ctrl-C, a process manager's stop) reach
// it; a shell in between passed them to nobody and left the apps serving. npm passes SIGHUP on to
// nobody, and `kill -9` of npm neither: a parent that goes away is a stop too. Every stop ends
// what this script started (a build under way, the apps, the receiver) and exits once they are gone.

const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];
/** How long the apps have to stop gracefully (their SHUTDOWN_TIMEOUT_MS is 10 s by default) before SIGKILL. */
const STOP_GRACE_MS = 20_000;
/** The build while it runs, then the apps. */
const children = [];
/** Children started as a process group of their own (the build: npx, its shell, nx and its workers). */
const groups = new Set();
/** The demo webhook receiver, once it listens. */
let receiver;
let stopping = false;
let exitCode = 0;

/** Whether a child (for a group, any process of it) is still there. */
function alive(child) {
  if (!groups.has(child)) return child.exitCode === null && child.signalCode === null;
  try {
    process.kill(-child.pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Sends signal `name` to a child, or to every process of its group. */
function send(child, name) {
  try {
    if (groups.has(child)) process.kill(-child.pid, name);
    else child.kill(name);
  } catch {
    // gone meanwhile
  }
}

/**
 * Stops everything this script started and exits. While the database is being prepared, the step
 * under way finishes first (`checkpoint` exits after it): a demo half seeded would keep no key.
 */
function stop(code, why) {
  if (stopping) return;
  stopping = true;
  exitCode = code;
  console.log(`start: stopping (${why})`);
  receiver?.close();
  for (const child of children) if (alive(child)) send(child, 'SIGTERM');
  if (!preparing) void exitWhenStopped();
}

let preparing = true;
/** Between two steps of the preparation: a stop asked for meanwhile happens here. */
async function checkpoint(database) {
  if (!stopping) return;
  await database?.destroy();
  await exitWhenStopped();
}

/** Exits once every child has; SIGKILL to those still there after STOP_GRACE_MS. Never resolves. */
async function exitWhenStopped() {
  const deadline = Date.now() + STOP_GRACE_MS;
  while (children.some(alive)) {
    if (Date.now() > deadline) {
      for (const child of children) if (alive(child)) send(child, 'SIGKILL');
      console.error('start: an app did not stop in time and was killed');
      exitCode = 1;
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  process.exit(exitCode);
  return new Promise(() => undefined);
}

for (const signal of STOP_SIGNALS) process.on(signal, () => stop(0, signal));
// The parent went away (npm killed, or a shell without exec that died of the signal): we are orphaned.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) stop(0, 'npm start went away');
}, 500).unref();
// A terminal closed under us must not crash this script before it has stopped the apps.
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);

/**
 * Runs a command to its end, in a process group of its own that a stop ends whole (npx passes a
 * signal to its shell only, and nx would build on); resolves with its exit code (null after a signal).
 */
function run(command, args, options) {
  const child = spawn(command, args, { ...options, detached: true });
  children.push(child);
  if (child.pid !== undefined) groups.add(child);
  return new Promise((resolve) => {
    child.on('error', () => resolve(1));
    child.on('exit', (code) => resolve(code));
  });
}

const env = {
  ...process.env,
  NX_NO_CLOUD: 'true',
  // The Nx daemon would outlive npm start, in a session of its own; one build per start needs none.
  NX_DAEMON: process.env.NX_DAEMON || 'false',
  // Development defaults only: production sets its own secrets (see README, Configuration).
  CREDENTIALS_KEY: process.env.CREDENTIALS_KEY || 'demo-only-credentials-key-change-me-0000000000',
  INTERNAL_API_TOKEN: process.env.INTERNAL_API_TOKEN || 'demo-only-internal-token-change-me',
  GATEWAY_PORT: process.env.GATEWAY_PORT || '4000',
  GATEWAY_HOST: process.env.GATEWAY_HOST || '127.0.0.1',
  INTERNAL_API_PORT: process.env.INTERNAL_API_PORT || '4001',
  // The demo's webhook endpoint is this script's receiver on 127.0.0.1: development only.
  WEBHOOK_ALLOW_PRIVATE_URLS: process.env.WEBHOOK_ALLOW_PRIVATE_URLS || 'true',
};
const receiverPort = Number(process.env.DEMO_WEBHOOK_PORT || '4002');
const receiverUrl = `http://127.0.0.1:${receiverPort}/webhooks`;

const apps = [
  { name: 'gateway', main: 'apps/gateway/dist/main.js' },
  { name: 'internal-api', main: 'apps/internal-api/dist/main.js' },
  // The receiver below prints each delivery that arrives; the worker's own line for it (at info)
  // printed every delivery a second time. At warn it still prints the failed ones, which the
  // receiver never took. A LOG_LEVEL of your own applies to it like to every app.
  { name: 'webhook-worker', main: 'apps/webhook-worker/dist/main.js', optional: true, env: { LOG_LEVEL: process.env.LOG_LEVEL || 'warn' } },
];

console.log('start: building');
const built = await run('npx', ['nx', 'run-many', '-t', 'build', '--outputStyle=static', '--projects=@pits/gateway,@pits/internal-api,@pits/webhook-worker,@pits/importer'], {
  cwd: root,
  env,
  stdio: ['ignore', 'ignore', 'inherit'],
});
await checkpoint();
if (built !== 0) {
  console.error('start: the build failed (run `npm run build` to see why)');
  process.exit(1);
}

const persistence = await import('@pits/persistence');
// Unset, the database is persistence's one default, resolved from the repository root as the apps
// (started there) and `npx pits-import` or `npm run migrate` in the root resolve it: the data team
// imports into the database this serves. (An empty DATABASE_URL stops the apps; here it means unset.)
if (!env.DATABASE_URL) delete env.DATABASE_URL;
const databaseConfig = persistence.parseDatabaseUrl(env.DATABASE_URL, root);
const databaseName = persistence.databaseIdentity(databaseConfig);
// Until the defaults became one, this script served ./data/demo.sqlite and everything else
// ./data/pits.sqlite. Such a file is left as it is; say where the demo is now, and how to keep the old one.
const formerDemoDatabase = join(root, 'data', 'demo.sqlite');
const formerDemoNote = env.DATABASE_URL === undefined && existsSync(formerDemoDatabase)
  ? `start: data/demo.sqlite, the database npm start served before, is left as it was: npm start, the apps, pits-import and npm run migrate all use data/pits.sqlite now when DATABASE_URL is unset. To go on with the old demo and its key, run DATABASE_URL=data/demo.sqlite npm start (and give pits-import the same DATABASE_URL); else delete data/demo.sqlite.`
  : undefined;
const database = persistence.createDatabase(databaseConfig);
await persistence.migrateOrThrow(database);
await checkpoint(database);
// One credentials file per database (named by its password-free identity), and only credentials
// that this database really holds are printed: another database's key would answer 401.
const credentialsDir = process.env.DEMO_CREDENTIALS_DIR || join(root, 'data', 'demo-credentials');
const credentialsFile = join(credentialsDir, persistence.demoCredentialsFileName(databaseConfig));
const legacyCredentialsFile = join(root, 'data', 'demo-credentials.json');
let demo;
let staleCredentials = false;
if (await persistence.isDatabaseEmpty(database)) {
  demo = await persistence.seedDemoData(database, persistence.createCredentialCipher(env.CREDENTIALS_KEY), new Date(), { webhookUrl: receiverUrl });
  saveCredentials(demo);
  console.log('start: seeded demo data');
} else {
  for (const file of [credentialsFile, legacyCredentialsFile]) {
    const saved = readCredentials(file);
    if (saved === undefined) continue;
    if (await persistence.demoCredentialsWork(database, saved)) {
      demo = saved;
      if (file !== credentialsFile) saveCredentials(saved);
      break;
    }
    staleCredentials = true;
  }
}
await checkpoint(database);

/** Saved demo credentials, or undefined when the file is missing or unreadable. */
function readCredentials(file) {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

function saveCredentials(data) {
  mkdirSync(credentialsDir, { recursive: true });
  writeFileSync(credentialsFile, `${JSON.stringify({ database: persistence.databaseIdentity(databaseConfig), ...data }, null, 2)}\n`, { mode: 0o600 });
}
const areasStarted = Date.now();
const areas = await (await import('@pits/importer')).loadDemoAreas(database);
if (areas) console.log(`start: loaded ${areas.inserted} areas with postcodes and coordinates in ${((Date.now() - areasStarted) / 1000).toFixed(1)} s (apps/importer/assets, MIT, Cahya DSN)`);
await checkpoint(database);
await database.destroy();

const gatewayUrl = `http://${env.GATEWAY_HOST}:${env.GATEWAY_PORT}`;
// The reference's Test Request pre-fills X-Tenant-Id with this: the sandbox's tenant, which answers.
if (demo && !env.DOCS_SANDBOX_TENANT_ID) env.DOCS_SANDBOX_TENANT_ID = demo.tenantId;
// And each path id with the sandbox's record it names: the active hold for the reservation routes, and so on.
if (demo && !env.DOCS_SANDBOX_IDS) {
  const ids = {
    product: demo.productIds?.[0],
    adjustment: demo.adjustments?.pendingIncrease,
    transfer: demo.transfers?.pending,
    transfer_to_ship: demo.transfers?.approved,
    transfer_to_receive: demo.transfers?.inTransit,
    inbound: demo.inboundIds?.pending?.[0],
    reservation: demo.reservations?.active,
    webhook: demo.webhook?.id,
  };
  // Credentials saved before some of these existed lack them: those routes keep the reference's examples.
  const known = Object.entries(ids).filter(([, id]) => id !== undefined);
  if (known.length > 0) env.DOCS_SANDBOX_IDS = known.map(([record, id]) => `${record}=${id}`).join(',');
}
if (demo) {
  console.log(`
  Demo API key:   ${demo.apiKey}
  Demo tenant id: ${demo.tenantId}
  Demo tenant to authorize: ${demo.invitedTenantId} (granted access, not connected yet)
  Demo location id: ${demo.locationIds[0]} (the demo tenant's Jakarta warehouse)

  curl -s ${gatewayUrl}/api/partner/v1/tenants -H "Authorization: Bearer ${demo.apiKey}"
  curl -s ${gatewayUrl}/api/partner/v1/tenants/locations -H "Authorization: Bearer ${demo.apiKey}" -H "X-Tenant-Id: ${demo.tenantId}"
  curl -s -X POST ${gatewayUrl}/api/partner/v1/tenants/authorize -H "Authorization: Bearer ${demo.apiKey}" -H "Content-Type: application/json" -d '{"tenant_id":"${demo.invitedTenantId}","days_connected":0,"installation_type":"custom"}'
  Reference: ${gatewayUrl}/docs`);
  // Databases seeded before the demo had documents and a webhook endpoint have none of these.
  if (demo.adjustments && demo.transfers && demo.inboundIds) {
    console.log(`  Sandbox: adjustments ${demo.adjustments.pendingIncrease} and ${demo.adjustments.pendingDecrease} pending; transfers ${demo.transfers.pending} pending, ${demo.transfers.approved} approved (ship it), ${demo.transfers.inTransit} in transit (receive it); inbound shipments ${demo.inboundIds.pending.join(' and ')} pending, ${demo.inboundIds.partial} partial`);
  }
  if (demo.reservations) console.log(`  Order holds: ${demo.reservations.active} active at Jakarta (expires 7 days after seeding; extend, release or consume it), ${demo.reservations.consumed} consumed`);
  if (demo.webhook) console.log(`  Webhooks: events go to ${demo.webhook.url} and are printed below as they arrive; signing secret ${demo.webhook.secret}`);
  console.log('');
}
if (!demo && staleCredentials) {
  console.log(`start: the saved demo credentials do not work in ${databaseName} (its data was not seeded by this script, or was recreated since); create a key with the internal API, or start on an empty database to seed a new demo`);
} else if (!demo) {
  console.log('start: the database already had data not seeded by this script; create a key with the internal API');
}
// The internal API (tRPC) and its development token: how internal teams, and a newcomer, call it.
const internalApiUrl = `http://${process.env.INTERNAL_API_HOST || '127.0.0.1'}:${env.INTERNAL_API_PORT}`;
console.log(`  Database:       ${databaseName} (${env.DATABASE_URL === undefined ? 'the default: `npx pits-import` and `npm run migrate` here use it too' : 'DATABASE_URL; give pits-import the same'})
  Internal API:   ${internalApiUrl}/trpc (tRPC; the client is createInternalClient from @pits/internal-api/client)
  Internal token: ${env.INTERNAL_API_TOKEN}${process.env.INTERNAL_API_TOKEN ? ' (your INTERNAL_API_TOKEN)' : ' (development only; set INTERNAL_API_TOKEN anywhere else)'}
  curl -s ${internalApiUrl}/trpc/partners.list -H "Authorization: Bearer ${env.INTERNAL_API_TOKEN}"
`);
if (formerDemoNote) console.log(`${formerDemoNote}\n`);
// The demo endpoint: prints each event it receives on one line (a stock level with its version and
// levels, a document with its status change) and whether its signature verifies.
const { verifyWebhook, WEBHOOK_HEADERS } = await import('@pits/domain');
const { summarizeWebhookEvent, webhookEvent } = await import('@pits/contract');
/** One line of what arrived: the event as the contract reads it, or what little an unknown body shows. */
function describeDelivery(body) {
  let parsed;
  try {
    parsed = JSON.parse(body);
  } catch {
    return 'unparsable body';
  }
  const event = webhookEvent.safeParse(parsed);
  if (event.success) return `${event.data.type} ${summarizeWebhookEvent(event.data)}`;
  return `${typeof parsed?.type === 'string' ? parsed.type : 'unknown event'} ${parsed?.resource?.id ?? ''} (not as the contract describes it)`;
}
await checkpoint();
// From here on a stop ends the receiver and the apps at once.
preparing = false;
receiver = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    const header = (name) => req.headers[name.toLowerCase()];
    const signed = demo?.webhook?.secret !== undefined && verifyWebhook(demo.webhook.secret, { timestamp: header(WEBHOOK_HEADERS.timestamp), signature: header(WEBHOOK_HEADERS.signature) }, body, Date.now() / 1000);
    console.log(`webhook: ${describeDelivery(body)} (signature ${signed ? 'verified' : 'NOT verified'})`.replace(/\s+/g, ' '));
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
  });
});
receiver.on('error', (error) => console.error(`start: the demo webhook receiver could not listen on ${receiverUrl} (${error.message}); set DEMO_WEBHOOK_PORT`));
receiver.listen(receiverPort, '127.0.0.1');

for (const app of apps) {
  if (!existsSync(join(root, app.main))) {
    if (!app.optional) console.error(`start: ${app.main} is missing`);
    continue;
  }
  const child = spawn(process.execPath, [join(root, app.main)], { cwd: root, env: { ...env, ...app.env }, stdio: ['ignore', 'inherit', 'inherit'] });
  child.on('exit', (code, signal) => {
    console.log(`start: ${app.name} exited (${signal ?? code})`);
    // One app down leaves the demo half there: stop the rest.
    stop(code ?? 1, `${app.name} exited`);
  });
  children.push(child);
}
