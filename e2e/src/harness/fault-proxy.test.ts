// The fault proxy against a local echo server (exact bytes and timings) and in front of the real
// PostgreSQL and Redis (what a driver actually sees). Every wait is bounded; every socket, client
// and proxy a test opens is closed in afterEach.
import { randomBytes } from 'node:crypto';
import { type Server, type Socket, connect, createServer } from 'node:net';
import { testDialects, testPostgresUrl } from '@pits/persistence/testing';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { type FaultProxy, startFaultProxy } from './fault-proxy.js';
import { freePort, portIsFree } from './free-port.js';
import { pollUntil } from './poll-until.js';
import { redisForTests } from './redis-availability.js';

const HELD_MS = 500;
const cleanups: (() => unknown)[] = [];

// Clients first, proxies and servers last (reverse order); one failing cleanup does not skip the rest.
afterEach(async () => {
  const failures: unknown[] = [];
  for (const cleanup of cleanups.splice(0).reverse()) await Promise.resolve().then(cleanup).catch((error: unknown) => failures.push(error));
  if (failures.length > 0) throw failures[0];
});

/** `promise`'s value, or `'timeout'` when it takes longer than `ms`. */
function within<T>(ms: number, promise: Promise<T>): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** How `promise` failed (its error code, else its message), or `'timeout'`, or `'resolved'`. */
function failure(ms: number, promise: Promise<unknown>): Promise<string> {
  return within(ms, promise.then(() => 'resolved', (error: NodeJS.ErrnoException) => error.code ?? error.message));
}

async function proxyTo(port: number): Promise<FaultProxy> {
  const proxy = await startFaultProxy({ target: { host: '127.0.0.1', port } });
  cleanups.push(() => proxy.close());
  return proxy;
}

interface EchoServer {
  port: number;
  /** Bytes the server has received, over all its connections. */
  received(): number;
  /** Connections open on the server side now. */
  open(): number;
}

async function startEchoServer(): Promise<EchoServer> {
  const sockets = new Set<Socket>();
  let received = 0;
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    socket.on('data', (chunk) => {
      received += chunk.length;
      socket.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => {
    for (const socket of sockets) socket.destroy();
    return new Promise((resolve) => server.close(resolve));
  });
  const address = server.address();
  return { port: typeof address === 'object' && address ? address.port : 0, received: () => received, open: () => sockets.size };
}

/** A connected client socket; rejects with the connect error (ECONNREFUSED…). */
function openSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    cleanups.push(() => void socket.destroy());
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.off('error', reject);
      socket.on('error', () => undefined);
      resolve(socket);
    });
  });
}

/** Writes `text` and collects what comes back until it is as long as `text`, or `'timeout'`. */
function echo(socket: Socket, text: string, ms = 2000): Promise<string> {
  return within(ms, readLength(socket, Buffer.byteLength(text), () => socket.write(text))).then((read) => (read === 'timeout' ? read : read.toString('utf8')));
}

function readLength(socket: Socket, length: number, start: () => void = () => undefined): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size < length) return;
      socket.off('data', onData);
      resolve(Buffer.concat(chunks));
    };
    socket.on('data', onData);
    start();
  });
}

/** Resolves with the error code the socket closed with (`'clean'` without one), or `'timeout'`. */
function closing(socket: Socket, ms = 2000): Promise<string> {
  const closed = new Promise<string>((resolve) => {
    let code = 'clean';
    socket.on('error', (error: NodeJS.ErrnoException) => (code = error.code ?? error.message));
    if (socket.destroyed) resolve(code);
    socket.once('close', () => resolve(code));
  });
  return within(ms, closed);
}

