import type { ServerResponse } from 'node:http';
import { once } from 'node:events';
import { type AddressInfo, type Socket, connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type LimitedServer, createLimitedServer, urlHost } from './http-server.js';

const LIMITS = { headersTimeoutMs: 400, requestTimeoutMs: 800, keepAliveTimeoutMs: 5000, maxHeaderBytes: 2048 };

let current: LimitedServer | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await current?.close(0);
  current = undefined;
});

async function start(handler: Parameters<typeof createLimitedServer>[0]): Promise<number> {
  current = createLimitedServer(handler, LIMITS);
  current.server.listen(0, '127.0.0.1');
  await once(current.server, 'listening');
  return (current.server.address() as AddressInfo).port;
}

/** A raw client: what it received, and when the server closed it (ms after it connected). */
async function rawClient(port: number): Promise<{ socket: Socket; received: () => string; closedAfter: Promise<number> }> {
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  socket.on('error', () => undefined);
  await once(socket, 'connect');
  const started = performance.now();
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
  const closedAfter = new Promise<number>((resolve) => socket.once('close', () => resolve(performance.now() - started)));
  return { socket, received: () => text, closedAfter };
}

const ok = (_req: unknown, res: ServerResponse) => {
  res.setHeader('content-type', 'text/plain');
  res.end('ok');
};

describe('limited HTTP server', () => {
  it('cuts a client whose headers trickle in, soon after the headers timeout', async () => {
    const port = await start(ok);
    const client = await rawClient(port);
    client.socket.write('GET / HTTP/1.1\r\nHost: x\r\n');
    const timer = setInterval(() => client.socket.write('X-Slow: 1\r\n'), 100);
    const ms = await client.closedAfter;
    clearInterval(timer);
    expect(ms).toBeGreaterThanOrEqual(350);
    expect(ms).toBeLessThan(LIMITS.headersTimeoutMs + 1500);
  });

  it('cuts a body that trickles in, soon after the request timeout, with 408', async () => {
    const port = await start((req, res) => {
      req.resume();
      req.on('end', () => ok(req, res));
    });
    const client = await rawClient(port);
    client.socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n');
    const timer = setInterval(() => client.socket.write('{'), 100);
    const ms = await client.closedAfter;
    clearInterval(timer);
    expect(ms).toBeLessThan(LIMITS.requestTimeoutMs + 1500);
    expect(client.received()).toMatch(/^HTTP\/1\.1 408/);
  });

  it('refuses headers above the size limit with 431, and a malformed request with 400, both with the security headers', async () => {
    const port = await start(ok);
    const client = await rawClient(port);
    client.socket.write(`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(4096)}\r\n\r\n`);
    await client.closedAfter;
    expect(client.received()).toMatch(/^HTTP\/1\.1 431/);
    const malformed = await rawClient(port);
    malformed.socket.write('NOT A REQUEST\r\n\r\n');
    await malformed.closedAfter;
    for (const answer of [client.received(), malformed.received()]) {
      expect(answer.toLowerCase()).toContain('x-content-type-options: nosniff');
      expect(answer.toLowerCase()).toContain('cache-control: no-store');
    }
    expect(malformed.received()).toMatch(/^HTTP\/1\.1 400/);
  });

  it('on close, drops idle keep-alive connections at once and finishes in-flight requests', async () => {
    let finish!: () => void;
    const slow = new Promise<void>((resolve) => (finish = resolve));
    const port = await start((req, res) => {
      if (req.url === '/slow') void slow.then(() => ok(req, res));
      else ok(req, res);
    });
    const idle = await rawClient(port);
    idle.socket.write('GET /fast HTTP/1.1\r\nHost: x\r\n\r\n');
    while (!idle.received().includes('ok')) await new Promise((r) => setTimeout(r, 10));
    const busy = await rawClient(port);
    busy.socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((r) => setTimeout(r, 50));

    const closeStarted = performance.now();
    const closed = current!.close(10_000);
    expect(current!.closing).toBe(true);
    await idle.closedAfter;
    expect(performance.now() - closeStarted).toBeLessThan(500);

    setTimeout(finish, 200);
    await busy.closedAfter;
    expect(busy.received()).toMatch(/^HTTP\/1\.1 200/);
    expect(busy.received().toLowerCase()).toContain('connection: close');
    await closed;
    expect(performance.now() - closeStarted).toBeLessThan(2000);
  });
});

describe('urlHost', () => {
  it('names a wildcard address by 127.0.0.1 and brackets IPv6', () => {
    expect(['0.0.0.0', '::', '127.0.0.1', '::1', 'gateway.internal'].map(urlHost)).toEqual(['127.0.0.1', '127.0.0.1', '127.0.0.1', '[::1]', 'gateway.internal']);
  });
});
