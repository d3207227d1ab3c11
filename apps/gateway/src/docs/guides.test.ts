// The Sandbox chapter says what `npm start` seeds; this holds it to the seed itself, on every
// dialect: each document number of its table is in the state the table gives, through the routes
// a reader would call. The holds chapter is held to the constants and routes it describes.
import { RESERVATION_EXPIRY } from '@pits/domain';
import { type DemoData, createApiKey, createCredentialCipher, seedDemoData } from '@pits/persistence';
import { type TestDatabase, openTestDatabase, testDialects } from '@pits/persistence/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadGatewayConfig } from '../config.js';
import { type Gateway, createGateway } from '../create-gateway.js';
import { partnerRoutes } from '../routes/partner-routes.js';
import { partnerGuide } from './guides.js';

const dialects = await testDialects();
const SEEDED = new Date('2026-11-22T09:30:00.000Z');
const chapter = partnerGuide().split('## Sandbox')[1]!;

/** The rows of the chapter's document table: kind, number (with the seed date for its elided one), state (`in transit` as `in_transit`). */
const KIND = { ADJ: 'adjustment', TRF: 'transfer', RSV: 'reservation' } as const;
const documentRows = [...chapter.matchAll(/^\| (?:`((ADJ|TRF|RSV)-…-\d{6})`|inbound `(\d+)`) \| ([a-z ]+)/gm)].map((m) => ({
  kind: m[1] === undefined ? 'inbound' : KIND[m[2] as keyof typeof KIND],
  id: m[1]?.replace('…', '20261122') ?? m[3]!,
  state: m[4]!.trim().replace(' ', '_'),
}));

describe.each(dialects)('[%s] the Sandbox chapter', (dialect) => {
  let t: TestDatabase;
  let gateway: Gateway;
  let call: (path: string) => Promise<{ data: Record<string, { status: string }> }>;
  /** A hold's number carries the database clock's date, not the seed's. */
  let reservationNumbers: string[] = [];
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
    const cipher = createCredentialCipher('s'.repeat(64));
    const demo = await seedDemoData(t.database, cipher, SEEDED, { webhookUrl: 'http://127.0.0.1:4002/webhooks' });
    reservationNumbers = Object.values(demo.reservations);
    const key = (await createApiKey(t.database, demo.partnerId, { environment: 'test' }, SEEDED)).secret;
    gateway = createGateway(loadGatewayConfig({ CREDENTIALS_KEY: 's'.repeat(64), GATEWAY_HOST: '127.0.0.1', GATEWAY_PORT: '0' }), { database: t.database, logger: pino({ level: 'silent' }) });
    const { url } = await gateway.listen();
    call = async (path) => {
      const res = await fetch(`${url}${path}`, { headers: { Authorization: key, 'X-Tenant-Id': demo.tenantId } });
      expect(res.status, path).toBe(200);
      return (await res.json()) as { data: Record<string, { status: string }> };
    };
  });
  afterAll(async () => {
    await gateway.close();
    await t.cleanup();
  });

  it('lists documents that exist in the states it gives', async () => {
    expect(documentRows.map((r) => r.kind)).toEqual(['adjustment', 'adjustment', 'adjustment', 'transfer', 'transfer', 'transfer', 'inbound', 'inbound', 'inbound', 'reservation', 'reservation']);
    const pathOf = (row: (typeof documentRows)[number]) =>
      row.kind === 'inbound' ? `/api/partner/v1/inbound/${row.id}` : row.kind === 'reservation' ? `/api/partner/v1/reservations/${reservationNumbers.find((n) => n.endsWith(row.id.slice(-7)))}` : `/api/engine/v1/${row.kind}s/${row.id}`;
    for (const row of documentRows) {
      const body = await call(pathOf(row));
      expect(body.data[row.kind]!.status, `${row.kind} ${row.id}`).toBe(row.state);
    }
  });

  it('names the stock, item and area facts it sends the reader to', async () => {
    const surabaya = (await call('/api/partner/v1/stock?location_id=2&product_id=2')) as unknown as { data: { stock: { good: number; damaged: number }[] } };
    expect(surabaya.data.stock[0]).toMatchObject({ good: 60, damaged: 4 });
    expect(chapter).toContain('Surabaya holds 60 good and 4 damaged of product 2');
    const partial = (await call('/api/partner/v1/inbound/3')) as unknown as { data: { inbound: { items: { id: string; quantity: number; good_received_quantity: number }[] } } };
    expect(partial.data.inbound.items).toEqual([expect.objectContaining({ id: '5', quantity: 30, good_received_quantity: 18 })]);
    expect(chapter).toContain('partial (18 of 30 received) | receive the remaining 12 of item `5`');
  });
});

