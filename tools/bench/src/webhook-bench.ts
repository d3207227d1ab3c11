// npm run bench:webhooks — how long an event takes from the partner's receive call to its webhook
// arriving, and how many events per second one delivery worker sends. A gateway and one worker
// (apps/webhook-worker/dist/main.js) run as child processes; the receiving endpoint is an
// HTTP server on loopback in this process that notes when each event arrives and answers 204.
//
// Per WEBHOOK_POLL_MS setting (100, the default, and 20):
//   live:    1,000 inbound shipments (one line each) are received through
//            POST /api/partner/v1/inbound/:id/receive, 20 calls at a time, while the worker runs.
//            Latency = arrival of the event - the moment the receive call returned (and, for
//            reference, - the moment it started). Throughput = events / (last arrival - first
//            receive call started).
//   backlog: the worker is stopped, 1,000 more events are produced the same way, then a new worker
//            starts; throughput = events / (last arrival - worker ready), i.e. the worker alone.
//
// Environment: BENCH_DIALECTS (sqlite), BENCH_EVENTS (1000), BENCH_POLL_MS (100,20), BENCH_PG_URL.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { type Database, createCredentialCipher, createDatabase, createInbound, migrateOrThrow, seedDemoData } from '@pits/persistence';
import { ROOT, freePort, startNode } from './bench-harness.js';

const dialects = (process.env.BENCH_DIALECTS ?? 'sqlite').split(',').map((d) => d.trim()).filter(Boolean);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 1000);
const CONCURRENCY = 20;
const pollSettings = (process.env.BENCH_POLL_MS ?? '100,20').split(',').map(Number);
const pgAdminUrl = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const credentialsKey = 'c'.repeat(64);

for (const d of dialects) if (d !== 'sqlite' && d !== 'postgres') throw new Error(`BENCH_DIALECTS: unknown dialect ${d}`);