describe('fault proxy over a local echo server', () => {
  it('passes bytes both ways, a large payload whole and in order, and counts them', async () => {
    const server = await startEchoServer();
    const proxy = await proxyTo(server.port);
    const socket = await openSocket(proxy.port);
    expect(proxy.mode()).toBe('pass');
    expect(await echo(socket, 'hello')).toBe('hello');

    // 8 MiB is far past every socket buffer: it crosses in many chunks and must come back whole, in order.
    const payload = randomBytes(8 * 1024 * 1024);
    const back = await within(10_000, readLength(socket, payload.length, () => socket.write(payload)));
    expect(back !== 'timeout' && back.equals(payload)).toBe(true);
    expect(proxy.connections()).toBe(1);
    expect(proxy.stats()).toMatchObject({ accepted: 1, bytesToTarget: 5 + payload.length, bytesToClient: 5 + payload.length, destroyed: 0 });
  });

  it('holds back the target while the client does not read (backpressure), then delivers everything', async () => {
    // A target that streams 64 MiB as fast as its socket lets it. Without backpressure the proxy
    // would swallow all of it into memory while the client reads nothing.
    const total = 64 * 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, 7);
    let sent = 0;
    const server = createServer((socket) => {
      socket.on('error', () => undefined);
      const pump = () => {
        while (sent < total) {
          sent += chunk.length;
          if (!socket.write(chunk)) return void socket.once('drain', pump);
        }
        socket.end();
      };
      pump();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => server.close(resolve)));
    const address = server.address();
    const proxy = await proxyTo(typeof address === 'object' && address ? address.port : 0);

    const socket = await openSocket(proxy.port); // no 'data' listener yet: the client reads nothing
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(sent).toBeLessThan(total / 2);

    const received = await within(20_000, readLength(socket, total));
    expect(received === 'timeout' ? received : received.length).toBe(total);
    expect(proxy.stats().bytesToClient).toBe(total);
  });

  it('cut resets open connections, refuses new ones at once, and pass() reopens the same port', async () => {
    const server = await startEchoServer();
    const proxy = await proxyTo(server.port);
    const socket = await openSocket(proxy.port);
    expect(await echo(socket, 'before')).toBe('before');
    const port = proxy.port;

    const closed = closing(socket);
    await proxy.cut();
    expect(await closed).toBe('ECONNRESET');
    expect(proxy.mode()).toBe('cut');
    await pollUntil('the target side to close', 2000, () => (server.open() === 0 ? true : undefined), 20);

    const startedAt = Date.now();
    expect(await failure(2000, openSocket(port))).toBe('ECONNREFUSED');
    expect(Date.now() - startedAt).toBeLessThan(1000);
    expect(proxy.connections()).toBe(0);

    await proxy.pass();
    expect(proxy.port).toBe(port);
    expect(await echo(await openSocket(port), 'after')).toBe('after');
    expect(proxy.stats()).toMatchObject({ accepted: 2, destroyed: 1 });
  });

  it('reset drops every open connection once and keeps accepting new ones', async () => {
    const server = await startEchoServer();
    const proxy = await proxyTo(server.port);
    const first = await openSocket(proxy.port);
    const second = await openSocket(proxy.port);
    expect(await echo(first, 'one')).toBe('one');
    expect(await echo(second, 'two')).toBe('two');

    const closed = [closing(first), closing(second)];
    await proxy.reset();
    expect(await Promise.all(closed)).toEqual(['ECONNRESET', 'ECONNRESET']);
    expect(proxy.mode()).toBe('pass');
    await pollUntil('the target side to close', 2000, () => (server.open() === 0 ? true : undefined), 20);

    expect(await echo(await openSocket(proxy.port), 'three')).toBe('three');
    expect(proxy.stats()).toMatchObject({ accepted: 3, destroyed: 2 });
  });

  it('stall forwards nothing either way, holds new connections, and pass() resumes them where they stopped', async () => {
    const server = await startEchoServer();
    const proxy = await proxyTo(server.port);
    const held = await openSocket(proxy.port);
    expect(await echo(held, 'warm')).toBe('warm');
    const receivedBefore = server.received();

    await proxy.stall();
    expect(proxy.mode()).toBe('stall');
    const heldAnswer = echo(held, 'held', 5000);
    expect(await within(HELD_MS, heldAnswer)).toBe('timeout');
    const late = await openSocket(proxy.port); // the handshake succeeds
    const lateAnswer = echo(late, 'late', 5000);
    expect(await within(HELD_MS, lateAnswer)).toBe('timeout');
    expect(server.received()).toBe(receivedBefore);
    expect(server.open()).toBe(1); // the held newcomer never reached the target
    expect(proxy.connections()).toBe(2);

    await proxy.pass();
    expect(await heldAnswer).toBe('held');
    expect(await lateAnswer).toBe('late');
    expect(proxy.stats().destroyed).toBe(0);
  });

  it('stall stops reading, so a writer backs up in its own socket, and pass() delivers it all', async () => {
    const server = await startEchoServer();
    const proxy = await proxyTo(server.port);
    const socket = await openSocket(proxy.port);
    await proxy.stall();
    const payload = Buffer.alloc(64 * 1024 * 1024, 1);
    socket.write(payload);
    await new Promise((resolve) => setTimeout(resolve, 300));
    // A stalled peer takes no more than the kernel buffers hold; the rest waits in the writer.
    expect(socket.writableLength).toBeGreaterThan(payload.length / 2);
    expect(server.received()).toBe(0);

    await proxy.pass();
    await pollUntil('the payload to reach the target', 20_000, () => (server.received() === payload.length ? true : undefined), 20);
  });

  it('reset after a stall drops the held connections instead of resuming them', async () => {
    const server = await startEchoServer();
    const proxy = await proxyTo(server.port);
    const held = await openSocket(proxy.port);
    await proxy.stall();
    const closed = closing(held);
    await proxy.reset();
    expect(await closed).toBe('ECONNRESET');
    expect(await echo(await openSocket(proxy.port), 'fresh')).toBe('fresh');
  });

  it('latency delays every chunk in each direction and keeps their order', async () => {
    const server = await startEchoServer();
    const proxy = await proxyTo(server.port);
    const socket = await openSocket(proxy.port);
    proxy.latency(150);
    const startedAt = Date.now();
    const answer = readLength(socket, 3);
    for (const letter of ['a', 'b', 'c']) socket.write(letter);
    const back = await within(5000, answer);
    expect(back === 'timeout' ? back : back.toString('utf8')).toBe('abc');
    // There and back again: two delays (less a little timer rounding).
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(290);
    expect(() => proxy.latency(-1)).toThrow(/latency/);
  });

  it('drops the client when the target cannot be reached, without an unhandled error', async () => {
    const proxy = await proxyTo(await freePort());
    const socket = await openSocket(proxy.port);
    expect(await closing(socket)).not.toBe('timeout');
    expect(proxy.stats()).toMatchObject({ accepted: 1, destroyed: 1 });
  });

  it('close() resets connections, frees the port, and may be called again', async () => {
    const server = await startEchoServer();
    const proxy = await proxyTo(server.port);
    const socket = await openSocket(proxy.port);
    const closed = closing(socket);
    await proxy.close();
    expect(await closed).toBe('ECONNRESET');
    expect(await portIsFree(proxy.port)).toBe(true);
    await proxy.close();
    expect(proxy.mode()).toBe('closed');
    await expect(proxy.pass()).rejects.toThrow(/closed/);
  });
});

