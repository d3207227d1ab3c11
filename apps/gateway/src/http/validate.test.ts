import { areaSearchQuery, type AreaSearchQuery } from '@pits/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { jsonBody } from './body-parser.js';
import { sendEnvelopeA } from './envelope.js';
import type { GatewayContext } from './gateway-state.js';
import { json, serveRoutes, type RunningServer } from '../testing/test-server.js';
import { validateBody, validateParams, validateQuery, type ValidatedBody, type ValidatedQuery } from './validate.js';

const createBody = z.object({
  reason: z.string().trim().min(1),
  items: z.array(z.object({ product_id: z.string(), quantity: z.number().positive() })).min(1),
});

describe('validateBody / validateQuery', () => {
  let server: RunningServer;
  let handled = 0;
  beforeAll(async () => {
    server = await serveRoutes((router) => {
      router.post('/adjustments', jsonBody(), validateBody(createBody), (ctx: GatewayContext<ValidatedBody<z.output<typeof createBody>>>) => {
        handled += 1;
        // Typed: a compile error here if the parsed type did not reach the handler.
        const quantities: number[] = ctx.state.body.items.map((i) => i.quantity);
        sendEnvelopeA(ctx, { reason: ctx.state.body.reason, quantities });
      });
      router.get('/areas', validateQuery(areaSearchQuery), (ctx: GatewayContext<ValidatedQuery<AreaSearchQuery>>) => {
        const { page, per_page } = ctx.state.query;
        sendEnvelopeA(ctx, { page, per_page, search_by: ctx.state.query.search_by ?? null, search_value: ctx.state.query.search_value ?? null });
      });
      router.get('/things/:id/parts/:part', validateParams(), (ctx: GatewayContext) => {
        handled += 1;
        sendEnvelopeA(ctx, { id: ctx.params.id, part: ctx.params.part });
      });
    });
  });
  afterAll(() => server.close());

  it('stores the parsed body for the handler', async () => {
    const res = await fetch(`${server.url}/adjustments`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ reason: '  stock count ', items: [{ product_id: '1', quantity: 2.5 }] }),
    });
    expect(res.status).toBe(200);
    expect((await json(res)).data).toEqual({ reason: 'stock count', quantities: [2.5] });
  });

  it('answers an invalid body with 422 VALIDATION_ERROR, field paths and every issue, without running the handler', async () => {
    const before = handled;
    const res = await fetch(`${server.url}/adjustments`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ items: [{ product_id: '1', quantity: 0 }] }),
    });
    expect(res.status).toBe(422);
    const body = await json(res);
    expect(body).toMatchObject({ status: 'unprocessable_entity', error: { code: 'VALIDATION_ERROR' } });
    const fields = body.error?.issues?.map((i) => (i as { field: string }).field);
    expect(fields).toEqual(expect.arrayContaining(['reason', 'items[0].quantity']));
    expect(fields).toContain(body.error?.details.field);
    expect(handled).toBe(before);
  });

  it('validates an empty body as {}', async () => {
    const res = await fetch(`${server.url}/adjustments`, { method: 'POST' });
    expect(res.status).toBe(422);
    expect((await json(res)).error?.code).toBe('VALIDATION_ERROR');
  });

  it('parses the query with the contract schema (coercion and defaults)', async () => {
    const res = await fetch(`${server.url}/areas?page=2&search_by=city`);
    expect(res.status).toBe(200);
    expect((await json(res)).data).toEqual({ page: 2, per_page: 20, search_by: 'city', search_value: null });
  });

  it.each([
    ['page=0', 'page'],
    ['per_page=101', 'per_page'],
    ['search_by=planet', 'search_by'],
  ])('answers ?%s with 422 on %s', async (query, field) => {
    const res = await fetch(`${server.url}/areas?${query}`);
    expect(res.status).toBe(422);
    expect(await json(res)).toMatchObject({ error: { code: 'VALIDATION_ERROR', details: { field } } });
  });
});

