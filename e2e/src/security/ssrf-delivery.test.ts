// Webhook hosts are judged by what their names resolve to (docs/webhooks.md#endpoint-urls), at registration and
// again at each delivery, against real processes with the production setting
// (WEBHOOK_ALLOW_PRIVATE_URLS unset). The literal spellings (decimal, hex, short, IPv4-mapped,
// metadata, user information, http) and names that never resolve are webhook-url-policy.test.ts's;
// this file adds the names. The processes resolve through a host table of this test (see
// harness/host-table.ts): the apps have no resolver setting of their own.
//
// - Registration: a name that resolves to a loopback, private, metadata or mixed set of addresses
//   is 422 on url at the gateway and at the internal API, and nothing is stored.
// - Delivery (DNS rebinding): a name that resolved to a public address when it was registered and
//   resolves to loopback when the worker sends is refused after the lookup, without a connection,
//   and retried like any failure; a name that stopped resolving is "host not found". The same table
//   with the operator setting on does connect, so the refusal is the policy's and not the table's.
//
// Every name the workers can resolve resolves to 127.0.0.1 only, and every endpoint is registered
// before a worker starts: nothing can leave the machine.
import { randomBytes } from 'node:crypto';
import { type InternalClient, TRPCClientError } from '@pits/internal-api/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ChildService } from '../harness/child-service.js';
import { e2eDialects } from '../harness/e2e-database.js';
import { expectError } from '../harness/error-envelope.js';
import { showOutputOnFailure } from '../harness/failure-output.js';
import { type GatewayClient, gatewayClient } from '../harness/gateway-client.js';
import type { JsonBody } from '../harness/gateway-response.js';
import { hostLookups, hostTableEnv, hostTableLoaded } from '../harness/host-table.js';
import { createProduct, createShipment } from '../harness/inbound-fixtures.js';
import { stopAfterLedgerCheck } from '../harness/ledger-check.js';
import { type OnboardedPartner, onboardPartner } from '../harness/partner-onboarding.js';
import { pollUntil } from '../harness/poll-until.js';
import { type ServiceStack, startStack } from '../harness/service-stack.js';
import { startInternalApiProcess } from '../harness/start-internal-api.js';
import { type WebhookReceiver, startWebhookReceiver } from '../harness/webhook-receiver.js';
import { type WorkerProcess, startWorkerProcess } from '../harness/webhook-worker-process.js';

const WEBHOOKS = '/api/partner/v1/webhooks';
const DELIVERIES = '/api/partner/v1/webhooks/deliveries';
const EVENT = 'inbound.status_changed';
/** A public address the registering processes' table gives the rebinding names; no process ever connects to it (only registration resolves there). */
const PUBLIC_ADDRESS = '93.184.215.14';
const NON_PUBLIC_NAME = 'must point to a public address (the host name resolves to a non-public address)';

/** Names a registration must refuse by what they resolve to. */
const REFUSED_AT_REGISTRATION: Record<string, string[]> = {
  'loopback.rebind.test': ['127.0.0.1'],
  'loopback6.rebind.test': ['::1'],
  'mapped.rebind.test': ['::ffff:127.0.0.1'],
  'private.rebind.test': ['10.0.0.7'],
  'metadata.rebind.test': ['169.254.169.254'],
  'linklocal.rebind.test': ['fe80::1'],
  'mixed.rebind.test': [PUBLIC_ADDRESS, '192.168.1.10'],
};
/** Names that were public when registered and resolve elsewhere (or nowhere) when the worker sends. */
const REBOUND = 'rebound.rebind.test';
const REBOUND_MAPPED = 'rebound-mapped.rebind.test';
const VANISHED = 'vanished.rebind.test';
const CONTROL = 'control.rebind.test';
const AT_REGISTRATION = { ...REFUSED_AT_REGISTRATION, [REBOUND]: [PUBLIC_ADDRESS], [REBOUND_MAPPED]: [PUBLIC_ADDRESS], [VANISHED]: [PUBLIC_ADDRESS], [CONTROL]: [PUBLIC_ADDRESS] };
const AT_DELIVERY = { [REBOUND]: ['127.0.0.1'], [REBOUND_MAPPED]: ['::ffff:127.0.0.1'], [CONTROL]: ['127.0.0.1'] };
const WORKER_ENV = { WEBHOOK_TIMEOUT_MS: '3000', WEBHOOK_LEASE_MS: '4000', ...hostTableEnv(AT_DELIVERY) };

const dialects = await e2eDialects();

