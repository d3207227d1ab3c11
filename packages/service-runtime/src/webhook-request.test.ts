// One webhook POST against real sockets on 127.0.0.1: refused before connecting, bounded in time,
// and described in general words.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HostResolver } from '@pits/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { genericReason, postWebhook } from './webhook-request.js';

describe('postWebhook', () => {
  let port = 0;
  let connections = 0;
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString('utf8')));
    req.on('end', () => {
      bodies.push(text);
      res.writeHead(202, { 'content-type': 'text/plain' }).end('queued');
    });
  });
  server.on('connection', () => (connections += 1));
  beforeAll(async () => {
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const post = (url: string, options: { allowPrivate?: boolean; resolve?: HostResolver; timeoutMs?: number } = {}) =>
    postWebhook({
      url,
      headers: { 'Content-Type': 'application/json' },
      body: '{"ping":true}',
      timeoutMs: options.timeoutMs ?? 2000,
      policy: { allowPrivate: options.allowPrivate ?? false },
      resolve: options.resolve ?? (() => Promise.reject(new Error('the resolver must not be asked'))),
    });

  it('refuses a non-public literal, http, or user information without a lookup or a connection', async () => {
    const before = connections;
    for (const url of [`https://127.0.0.1:${port}/`, `https://2130706433:${port}/`, `http://127.0.0.1:${port}/`, `http://u:p@127.0.0.1:${port}/`]) {
      expect(await post(url), url).toEqual({ answered: false, reason: 'address not allowed' });
    }
    expect(connections - before).toBe(0);
  });

  it('with the operator setting, posts the body to the checked address and returns the status and answer', async () => {
    expect(await post(`http://127.0.0.1:${port}/hook?x=1`, { allowPrivate: true })).toEqual({ answered: true, statusCode: 202, body: 'queued' });
    expect(bodies.at(-1)).toBe('{"ping":true}');
  });

  it('a name that does not resolve is "host not found"; a resolver that never answers runs into the timeout', async () => {
    const missing: HostResolver = () => Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.test'), { code: 'ENOTFOUND' }));
    expect(await post(`https://nowhere.test:${port}/`, { resolve: missing })).toEqual({ answered: false, reason: 'host not found' });
    const started = Date.now();
    const outcome = await post(`https://slow.test:${port}/`, { resolve: () => new Promise(() => undefined), timeoutMs: 200 });
    expect(outcome).toEqual({ answered: false, reason: 'timeout after 200 ms' });
    expect(Date.now() - started).toBeLessThan(1500);
  });
});

describe('genericReason', () => {
  const coded = (code: string, message = `${code} from 10.0.0.5:6379 (redis 7.2 says -NOAUTH)`) => Object.assign(new Error(message), { code });

  it.each([
    ['ECONNREFUSED', 'connection refused'],
    ['ECONNRESET', 'connection reset'],
    ['EPIPE', 'connection reset'],
    ['EHOSTUNREACH', 'host unreachable'],
    ['ENOTFOUND', 'host not found'],
    ['EAI_AGAIN', 'host not found'],
    ['EPROTO', 'TLS error'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'TLS error'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'TLS error'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'TLS error'],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'TLS error'],
    ['CERT_HAS_EXPIRED', 'TLS error'],
    ['HPE_INVALID_CONSTANT', 'invalid HTTP response'],
    ['ESOMETHINGNEW', 'connection failed'],
  ])('%s is "%s", whatever the message says', (code, reason) => {
    expect(genericReason(coded(code))).toBe(reason);
  });

  it('reads the code of an aggregate error (every address refused) and never a message', () => {
    expect(genericReason(Object.assign(new AggregateError([coded('ECONNREFUSED')]), { code: 'ECONNREFUSED' }))).toBe('connection refused');
    expect(genericReason(new Error('connect ECONNREFUSED 127.0.0.1:5432'))).toBe('connection failed');
    expect(genericReason('socket hang up')).toBe('connection failed');
  });
});