/** The endpoint the worker delivers to: arrival time (performance.now) per inbound shipment id. */
interface Receiver {
  url: string;
  arrivals: Map<string, number>;
  eventIds: Set<string>;
  duplicates: number;
  waitFor(ids: readonly string[], timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const arrivals = new Map<string, number>();
  const eventIds = new Set<string>();
  let waiter: (() => void) | undefined;
  const receiver: Receiver = {
    url: '',
    arrivals,
    eventIds,
    duplicates: 0,
    async waitFor(ids, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (!ids.every((id) => arrivals.has(id))) {
        if (Date.now() > deadline) throw new Error(`only ${ids.filter((id) => arrivals.has(id)).length} of ${ids.length} events arrived within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          waiter = resolve;
          setTimeout(resolve, 200);
        });
      }
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.now();
      const eventId = String(req.headers['x-webhook-id'] ?? '');
      if (eventIds.has(eventId)) receiver.duplicates += 1;
      eventIds.add(eventId);
      const payload = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { resource?: { id?: string } };
      const id = String(payload.resource?.id ?? '');
      if (!arrivals.has(id)) arrivals.set(id, at);
      res.statusCode = 204;
      res.end();
      waiter?.();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/pits`;
  return receiver;
}

interface Worker {
  spawnedAt: number;
  readyAt: number;
  stop(): Promise<void>;
}

/** Starts the delivery worker and waits for its "webhook worker started" log line. */
async function startWorker(env: Record<string, string>): Promise<Worker> {
  const spawnedAt = performance.now();
  const child: ChildProcess = spawn(process.execPath, [join(ROOT, 'apps/webhook-worker/dist/main.js')], {
    cwd: ROOT,
    env: { ...process.env, ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const readyAt = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the webhook worker did not start within 30 s')), 30_000);
    child.once('exit', (code) => reject(new Error(`the webhook worker exited with ${code}`)));
    lines.on('line', (line) => {
      if (line.includes('webhook worker started')) {
        clearTimeout(timer);
        resolve(performance.now());
      } else if (line.includes('"level":50') || line.includes('"level":40')) {
        console.error(`worker: ${line}`);
      }
    });
  });
  return {
    spawnedAt,
    readyAt,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? Number.NaN;
}

interface Shipment {
  id: string;
  itemId: string;
}

async function createShipments(database: Database, tenantId: string, locationId: number, productId: number, count: number, offset: number): Promise<Shipment[]> {
  const shipments: Shipment[] = [];
  for (let i = 0; i < count; i += 1) {
    const created = await createInbound(
      database,
      { tenantId, locationId, sourceType: 'purchase_order', sourceId: offset + i + 1, sourceCode: `PO-BENCH-${offset + i + 1}`, createdBy: 'bench', lines: [{ productId, expectedQuantity: '5' }] },
      new Date(),
    );
    shipments.push({ id: String(created.id), itemId: String(created.details[0]!.id) });
  }
  return shipments;
}

interface Receipt {
  id: string;
  startedAt: number;
  returnedAt: number;
}

/** Receives every shipment in full through the gateway, CONCURRENCY calls at a time. */
async function receiveAll(gatewayUrl: string, headers: Record<string, string>, shipments: readonly Shipment[]): Promise<Receipt[]> {
  const receipts: Receipt[] = [];
  let next = 0;
  const lane = async () => {
    while (next < shipments.length) {
      const shipment = shipments[next++]!;
      const startedAt = performance.now();
      const res = await fetch(`${gatewayUrl}/api/partner/v1/inbound/${shipment.id}/receive`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ items: [{ item_id: shipment.itemId, received_quantity: 5 }] }),
      });
      const text = await res.text();
      const returnedAt = performance.now();
      if (res.status !== 200) throw new Error(`receive ${shipment.id} answered ${res.status}: ${text}`);
      receipts.push({ id: shipment.id, startedAt, returnedAt });
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  return receipts;
}

interface Row {
  pollMs: number;
  receiveP50: number;
  receiveP99: number;
  latencyP50: number;
  latencyP99: number;
  latencyMax: number;
  fromStartP50: number;
  fromStartP99: number;
  liveThroughput: number;
  backlogThroughput: number;
  backlogFirstToLast: number;
  workerStartMs: number;
}

async function runDialect(dialect: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'pits-webhook-bench-'));
  const pgName = `pits_webhook_bench_${process.pid}`;
  let database: Database | undefined;
  let receiver: Receiver | undefined;
  let gateway: Awaited<ReturnType<typeof startNode>> | undefined;
  let worker: Worker | undefined;
  try {
    let databaseUrl: string;
    if (dialect === 'sqlite') {
      databaseUrl = join(dir, 'bench.sqlite');
      database = createDatabase({ dialect: 'sqlite', location: databaseUrl });
    } else {
      const admin = new pg.Client({ connectionString: pgAdminUrl });
      await admin.connect();
      await admin.query(`drop database if exists ${pgName}`);
      await admin.query(`create database ${pgName}`);
      await admin.end();
      const url = new URL(pgAdminUrl);
      url.pathname = `/${pgName}`;
      databaseUrl = url.toString();
      database = createDatabase({ dialect: 'postgres', url: databaseUrl });
    }
    await migrateOrThrow(database);
    const demo = await seedDemoData(database, createCredentialCipher(credentialsKey), new Date());
    receiver = await startReceiver();

    // The receiver listens on 127.0.0.1: the gateway and the worker must be allowed private webhook URLs.
    const env = { DATABASE_URL: databaseUrl, CREDENTIALS_KEY: credentialsKey, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' };
    const gatewayPort = await freePort();
    gateway = await startNode([join(ROOT, 'apps/gateway/dist/main.js')], {
      ...env,
      GATEWAY_HOST: '127.0.0.1',
      GATEWAY_PORT: String(gatewayPort),
      LOG_LEVEL: 'warn',
      RATE_LIMIT_SMALL: '1000000',
      RATE_LIMIT_OPERATION: '1000000',
    }, gatewayPort);
    const headers = { authorization: `Bearer ${demo.apiKey}`, 'x-tenant-id': demo.tenantId, 'content-type': 'application/json' };
    const registered = await fetch(`${gateway.url}/api/partner/v1/webhooks`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: receiver.url, event_types: ['inbound.status_changed'], description: 'bench receiver' }),
    });
    if (registered.status !== 201) throw new Error(`registering the webhook answered ${registered.status}: ${await registered.text()}`);

    const rows: Row[] = [];
    let offset = 0;
    for (const pollMs of pollSettings) {
      const workerEnv = { ...env, WEBHOOK_POLL_MS: String(pollMs) };
      // Live: events produced while the worker runs.
      worker = await startWorker(workerEnv);
      const live = await createShipments(database, demo.tenantId, demo.locationIds[0]!, demo.productIds[0]!, EVENTS, offset);
      offset += EVENTS;
      const receipts = await receiveAll(gateway.url, headers, live);
      await receiver.waitFor(live.map((s) => s.id), 120_000);
      const latency = receipts.map((r) => receiver!.arrivals.get(r.id)! - r.returnedAt);
      const fromStart = receipts.map((r) => receiver!.arrivals.get(r.id)! - r.startedAt);
      const firstStart = Math.min(...receipts.map((r) => r.startedAt));
      const lastArrival = Math.max(...live.map((s) => receiver!.arrivals.get(s.id)!));
      await worker.stop();
      worker = undefined;

      // Backlog: events produced with no worker running, then one worker drains them.
      const backlog = await createShipments(database, demo.tenantId, demo.locationIds[0]!, demo.productIds[0]!, EVENTS, offset);
      offset += EVENTS;
      await receiveAll(gateway.url, headers, backlog);
      if (backlog.some((s) => receiver!.arrivals.has(s.id))) throw new Error('an event arrived while no worker was running');
      worker = await startWorker(workerEnv);
      const { spawnedAt, readyAt } = worker;
      await receiver.waitFor(backlog.map((s) => s.id), 120_000);
      const backlogArrivals = backlog.map((s) => receiver!.arrivals.get(s.id)!);
      const backlogLast = Math.max(...backlogArrivals);
      const backlogFirst = Math.min(...backlogArrivals);
      await worker.stop();
      worker = undefined;

      rows.push({
        pollMs,
        receiveP50: percentile(receipts.map((r) => r.returnedAt - r.startedAt), 0.5),
        receiveP99: percentile(receipts.map((r) => r.returnedAt - r.startedAt), 0.99),
        latencyP50: percentile(latency, 0.5),
        latencyP99: percentile(latency, 0.99),
        latencyMax: Math.max(...latency),
        fromStartP50: percentile(fromStart, 0.5),
        fromStartP99: percentile(fromStart, 0.99),
        liveThroughput: EVENTS / ((lastArrival - firstStart) / 1000),
        backlogThroughput: EVENTS / ((backlogLast - readyAt) / 1000),
        backlogFirstToLast: EVENTS / ((backlogLast - backlogFirst) / 1000),
        workerStartMs: readyAt - spawnedAt,
      });
    }

    console.log(`\n[${dialect}] webhook delivery, ${EVENTS} inbound.status_changed events per run, receive calls ${CONCURRENCY} at a time, one worker (batch 50, concurrency 16); times in ms`);
    console.log(
      `${'poll ms'.padStart(7)} ${'receive p50'.padStart(11)} ${'p99'.padStart(6)} | ${'latency p50'.padStart(11)} ${'p99'.padStart(6)} ${'max'.padStart(6)} | ${'from call start p50'.padStart(19)} ${'p99'.padStart(6)} | ${'live ev/s'.padStart(9)} | ${'backlog ev/s'.padStart(12)} ${'(first->last)'.padStart(13)}`,
    );
    for (const r of rows) {
      console.log(
        `${String(r.pollMs).padStart(7)} ${r.receiveP50.toFixed(1).padStart(11)} ${r.receiveP99.toFixed(1).padStart(6)} | ${r.latencyP50.toFixed(1).padStart(11)} ${r.latencyP99.toFixed(1).padStart(6)} ${r.latencyMax.toFixed(1).padStart(6)} | ${r.fromStartP50.toFixed(1).padStart(19)} ${r.fromStartP99.toFixed(1).padStart(6)} | ${r.liveThroughput.toFixed(0).padStart(9)} | ${r.backlogThroughput.toFixed(0).padStart(12)} ${r.backlogFirstToLast.toFixed(0).padStart(13)}`,
      );
    }
    console.log('latency = webhook arrival - receive call returned; live ev/s = events / (last arrival - first receive call started);');
    console.log('backlog ev/s = events / (last arrival - worker ready), the worker alone on a queue of waiting events; (first->last) excludes the first poll.');
    console.log(`worker start-up (spawn to ready): ${rows.map((r) => `${r.workerStartMs.toFixed(0)} ms`).join(', ')}; duplicate deliveries: ${receiver.duplicates}`);
    console.log(`load average now ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${cpus().length} CPUs`);
  } finally {
    await worker?.stop();
    await gateway?.stop();
    await receiver?.close();
    await database?.destroy();
    if (dialect === 'postgres') {
      const admin = new pg.Client({ connectionString: pgAdminUrl });
      await admin.connect();
      await admin.query(`drop database if exists ${pgName} with (force)`);
      await admin.end();
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const dialect of dialects) await runDialect(dialect);
