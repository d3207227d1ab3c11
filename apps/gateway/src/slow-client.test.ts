// A client slower than the request deadline (docs/errors.md#kinds-and-statuses): a body that
// trickles in is answered 408 REQUEST_TIMEOUT with `Connection: close`, the connection is closed,
// and it counts as a 4xx, not as the service being down. The test server's deadline is short and
// the trickle long, so what is asserted (status, close, counters) does not depend on the
// machine's speed. Loopback only, bounded in bytes.
import { once } from 'node:events';
import { connect } from 'node:net';
import { createApiKey } from '@pits/persistence';
import { type TestDatabase, type TenantWorld, connectTenant, embeddedTestDialect, openTestDatabase, seedTenantWorld } from '@pits/persistence/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadGatewayConfig } from './config.js';
import { type Gateway, createGateway } from './create-gateway.js';

const DEADLINE_MS = 200;
/** Bytes the body declares; sent one per interval, so the trickle outlasts the deadline many times over. */
const DECLARED = 120;
const INTERVAL_MS = 50;

describe('a slow client', () => {
  let t: TestDatabase;
  let w: TenantWorld;
  let secret: string;
  let gateway: Gateway;
  let port: number;
  const logged: string[] = [];

  beforeAll(async () => {
    t = await openTestDatabase(embeddedTestDialect());
    w = await seedTenantWorld(t.database);
    secret = (await createApiKey(t.database, w.partner.id, { environment: 'test' }, new Date())).secret;
    await connectTenant(t.database, { partnerId: w.partner.id, tenantId: w.tenant.id, daysConnected: 1, installationType: 'custom' }, new Date());
    const config = loadGatewayConfig({ CREDENTIALS_KEY: 'k'.repeat(64), GATEWAY_HOST: '127.0.0.1', GATEWAY_PORT: '0', REQUEST_DEADLINE_MS: String(DEADLINE_MS) });
    gateway = createGateway(config, { database: t.database, logger: pino({ level: 'info' }, { write: (line: string) => void logged.push(line) }) });
    port = (await gateway.listen()).port;
  });
  afterAll(async () => {
    await gateway.close();
    await t.cleanup();
  });

  /** Sends the headers, then one body byte per interval until the server closes the connection or the body is sent. */
  async function trickle(): Promise<{ response: string; closedByServer: boolean; sent: number }> {
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    let response = '';
    let closedByServer = false;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (response += chunk));
    socket.on('error', () => undefined);
    const ended = new Promise<void>((resolve) => socket.once('end', () => ((closedByServer = true), resolve())));
    socket.write(
      `POST /api/partner/v1/adjustments HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${secret}\r\nX-Tenant-Id: ${w.tenant.id}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${DECLARED}\r\nConnection: keep-alive\r\n\r\n`,
    );
    let sent = 0;
    while (sent < DECLARED && !closedByServer) {
      await Promise.race([new Promise((resolve) => setTimeout(resolve, INTERVAL_MS)), ended]);
      if (closedByServer || socket.destroyed) break;
      socket.write(sent === 0 ? '{' : ' ');
      sent += 1;
    }
    // Bounded: once the whole body is sent, the server has a short while more to close.
    await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, 2000))]);
    socket.destroy();
    return { response, closedByServer, sent };
  }

  it('answers 408 REQUEST_TIMEOUT in the error envelope with Connection: close, and closes the connection', async () => {
    const { response, closedByServer, sent } = await trickle();
    const [head = '', body = ''] = response.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 408 /);
    expect(head).toMatch(/\r\nconnection: close\r\n/i);
    expect(head).not.toMatch(/\r\nretry-after:/i);
    expect(JSON.parse(body)).toMatchObject({ status: 'request_timeout', error: { code: 'REQUEST_TIMEOUT' } });
    // The server closed the connection while the body was still coming, not after it all arrived.
    expect(closedByServer).toBe(true);
    expect(sent).toBeLessThan(DECLARED);
  }, 20_000);

  it('counts it as a 4xx of the route: no 503 in the metrics, no outage warning in the log', async () => {
    const metrics = await gateway.metrics.metrics();
    expect(metrics).toMatch(/pits_http_requests_total\{[^}]*method="POST"[^}]*status="408"[^}]*\} [1-9]/);
    expect(metrics).not.toMatch(/pits_http_requests_total\{[^}]*status="5\d\d"/);
    expect(logged.filter((line) => line.includes('answered 503'))).toEqual([]);
  });

  it('keeps serving: a body sent at once is read as usual', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/api/partner/v1/tenants`, { headers: { Authorization: `Bearer ${secret}` } });
    expect(res.status).toBe(200);
  });
});