/** The refusal of an internal API call, as its client reads it. */
async function internalRefusal(call: Promise<unknown>): Promise<{ code: unknown; kind: unknown; field: unknown; message: string }> {
  try {
    await call;
  } catch (error) {
    if (!(error instanceof TRPCClientError)) throw error;
    const data = error.data as Record<string, unknown>;
    return { code: data.code, kind: data.kind, field: data.field, message: error.message };
  }
  throw new Error('expected the internal API to refuse');
}

describe.each(dialects)('[%s] security: webhook names are judged by what they resolve to', (dialect) => {
  let stack: ServiceStack;
  let gw: GatewayClient;
  /** A second internal API on the same database, resolving through the registration table. */
  let internalApi: ChildService;
  let internal: InternalClient;
  const workers: WorkerProcess[] = [];
  const receivers: WebhookReceiver[] = [];

  const startWorker = async (name: string, env: Record<string, string>) => {
    const worker = await startWorkerProcess({ databaseUrl: stack.database.url, credentialsKey: stack.credentialsKey, name, env });
    workers.push(worker);
    expect(hostTableLoaded(worker.output()), `${name} resolves through the test's host table`).toBe(true);
    return worker;
  };
  const receiver = async (name: string) => {
    const started = await startWebhookReceiver(name);
    receivers.push(started);
    return { receiver: started, port: new URL(started.url).port };
  };
  const register = async (partner: OnboardedPartner, url: string) => {
    const res = await gw.post(WEBHOOKS, { url, event_types: [EVENT] }, { key: partner.key });
    expect(res.status, `${url}: ${res.text}`).toBe(201);
    return res.body.data.webhook.id as string;
  };
  /** An inbound status change for the partner's tenant, caused through the gateway. */
  const causeEvent = async (partner: OnboardedPartner) => {
    const tenant = partner.tenants[0]!;
    const product = await createProduct(stack.internal, tenant.id, 'Hook');
    const shipment = await createShipment(stack.internal, tenant.id, tenant.locationIds[0]!, [[product.id, 5]]);
    const res = await gw.post(`/api/partner/v1/inbound/${shipment.id}/receive`, { items: [{ item_id: String(shipment.lines[0]!.id), received_quantity: 1 }] }, {
      key: partner.key,
      tenant: tenant.id,
      template: '/api/partner/v1/inbound/{id}/receive',
    });
    expect(res.status, res.text).toBe(200);
  };
  /** The partner's deliveries once each has made its first attempt. */
  const firstAttempts = (partner: OnboardedPartner, count: number) =>
    pollUntil(`${count} deliveries with a first attempt`, 20_000, async () => {
      const res = await gw.get(DELIVERIES, { key: partner.key, query: { limit: 100 } });
      expect(res.status, res.text).toBe(200);
      const rows = res.body.data.deliveries as JsonBody[];
      return rows.length === count && rows.every((d) => d.attempts >= 1) ? rows : undefined;
    }, 100);

  beforeAll(async () => {
    stack = await startStack(dialect, { gatewayEnv: hostTableEnv(AT_REGISTRATION) });
    gw = gatewayClient(stack.gateway.url);
    expect(hostTableLoaded(stack.gateway.output()), 'the gateway resolves through the test’s host table').toBe(true);
    const token = randomBytes(24).toString('base64url');
    const started = await startInternalApiProcess({ databaseUrl: stack.database.url, credentialsKey: stack.credentialsKey, token, env: hostTableEnv(AT_REGISTRATION), name: 'internal-api-hosts' });
    internalApi = started.service;
    internal = started.client;
    expect(hostTableLoaded(internalApi.output())).toBe(true);
  });
  afterAll(async () => {
    try {
      await Promise.all(workers.map((w) => w.stop(5000)));
      await Promise.all(receivers.map((r) => r.close()));
      await internalApi?.stop();
    } finally {
      await stopAfterLedgerCheck(stack);
    }
  });
  showOutputOnFailure(() => [...(stack?.services() ?? []), internalApi]);
  afterEach((context) => {
    if (context.task.result?.state === 'fail') for (const w of workers) console.error(w.describe(40));
  });

  it('registration: a name resolving to a loopback, private, link-local, metadata or mixed address is 422 on url at the gateway and the internal API', async () => {
    const partner = await onboardPartner(stack.internal, gw, { label: 'Resolver', tenants: 0 });
    for (const [name, addresses] of Object.entries(REFUSED_AT_REGISTRATION)) {
      const url = `https://${name}/hook`;
      const res = await gw.post(WEBHOOKS, { url, event_types: [EVENT] }, { key: partner.key });
      expectError(res, 'VALIDATION_ERROR', 'url');
      expect(res.body.error.details.issue, url).toBe(NON_PUBLIC_NAME);
      expect(await internalRefusal(internal.webhooks.create.mutate({ partnerId: partner.id, url, eventTypes: [EVENT] })), url).toEqual({
        code: 'BAD_REQUEST',
        kind: 'VALIDATION_ERROR',
        field: 'url',
        message: `url ${NON_PUBLIC_NAME}`,
      });
      // What a name resolves to inside the network is never told.
      for (const address of addresses.filter((a) => a !== PUBLIC_ADDRESS)) expect(res.text, `${url}: the resolved address is not named`).not.toContain(address);
    }
    const looked = hostLookups(stack.gateway.output());
    for (const name of Object.keys(REFUSED_AT_REGISTRATION)) expect(looked, `the gateway resolved ${name}`).toContain(name);
    expect((await gw.get(WEBHOOKS, { key: partner.key })).body.data.webhooks, 'nothing was registered').toEqual([]);
    expect(await internal.webhooks.list.query({ partnerId: partner.id })).toEqual([]);
  });

  it('delivery: a name that now resolves to loopback is refused after the lookup without connecting; with the operator setting the same table connects', async () => {
    const rebound = await onboardPartner(stack.internal, gw, { label: 'Rebound', tenants: 1, locations: 1 });
    const control = await onboardPartner(stack.internal, gw, { label: 'Control', tenants: 1, locations: 1 });
    const target = await receiver('rebound');
    const controlTarget = await receiver('control');
    // Registered while every name resolves to a public address, and before any worker runs.
    const endpoints = {
      [REBOUND]: await register(rebound, `https://${REBOUND}:${target.port}/hooks/rebound`),
      [REBOUND_MAPPED]: await register(rebound, `https://${REBOUND_MAPPED}:${target.port}/hooks/rebound`),
      [VANISHED]: await register(rebound, `https://${VANISHED}:${target.port}/hooks/rebound`),
    };
    await register(control, `https://${CONTROL}:${controlTarget.port}/hooks/control`);

    // The control: the operator setting on, the same table. It reaches the receiver (which speaks
    // plain HTTP, so the TLS handshake fails): the table does send control.rebind.test to 127.0.0.1.
    await causeEvent(control);
    const lenient = await startWorker('worker-allowing-private', { ...WORKER_ENV, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
    const [reached] = await firstAttempts(control, 1);
    await lenient.stop(5000);
    expect(reached.attempt_log[0]).toMatchObject({ status_code: null, error: 'TLS error', succeeded: false });
    expect(controlTarget.receiver.connections(), 'the operator setting lets the same kind of name connect').toBeGreaterThanOrEqual(1);
    expect(hostLookups(lenient.output())).toContain(CONTROL);

    // The production setting: each name is looked up, judged on its answer, and never connected to.
    await causeEvent(rebound);
    const strict = await startWorker('worker-production', WORKER_ENV);
    const rows = await firstAttempts(rebound, 3);
    const byEndpoint = new Map(rows.map((d) => [d.endpoint_id as string, d]));
    const expected: Array<[keyof typeof endpoints, string]> = [
      [REBOUND, 'address not allowed'],
      [REBOUND_MAPPED, 'address not allowed'],
      [VANISHED, 'host not found'],
    ];
    for (const [name, reason] of expected) {
      const delivery = byEndpoint.get(endpoints[name]);
      expect(delivery, name).toBeDefined();
      // Retried like any failure: still pending, the next attempt scheduled on the published backoff.
      expect(delivery, name).toMatchObject({ status: 'pending', attempts: 1, last_status_code: null, last_error: reason });
      expect(delivery!.attempt_log, name).toEqual([expect.objectContaining({ attempt: 1, status_code: null, error: reason, response_body: null, succeeded: false })]);
      expect(Date.parse(delivery!.next_attempt_at) - Date.parse(delivery!.attempt_log[0].started_at), `${name}: next attempt after the first backoff (10 s)`).toBeGreaterThanOrEqual(9_000);
      expect(hostLookups(strict.output()), `${name} was resolved before it was refused`).toContain(name);
    }
    expect(target.receiver.connections(), 'no connection reached 127.0.0.1 through a rebound name').toBe(0);
    expect(target.receiver.arrivals).toEqual([]);
  });
});
