// Routes without authentication: liveness, readiness, the OpenAPI document and the reference page.
import type Router from '@koa/router';
import { z } from 'zod';
import { type Database, isDatabaseReachable } from '@pits/persistence';
import type { GatewayState } from '../http/index.js';
import type { PublicRoute } from '../docs/openapi-document.js';

export const PUBLIC_ROUTES: readonly PublicRoute[] = [
  { method: 'GET', path: '/healthz', summary: 'Liveness: the process is up', contentType: 'application/json', schema: z.object({ status: z.literal('ok') }).meta({ id: 'Health' }) },
  {
    method: 'GET',
    path: '/readyz',
    summary: 'Readiness: the database answers',
    contentType: 'application/json',
    schema: z.object({ status: z.enum(['ok', 'unavailable']), database: z.enum(['ok', 'unreachable']) }).meta({ id: 'Readiness' }),
  },
  { method: 'GET', path: '/openapi.json', summary: 'This OpenAPI 3.1 document', contentType: 'application/json', schema: null },
  { method: 'GET', path: '/docs', summary: 'The API reference as a web page', contentType: 'text/html', schema: null },
];

export function mountPublicRoutes(router: Router<GatewayState>, deps: { database: Database; openApi: () => object; docsHtml: () => string }): void {
  router.get('public.healthz', '/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('public.readyz', '/readyz', async (ctx) => {
    const up = await isDatabaseReachable(deps.database);
    ctx.status = up ? 200 : 503;
    ctx.body = { status: up ? 'ok' : 'unavailable', database: up ? 'ok' : 'unreachable' };
  });
  router.get('public.openapi', '/openapi.json', (ctx) => {
    ctx.body = deps.openApi();
  });
  router.get('public.docs', '/docs', (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = deps.docsHtml();
  });
}