describe('hostile query values and path parameters (docs/input-rules.md)', () => {
  let server: RunningServer;
  let handled = 0;
  beforeAll(async () => {
    server = await serveRoutes((router) => {
      router.get('/areas', validateQuery(areaSearchQuery), (ctx: GatewayContext<ValidatedQuery<AreaSearchQuery>>) => {
        sendEnvelopeA(ctx, { search_value: ctx.state.query.search_value ?? null, keys: Object.keys(ctx.state.query).sort() });
      });
      router.get('/things/:id/parts/:part', validateParams(), (ctx: GatewayContext) => {
        handled += 1;
        sendEnvelopeA(ctx, { id: ctx.params.id, part: ctx.params.part });
      });
    });
  });
  afterAll(() => server.close());

  it.each([
    ['a NUL', 'search_value=Jakarta%00', 'search_value', 'must not contain the NUL character'],
    ['a lone surrogate as generalised UTF-8', 'search_value=%ED%A0%80', 'search_value', 'must be valid UTF-8 once percent-decoded (no unpaired surrogates)'],
    ['a lone low surrogate', 'page=1&search_value=ab%ED%B0%80cd', 'search_value', 'must be valid UTF-8 once percent-decoded (no unpaired surrogates)'],
    ['bytes that are not UTF-8', 'search_value=%FF', 'search_value', 'must be valid UTF-8 once percent-decoded (no unpaired surrogates)'],
    ['a malformed value of another parameter', 'search_value=ok&utm=%C0', 'utm', 'must be valid UTF-8 once percent-decoded (no unpaired surrogates)'],
  ])('answers a query with %s with 422 on that parameter', async (_, query, field, issue) => {
    const res = await fetch(`${server.url}/areas?${query}`);
    expect(res.status).toBe(422);
    expect(await json(res)).toMatchObject({ status: 'unprocessable_entity', error: { code: 'VALIDATION_ERROR', details: { field, issue } } });
  });

  it('still reads well-formed UTF-8, a surrogate pair, a plus and a stray percent', async () => {
    const res = await fetch(`${server.url}/areas?search_value=caf%C3%A9+%F0%9F%93%A6+100%`);
    expect(res.status).toBe(200);
    expect((await json(res)).data).toMatchObject({ search_value: 'caf\u00e9 \ud83d\udce6 100%' });
  });

  it('ignores prototype keys in the query: they reach neither the parsed query nor Object.prototype', async () => {
    const res = await fetch(`${server.url}/areas?__proto__=x&constructor=y&prototype=z&__proto__[polluted]=1`);
    expect(res.status).toBe(200);
    expect((await json(res)).data).toEqual({ search_value: null, keys: ['page', 'per_page'] });
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it.each([
    ['%00', 'id', 'must not contain the NUL character'],
    ['ADJ-1%00', 'id', 'must not contain the NUL character'],
    ['%ED%A0%80', 'id', 'must be valid UTF-8 once percent-decoded (no unpaired surrogates)'],
    ['ADJ%FF', 'id', 'must be valid UTF-8 once percent-decoded (no unpaired surrogates)'],
  ])('answers the path parameter %s with 422 on its name, without running the handler', async (raw, field, issue) => {
    const before = handled;
    const res = await fetch(`${server.url}/things/${raw}/parts/one`);
    expect(res.status).toBe(422);
    expect(await json(res)).toMatchObject({ error: { code: 'VALIDATION_ERROR', details: { field, issue } } });
    expect(handled).toBe(before);
  });

  it('checks every parameter of the route, naming each one', async () => {
    const res = await fetch(`${server.url}/things/ok/parts/x%00`);
    expect(await json(res)).toMatchObject({ error: { details: { field: 'part' } } });
    const both = await json(await fetch(`${server.url}/things/%00/parts/%ED%A0%80`));
    expect(both.error?.issues).toEqual([
      { field: 'id', issue: 'must not contain the NUL character' },
      { field: 'part', issue: 'must be valid UTF-8 once percent-decoded (no unpaired surrogates)' },
    ]);
  });

  it('passes decodable parameters through, an encoded percent sign included', async () => {
    const res = await fetch(`${server.url}/things/caf%C3%A9/parts/%25ED%25A0%2580`);
    expect(res.status).toBe(200);
    expect((await json(res)).data).toEqual({ id: 'caf\u00e9', part: '%ED%A0%80' });
  });
});
