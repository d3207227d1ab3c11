import { areaSearchQuery, type AreaSearchQuery } from '@pits/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { jsonBody } from './body-parser.js';
import { sendEnvelopeA } from './envelope.js';
import type { GatewayContext } from './gateway-state.js';
import { json, serveRoutes, type RunningServer } from '../testing/test-server.js';
import { validateBody, validateQuery, type ValidatedBody, type ValidatedQuery } from './validate.js';

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
        sendEnvelopeA(ctx, { page, per_page, search_by: ctx.state.query.search_by ?? null });
      });
    });
  });
  afterAll(() => server.close());

  it('stores the parsed body for the handler', async () => {
    const res = await fetch(`${server.url}/adjustments`, {
      method: 'POST',
      body: JSON.stringify({ reason: '  stock count ', items: [{ product_id: '1', quantity: 2.5 }] }),
    });
    expect(res.status).toBe(200);
    expect((await json(res)).data).toEqual({ reason: 'stock count', quantities: [2.5] });
  });

  it('answers an invalid body with 422 VALIDATION_ERROR, field paths and every issue, without running the handler', async () => {
    const before = handled;
    const res = await fetch(`${server.url}/adjustments`, {
      method: 'POST',
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
    expect((await json(res)).data).toEqual({ page: 2, per_page: 20, search_by: 'city' });
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
