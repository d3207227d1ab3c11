import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_BODY_LIMIT_BYTES, isJsonContentType, jsonBody } from './body-parser.js';
import { sendEnvelopeA } from './envelope.js';
import { type LogLine, json, serveRoutes, type RunningServer } from '../testing/test-server.js';

/** A JSON object whose UTF-8 encoding is exactly `bytes` long. */
function objectOfSize(bytes: number): string {
  const frame = '{"pad":""}';
  return `{"pad":"${'x'.repeat(bytes - frame.length)}"}`;
}

describe('jsonBody', () => {
  let server: RunningServer & { lines: LogLine[] };
  let handled = 0;
  beforeAll(async () => {
    server = await serveRoutes((router) => {
      const echo = jsonBody();
      router.post('/echo', echo, (ctx) => {
        handled += 1;
        sendEnvelopeA(ctx, { body: ctx.request.body ?? 'absent' });
      });
      router.patch('/echo', echo, (ctx) => sendEnvelopeA(ctx, { body: ctx.request.body ?? 'absent' }));
      router.get('/echo', echo, (ctx) => sendEnvelopeA(ctx, { body: ctx.request.body ?? 'absent' }));
      // As in the gateway, where authentication awaits first: the body has arrived by the time it is read.
      const later: Parameters<typeof router.post>[1] = async (_ctx, next) => {
        await new Promise((resolve) => setTimeout(resolve, 30));
        await next();
      };
      router.post('/later', later, echo, (ctx) => sendEnvelopeA(ctx, { body: ctx.request.body ?? 'absent' }));
      router.post('/later-small', later, jsonBody({ limitBytes: 64 }), (ctx) => sendEnvelopeA(ctx, { body: ctx.request.body ?? 'absent' }));
      const preset: Parameters<typeof router.post>[1] = async (ctx, next) => {
        ctx.request.body = { preset: true };
        await next();
      };
      router.post('/preset', preset, echo, (ctx) => sendEnvelopeA(ctx, { body: ctx.request.body ?? 'absent' }));
    });
  });
  afterAll(() => server.close());

  const post = (body: NonNullable<RequestInit['body']>, headers: Record<string, string> = { 'Content-Type': 'application/json' }) =>
    fetch(`${server.url}/echo`, { method: 'POST', body, headers });

  it('parses a JSON object onto ctx.request.body', async () => {
    const res = await post(JSON.stringify({ location_id: 1, items: [{ product_id: '10', quantity: 2 }] }));
    expect(res.status).toBe(200);
    expect((await json(res)).data).toEqual({ body: { location_id: 1, items: [{ product_id: '10', quantity: 2 }] } });
  });

  it('treats an empty POST or PATCH body as {}', async () => {
    const empty = await fetch(`${server.url}/echo`, { method: 'POST' });
    expect((await json(empty)).data).toEqual({ body: {} });
    const blank = await fetch(`${server.url}/echo`, { method: 'PATCH', body: '  \n', headers: { 'Content-Type': 'application/json' } });
    expect((await json(blank)).data).toEqual({ body: {} });
    const arrived = await fetch(`${server.url}/later`, { method: 'POST' });
    expect((await json(arrived)).data).toEqual({ body: {} });
  });

  it('reads the same body whether it arrived before the parser ran or streams in after, in one chunk or many', async () => {
    const body = { reason: 'ünïcødé ✓', items: Array.from({ length: 300 }, (_, i) => ({ product_id: String(i), quantity: i })) };
    const whole = await fetch(`${server.url}/later`, { method: 'POST', body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } });
    expect((await json(whole)).data).toEqual({ body });
    // Headers first, the body in pieces over the following 60 ms: read as it streams in.
    const text = new TextEncoder().encode(JSON.stringify(body));
    const pieces = [text.slice(0, 7), text.slice(7, 4000), text.slice(4000)];
    const slow = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = pieces.shift();
        if (next === undefined) return controller.close();
        await new Promise((resolve) => setTimeout(resolve, 20));
        controller.enqueue(next);
      },
    });
    for (const path of ['/echo', '/later']) {
      const streamed = await fetch(`${server.url}${path}`, { method: 'POST', body: path === '/echo' ? slow : new Blob([text.slice(0, 10), text.slice(10)]), duplex: 'half' } as RequestInit);
      expect((await json(streamed)).data).toEqual({ body });
    }
    const tooLarge = await fetch(`${server.url}/later`, { method: 'POST', body: objectOfSize(DEFAULT_BODY_LIMIT_BYTES + 1), headers: { 'Content-Type': 'application/json' } });
    expect(tooLarge.status).toBe(413);
  });

  it('leaves GET requests alone', async () => {
    const res = await fetch(`${server.url}/echo`);
    expect((await json(res)).data).toEqual({ body: 'absent' });
  });

  it.each([
    ['invalid JSON', '{"location_id": 1,'],
    ['an array', '[1,2,3]'],
    ['null', 'null'],
    ['a string', '"hello"'],
    ['a number', '42'],
  ])('answers %s with 400 INVALID_REQUEST on field ""', async (_, body) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({
      status: 'bad_request',
      error: { code: 'INVALID_REQUEST', details: { field: '' } },
    });
  });

  it('rejects bytes that are not UTF-8 with 400', async () => {
    const res = await post(new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]));
    expect(res.status).toBe(400);
    expect((await json(res)).error?.code).toBe('INVALID_REQUEST');
  });

  it('accepts a body of exactly 1 MiB', async () => {
    const body = objectOfSize(DEFAULT_BODY_LIMIT_BYTES);
    expect(Buffer.byteLength(body)).toBe(1_048_576);
    const res = await post(body);
    expect(res.status).toBe(200);
  });

  it('answers 1 MiB + 1 byte with 413 PAYLOAD_TOO_LARGE without running the handler', async () => {
    const before = handled;
    const res = await post(objectOfSize(DEFAULT_BODY_LIMIT_BYTES + 1));
    expect(res.status).toBe(413);
    expect(await json(res)).toMatchObject({ status: 'payload_too_large', error: { code: 'PAYLOAD_TOO_LARGE' } });
    expect(handled).toBe(before);
  });

  it('stops a chunked upload with no Content-Length once it passes the limit', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 4 * DEFAULT_BODY_LIMIT_BYTES) {
          controller.close();
          return;
        }
        sent += chunk.length;
        controller.enqueue(chunk);
      },
    });
    const res = await fetch(`${server.url}/echo`, {
      method: 'POST',
      body: stream,
      headers: { 'Content-Type': 'application/json' },
      duplex: 'half',
    });
    expect(res.status).toBe(413);
    expect((await json(res)).error?.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('answers more than 500 items with 413 on field items; 500 are fine', async () => {
    const items = (n: number) => Array.from({ length: n }, (_, i) => ({ product_id: String(i), quantity: 1 }));
    const tooMany = await post(JSON.stringify({ items: items(501) }));
    expect(tooMany.status).toBe(413);
    expect(await json(tooMany)).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE', details: { field: 'items' } } });
    const enough = await post(JSON.stringify({ items: items(500) }));
    expect(enough.status).toBe(200);
  });

  it('accepts a body 32 levels deep and answers 33 levels with 400 INVALID_REQUEST, before the handler', async () => {
    const nested = (levels: number) => `{"a":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;
    expect((await post(nested(32))).status).toBe(200);
    const before = handled;
    const res = await post(nested(33));
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({
      status: 'bad_request',
      error: { code: 'INVALID_REQUEST', details: { field: '', issue: 'the request body must not be nested more than 32 levels deep' } },
    });
    expect(handled).toBe(before);
  });

  it.each([
    ['200,000 levels of arrays', `{"items":${'['.repeat(200_000)}${']'.repeat(200_000)}}`],
    ['170,000 levels of objects (as many as fit in 1 MiB)', `${'{"a":'.repeat(170_000)}1${'}'.repeat(170_000)}`],
  ])('answers %s with 400, and keeps serving', async (_, body) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    expect((await json(res)).error?.code).toBe('INVALID_REQUEST');
    expect((await post('{"ok":true}')).status).toBe(200);
  });

  it('keeps prototype keys as plain data of the body, never on Object.prototype', async () => {
    const res = await post('{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}');
    expect(res.status).toBe(200);
    expect((await json(res)).data).toEqual({ body: { ['__proto__']: { polluted: true }, constructor: { prototype: { polluted: true } } } });
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('answers a compressed body with 400 on Content-Encoding', async () => {
    const res = await post('{}', { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' });
    expect(res.status).toBe(400);
    expect((await json(res)).error?.details.field).toBe('Content-Encoding');
  });

  it('keeps serving after rejecting large bodies', async () => {
    await post(objectOfSize(3 * DEFAULT_BODY_LIMIT_BYTES));
    const res = await post('{"ok":true}');
    expect(res.status).toBe(200);
  });

  it('refuses a body that arrived whole before the parser ran but is over the limit, without a Content-Length', async () => {
    const text = new TextEncoder().encode(objectOfSize(65));
    const chunked = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(text);
        controller.close();
      },
    });
    const res = await fetch(`${server.url}/later-small`, { method: 'POST', body: chunked, duplex: 'half' } as RequestInit);
    expect(res.status).toBe(413);
    expect(await json(res)).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE', details: { issue: 'the request body may be at most 64 bytes' } } });
    const fits = await fetch(`${server.url}/later-small`, { method: 'POST', body: objectOfSize(64), headers: { 'Content-Type': 'application/json' } });
    expect(fits.status).toBe(200);
  });

  it('leaves a body another middleware already parsed as it is', async () => {
    const res = await fetch(`${server.url}/preset`, { method: 'POST', body: '{"sent":true}' });
    expect((await json(res)).data).toEqual({ body: { preset: true } });
  });

  it('reads a body declared as JSON in UTF-8, or declared as nothing at all', async () => {
    for (const type of ['application/json', 'application/json; charset=UTF-8', 'application/json;charset="utf-8"', 'Application/JSON', 'application/merge-patch+json']) {
      const res = await post('{"ok":1}', { 'Content-Type': type });
      expect({ type, status: res.status }).toEqual({ type, status: 200 });
      expect((await json(res)).data).toEqual({ body: { ok: 1 } });
    }
    // fetch adds text/plain to a string body; a Uint8Array body goes without any Content-Type.
    const bare = await fetch(`${server.url}/echo`, { method: 'POST', body: new TextEncoder().encode('{"bare":true}') });
    expect(bare.headers.get('connection')).not.toBe('close');
    expect((await json(bare)).data).toEqual({ body: { bare: true } });
  });

  it('answers 415 UNSUPPORTED_MEDIA_TYPE on Content-Type for a body declared as something else, without running the handler', async () => {
    const before = handled;
    for (const type of ['text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', 'application/json; charset=utf-16', 'application/jsonx', 'garbage', 'multipart/form-data; boundary=x']) {
      const res = await post('{"ok":1}', { 'Content-Type': type });
      const body = await json(res);
      expect({ type, status: res.status, connection: res.headers.get('connection') }).toEqual({ type, status: 415, connection: 'close' });
      expect(body).toMatchObject({ status: 'unsupported_media_type', error: { code: 'UNSUPPORTED_MEDIA_TYPE', details: { field: 'Content-Type' } } });
    }
    expect(handled).toBe(before);
  });

  it('does not ask a request without a body what its Content-Type is', async () => {
    const res = await fetch(`${server.url}/echo`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': '0' } });
    expect(res.status).toBe(200);
    expect((await json(res)).data).toEqual({ body: {} });
  });

  it('isJsonContentType: JSON media types with no charset or UTF-8', () => {
    expect(isJsonContentType('application/json')).toBe(true);
    expect(isJsonContentType('application/vnd.api+json; charset=utf8')).toBe(true);
    expect(isJsonContentType('application/json; version=1')).toBe(true);
    expect(isJsonContentType('application/json; charset=iso-8859-1')).toBe(false);
    expect(isJsonContentType('application/json; charset')).toBe(false);
    expect(isJsonContentType('json')).toBe(false);
    expect(isJsonContentType('text/json')).toBe(false);
  });

  it('accepts Content-Encoding: identity', async () => {
    const res = await post('{"plain":true}', { 'Content-Type': 'application/json', 'Content-Encoding': 'identity' });
    expect(res.status).toBe(200);
    expect((await json(res)).data).toEqual({ body: { plain: true } });
  });

  it('gives up on a body whose client goes away before sending it all, without running the handler, and keeps serving', async () => {
    const before = handled;
    const finishedBefore = server.lines.filter((line) => line['route'] === '/echo').length;
    const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    socket.write('POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"reason":');
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
    // The request ends (its access-log line is written) instead of waiting for the rest forever.
    await expect.poll(() => server.lines.filter((line) => line['route'] === '/echo').length, { timeout: 2000 }).toBe(finishedBefore + 1);
    expect(handled).toBe(before);
    expect((await post('{"ok":true}')).status).toBe(200);
  });
});