const postgres = (await testDialects()).includes('postgres');

describe.skipIf(!postgres)('fault proxy in front of the real PostgreSQL', () => {
  const target = new URL(testPostgresUrl());
  const startProxy = () => proxyTo(Number(target.port || 5432));

  function client(proxy: FaultProxy): pg.Client {
    const c = new pg.Client({ connectionString: proxy.url(testPostgresUrl()), connectionTimeoutMillis: 5000 });
    c.on('error', () => undefined); // a reset connection is reported here as well as to the query
    cleanups.push(() => within(2000, c.end()));
    return c;
  }

  async function selectOne(c: pg.Client): Promise<number | undefined> {
    const { rows } = await c.query<{ one: number }>('select 1 as one');
    return rows[0]?.one;
  }

  it('passes a query through', async () => {
    const proxy = await startProxy();
    const c = client(proxy);
    await c.connect();
    expect(await selectOne(c)).toBe(1);
    expect(proxy.stats().bytesToClient).toBeGreaterThan(0);
  });

  it('cut fails a query in flight and refuses new connections; pass() serves new ones', async () => {
    const proxy = await startProxy();
    const conn = client(proxy);
    await conn.connect();
    const inFlight = conn.query('select pg_sleep(2)');
    await new Promise((resolve) => setTimeout(resolve, 100));
    await proxy.cut();
    expect(await failure(1000, inFlight)).not.toMatch(/^(timeout|resolved)$/);

    const startedAt = Date.now();
    expect(await failure(2000, client(proxy).connect())).toBe('ECONNREFUSED');
    expect(Date.now() - startedAt).toBeLessThan(1000);

    await proxy.pass();
    const again = client(proxy);
    await again.connect();
    expect(await selectOne(again)).toBe(1);
  });

  it('reset breaks the open connection, and a new one works straight away', async () => {
    const proxy = await startProxy();
    const conn = client(proxy);
    await conn.connect();
    expect(await selectOne(conn)).toBe(1);
    await proxy.reset();
    expect(await failure(2000, selectOne(conn))).not.toMatch(/^(timeout|resolved)$/);

    const fresh = client(proxy);
    await fresh.connect();
    expect(await selectOne(fresh)).toBe(1);
  });

  it('stall makes a query and a new connection hang; pass() lets both finish', async () => {
    const proxy = await startProxy();
    const conn = client(proxy);
    await conn.connect();
    await proxy.stall();
    const query = selectOne(conn);
    expect(await within(HELD_MS, query)).toBe('timeout');
    const late = client(proxy);
    const connecting = late.connect();
    expect(await within(HELD_MS, connecting)).toBe('timeout');

    await proxy.pass();
    expect(await within(5000, query)).toBe(1);
    await connecting;
    expect(await selectOne(late)).toBe(1);
  });
});

