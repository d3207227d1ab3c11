import { readFileSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';
import { join } from 'node:path';
import { envelopeA, envelopeB, errorEnvelope } from '@pits/contract';
import { domainError, ERROR_KINDS } from '@pits/domain';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_STATUS, errorBody, sendEnvelopeA, sendEnvelopeB } from './envelope.js';
import { json, serveRoutes, type RunningServer } from '../testing/test-server.js';

describe('envelopes', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await serveRoutes((router) => {
      router.get('/a', (ctx) => sendEnvelopeA(ctx, { adjustment: { id: 'ADJ-20260131-000001' } }));
      router.post('/a', (ctx) => sendEnvelopeA(ctx, { adjustment: { id: 'ADJ-20260131-000002' } }, 201));
      router.patch('/a-null', (ctx) => sendEnvelopeA(ctx, null));
      router.get('/b', (ctx) => sendEnvelopeB(ctx, { areas: [], pagination: { current_page: 1 } }));
    });
  });
  afterAll(() => server.close());

  it('envelope A: status "ok", data, errors null, request_id', async () => {
    const res = await fetch(`${server.url}/a`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await json(res)).toEqual({
      status: 'ok',
      data: { adjustment: { id: 'ADJ-20260131-000001' } },
      errors: null,
      request_id: res.headers.get('x-request-id'),
    });
  });

  it('matches the contract schemas of @pits/domain', async () => {
    expect(envelopeA(z.unknown()).safeParse(await json(await fetch(`${server.url}/a`))).success).toBe(true);
    expect(envelopeB(z.unknown()).safeParse(await json(await fetch(`${server.url}/b`))).success).toBe(true);
    expect(errorEnvelope.safeParse(await json(await fetch(`${server.url}/missing`))).success).toBe(true);
    const many = errorBody(
      domainError('VALIDATION_ERROR', 'x', { issues: [{ field: 'a', issue: 'b' }, { field: 'c', issue: 'd' }] }),
      'r',
    );
    expect(errorEnvelope.safeParse(many).success).toBe(true);
  });

  it('envelope A with 201 and with null data', async () => {
    const created = await fetch(`${server.url}/a`, { method: 'POST' });
    expect(created.status).toBe(201);
    expect((await json(created)).status).toBe('ok');
    const empty = await fetch(`${server.url}/a-null`, { method: 'PATCH' });
    expect(await json(empty)).toMatchObject({ status: 'ok', data: null, errors: null });
  });

  it('envelope B: integer status 200, message "Ok", data, errors null, request_id', async () => {
    const res = await fetch(`${server.url}/b`);
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({
      status: 200,
      message: 'Ok',
      data: { areas: [], pagination: { current_page: 1 } },
      errors: null,
      request_id: res.headers.get('x-request-id'),
    });
  });

  it('maps every error kind as docs/errors.md says', () => {
    // The table under "Kinds and statuses": `| \`CODE\` | HTTP | \`status\` | when |`.
    const doc = readFileSync(join(import.meta.dirname, '..', '..', '..', '..', 'docs', 'errors.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## Kinds and statuses'), doc.indexOf('\n## ', doc.indexOf('## Kinds and statuses') + 1));
    const documented = Object.fromEntries(
      [...section.matchAll(/^\| `([A-Z_]+)` \| (\d{3}) \| `([a-z_]+)` \|/gm)].map(([, kind, http, status]) => [kind, { http: Number(http), status }]),
    );
    expect(ERROR_STATUS).toEqual(documented);
    expect(Object.keys(ERROR_STATUS).sort()).toEqual([...ERROR_KINDS].sort());
  });

  it('names each status as HTTP does, in snake case', () => {
    for (const [kind, { http, status }] of Object.entries(ERROR_STATUS)) {
      expect(status, kind).toBe(STATUS_CODES[http]!.toLowerCase().replaceAll(' ', '_'));
    }
  });

  it('error body: details is the first issue, issues only when there are several', () => {
    const single = errorBody(domainError('NOT_FOUND', 'adjustment not found', { field: 'id' }), 'r-1');
    expect(single).toEqual({
      status: 'not_found',
      error: { code: 'NOT_FOUND', message: 'adjustment not found', details: { field: 'id', issue: 'adjustment not found' } },
      request_id: 'r-1',
    });
    expect('issues' in single.error).toBe(false);

    const issues = [
      { field: 'items[0].quantity', issue: 'must be greater than 0' },
      { field: 'reason', issue: 'required' },
    ];
    const many = errorBody(
      domainError('VALIDATION_ERROR', 'invalid request', { field: 'items[0].quantity', issue: 'must be greater than 0', issues }),
      'r-2',
    );
    expect(many.status).toBe('unprocessable_entity');
    expect(many.error.details).toEqual(issues[0]);
    expect(many.error.issues).toEqual(issues);
  });
});