describe('the Holding stock for orders chapter', () => {
  const holds = partnerGuide().split('\n## Holding stock for orders\n')[1]?.split('\n## ')[0];

  it('exists, with the expiry bounds, the refusals and the events the service runs on', () => {
    expect(holds).toBeDefined();
    expect(holds).toContain(`${RESERVATION_EXPIRY.min} to ${RESERVATION_EXPIRY.max}, default ${RESERVATION_EXPIRY.default}`);
    for (const fact of ['422 INSUFFICIENT_STOCK', '422 INVALID_STATE', 'within 60 seconds', 'available = good - reserved', '`reservation.status_changed`', '`stock.level_changed`', 'is not higher']) {
      expect(holds, fact).toContain(fact);
    }
  });

  it('sends every curl example to a route that is served', () => {
    const routes = partnerRoutes({ cipher: createCredentialCipher('g'.repeat(64)), urlPolicy: { allowPrivate: false }, resolveHost: () => Promise.resolve([]) });
    const served = (method: string, path: string) =>
      routes.some((r) => [r.method, ...(r.alsoMethods ?? [])].includes(method as 'POST') && new RegExp(`^${r.path.replace(/:[a-z_]+/g, '[^/]+')}$`).test(path));
    const calls = [...(holds ?? '').matchAll(/curl -s -X (\w+) http:\/\/127\.0\.0\.1:4000(\S+)/g)].map((m) => [m[1]!, m[2]!] as const);
    expect(calls.map(([method, path]) => `${method} ${path}`)).toEqual([
      'POST /api/partner/v1/reservations',
      'POST /api/partner/v1/reservations/$RESERVATION_ID/consume',
      'POST /api/partner/v1/reservations/$RESERVATION_ID/release',
      'POST /api/partner/v1/webhooks',
    ]);
    for (const [method, path] of calls) expect(served(method, path), `${method} ${path}`).toBe(true);
  });
});

type Operation = { operationId: string; tags: string[]; parameters?: { name: string; in: string; example?: unknown; description?: string }[] };
type Document = { info: { description: string }; paths: Record<string, Record<string, Operation>> };