const redis = await redisForTests();

describe.skipIf('skip' in redis)('fault proxy in front of the real Redis', () => {
  const target = new URL('url' in redis ? redis.url : 'redis://127.0.0.1:6379');
  const startProxy = () => proxyTo(Number(target.port || 6379));

  /** A client that never retries by itself, so each test sees exactly what the proxy did. */
  function client(proxy: FaultProxy): Redis {
    const c = new Redis(proxy.url(target.toString()), {
      lazyConnect: true,
      retryStrategy: () => null,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      connectTimeout: 5000,
    });
    c.on('error', () => undefined);
    cleanups.push(() => c.disconnect());
    return c;
  }

  it('passes a PING through', async () => {
    const proxy = await startProxy();
    const c = client(proxy);
    await c.connect();
    expect(await c.ping()).toBe('PONG');
  });

  it('cut breaks the open connection and refuses new ones; pass() serves new ones', async () => {
    const proxy = await startProxy();
    const conn = client(proxy);
    await conn.connect();
    const ended = new Promise((resolve) => conn.once('end', resolve));
    await proxy.cut();
    expect(await within(2000, ended)).not.toBe('timeout');
    expect(await failure(1000, conn.ping())).not.toMatch(/^(timeout|resolved)$/);

    // ioredis rejects connect() with its own message; the socket's error comes as an 'error' event.
    const refused = client(proxy);
    const refusal = new Promise<string>((resolve) => refused.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message)));
    const startedAt = Date.now();
    expect(await failure(2000, refused.connect())).not.toMatch(/^(timeout|resolved)$/);
    expect(await within(1000, refusal)).toBe('ECONNREFUSED');
    expect(Date.now() - startedAt).toBeLessThan(1000);

    await proxy.pass();
    const again = client(proxy);
    await again.connect();
    expect(await again.ping()).toBe('PONG');
  });

  it('reset breaks the open connection, and a new one works straight away', async () => {
    const proxy = await startProxy();
    const conn = client(proxy);
    await conn.connect();
    const ended = new Promise((resolve) => conn.once('end', resolve));
    await proxy.reset();
    expect(await within(2000, ended)).not.toBe('timeout');
    expect(await failure(1000, conn.ping())).not.toMatch(/^(timeout|resolved)$/);

    const fresh = client(proxy);
    await fresh.connect();
    expect(await fresh.ping()).toBe('PONG');
  });

  it('stall makes a PING hang; pass() lets it answer', async () => {
    const proxy = await startProxy();
    const conn = client(proxy);
    await conn.connect();
    await proxy.stall();
    const ping = conn.ping();
    expect(await within(HELD_MS, ping)).toBe('timeout');
    await proxy.pass();
    expect(await within(5000, ping)).toBe('PONG');
  });
});