describe.each(dialects)('[%s] the reference served with a sandbox', (dialect) => {
  let t: TestDatabase;
  let key: string;
  let tenantId: string;
  let demo: DemoData;
  const gateways: Gateway[] = [];
  const start = async (env: Record<string, string>) => {
    const gateway = createGateway(loadGatewayConfig({ CREDENTIALS_KEY: 's'.repeat(64), GATEWAY_HOST: '127.0.0.1', GATEWAY_PORT: '0', ...env }), { database: t.database, logger: pino({ level: 'silent' }) });
    gateways.push(gateway);
    const { url, port } = await gateway.listen();
    return { url, port, document: (await (await fetch(`${url}/openapi.json`)).json()) as Document };
  };
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
    demo = await seedDemoData(t.database, createCredentialCipher('s'.repeat(64)), SEEDED, { webhookUrl: 'http://127.0.0.1:4002/webhooks' });
    key = demo.apiKey;
    tenantId = demo.tenantId;
  });
  afterAll(async () => {
    for (const gateway of gateways) await gateway.close();
    await t.cleanup();
  });

  it('pre-fills X-Tenant-Id with the demo tenant, so a tenant route sent as the reference fills it answers 200', async () => {
    const { url, document } = await start({ DOCS_SANDBOX_TENANT_ID: tenantId });
    const tenantHeaders = Object.values(document.paths).flatMap((methods) => Object.values(methods)).flatMap((o) => o.parameters ?? []).filter((p) => p.name === 'X-Tenant-Id');
    expect(tenantHeaders.length).toBeGreaterThan(10);
    for (const header of tenantHeaders) expect(header.example).toBe(tenantId);
    // Test Request of the locations list: the key under Authentication, the header as pre-filled.
    const locations = document.paths['/api/partner/v1/tenants/locations']!.get!;
    const example = locations.parameters!.find((p) => p.name === 'X-Tenant-Id')!.example as string;
    const res = await fetch(`${url}/api/partner/v1/tenants/locations`, { headers: { Authorization: `Bearer ${key}`, 'X-Tenant-Id': example } });
    expect(res.status).toBe(200);
    expect(document.info.description).toContain(`this sandbox's demo tenant, \`${tenantId}\``);
  });

  it('shows the port the gateway listens on in Getting started, and says where to find a tenant id when it knows no sandbox', async () => {
    const { port, document } = await start({});
    expect(port).not.toBe(4000);
    const gettingStarted = document.info.description.split('## Getting started')[1]!.split('## Authentication')[0]!;
    expect(gettingStarted).toContain(`curl -s http://127.0.0.1:${port}/api/partner/v1/tenants `);
    expect(gettingStarted).not.toContain(':4000');
    // The other chapter with curl lines sends them to this gateway as well.
    expect(document.info.description).not.toContain('127.0.0.1:4000');
    expect(document.info.description).toContain(`curl -s -X POST http://127.0.0.1:${port}/api/partner/v1/reservations `);
    expect(gettingStarted).toContain('replace it with your tenant\'s id (with `npm start`, the "Demo tenant id" it printed)');
    const header = document.paths['/api/partner/v1/tenants/locations']!.get!.parameters!.find((p) => p.name === 'X-Tenant-Id')!;
    expect(header.example).not.toBe(tenantId);
    expect(header.description).toContain('"Demo tenant id"');
  });

  it('pre-fills each path id with the sandbox record it names, as npm start passes them: every detail answers 200, and the hold routes name the active hold', async () => {
    // What tools/scripts/start.mjs passes for what it seeded.
    const ids = {
      product: demo.productIds[0],
      adjustment: demo.adjustments.pendingIncrease,
      transfer: demo.transfers.pending,
      transfer_to_ship: demo.transfers.approved,
      transfer_to_receive: demo.transfers.inTransit,
      inbound: demo.inboundIds.pending[0],
      reservation: demo.reservations.active,
      webhook: demo.webhook!.id,
    };
    const { url, document } = await start({ DOCS_SANDBOX_TENANT_ID: tenantId, DOCS_SANDBOX_IDS: Object.entries(ids).map(([record, id]) => `${record}=${id}`).join(',') });
    const withIds = Object.entries(document.paths).filter(([path]) => path.includes('{id}'));
    expect(withIds.length).toBeGreaterThan(10);
    for (const [path, methods] of withIds) {
      for (const [method, operation] of Object.entries(methods)) {
        const id = operation.parameters!.find((p) => p.in === 'path' && p.name === 'id')!;
        // In words, with where to find it: never a bare "id".
        expect(id.description, `${method} ${path}`).toMatch(/^The .+, as `id` in .+, e\.g\. `[^`]+`\./);
        if (path.startsWith('/api/partner/v1/reservations/')) expect(id.example, `${method} ${path}`).toBe(demo.reservations.active);
        if (method !== 'get') continue;
        const res = await fetch(`${url}${path.replace('{id}', String(id.example))}`, { headers: { Authorization: `Bearer ${key}`, 'X-Tenant-Id': tenantId } });
        expect(res.status, `${method} ${path} with ${String(id.example)}`).toBe(200);
      }
    }
    expect(document.paths['/api/partner/v1/transfers/{id}/ship']!.patch!.parameters!.find((p) => p.name === 'id')!.example).toBe(demo.transfers.approved);
    expect(document.paths['/api/partner/v1/webhooks/{id}']!.patch!.parameters!.find((p) => p.name === 'id')!.example).toBe(String(demo.webhook!.id));
  });

  it('refuses a DOCS_SANDBOX_TENANT_ID that is not a tenant id, and DOCS_SANDBOX_IDS naming an unknown record or a malformed id', () => {
    expect(() => loadGatewayConfig({ CREDENTIALS_KEY: 's'.repeat(64), DOCS_SANDBOX_TENANT_ID: 'demo' })).toThrow(/DOCS_SANDBOX_TENANT_ID/);
    for (const ids of ['order=RSV-1', 'reservation=RSV 1', 'reservation', 'reservation=RSV-1,reservation=RSV-2', 'product=1=2']) {
      expect(() => loadGatewayConfig({ CREDENTIALS_KEY: 's'.repeat(64), DOCS_SANDBOX_IDS: ids }), ids).toThrow(/DOCS_SANDBOX_IDS/);
    }
    expect(loadGatewayConfig({ CREDENTIALS_KEY: 's'.repeat(64), DOCS_SANDBOX_IDS: 'reservation=RSV-20261122-000002, product=1' }).docsSandboxIds).toEqual({ reservation: 'RSV-20261122-000002', product: '1' });
  });
});
