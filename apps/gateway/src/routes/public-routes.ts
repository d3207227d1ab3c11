// Routes without authentication: liveness, readiness, the OpenAPI document and the reference page.
// The probes are the edge's (@pits/http-edge probeAnswers), mounted as two routes so that the
// document lists them and the access log names their operation; their bodies are the gateway's.
import type Router from '@koa/router';
import { z } from 'zod';
import { LIVENESS_PATH, READINESS_PATH, RETRY_AFTER_SECONDS, probeAnswers } from '@pits/http-edge';
import { type GatewayMiddleware, type GatewayState } from '../http/index.js';
import type { PublicRoute } from '../docs/openapi-document.js';
import { SCALAR_BUNDLE_PATH } from '../docs/docs-page.js';

const HEALTH = z.object({ status: z.literal('ok') }).meta({ id: 'Health' });
const READINESS = z.object({ status: z.enum(['ok', 'unavailable']), database: z.enum(['ok', 'unreachable']) }).meta({ id: 'Readiness' });

export const PUBLIC_ROUTES: readonly PublicRoute[] = [
  {
    method: 'GET',
    path: LIVENESS_PATH,
    summary: 'Liveness: the process is up',
    description: 'Answers while the process runs, whatever the database does; for liveness probes. Never counted against a rate limit.',
    contentType: 'application/json',
    probe: true,
    schema: HEALTH,
    example: { status: 'ok' },
  },
  {
    method: 'GET',
    path: READINESS_PATH,
    summary: 'Readiness: the database answers within the readiness deadline (503 otherwise, and while starting or stopping)',
    description: 'For load balancers and readiness probes: 200 while this process can serve, 503 while the database is unreachable or slow, and while the process starts or stops. Never counted against a rate limit.',
    contentType: 'application/json',
    probe: true,
    schema: READINESS,
    example: { status: 'ok', database: 'ok' },
  },
  {
    method: 'GET',
    path: '/openapi.json',
    summary: 'This OpenAPI 3.1 document',
    description: 'Generated from the route specs and the schemas that validate requests.',
    contentType: 'application/json',
    schema: null,
    example: { openapi: '3.1.0', info: { title: 'Partner Inventory and Tenant Service', version: '0.1.0' }, paths: {} },
  },
  { method: 'GET', path: '/docs', summary: 'The API reference as a web page', description: 'The guides and this document, rendered for people, with a request panel.', contentType: 'text/html', schema: null },
  { method: 'GET', path: SCALAR_BUNDLE_PATH, summary: 'The renderer of the reference page (Scalar, served from this server)', description: 'The script /docs loads, served from this server so the page needs no other host.', contentType: 'text/javascript', schema: null },
];

/**
 * `isReady`: whether this process can serve (migrated, not shutting down, database answering in time).
 * `limit`: runs before each of them but the probes, the anonymous budget per address
 * (docs/rate-limits.md#without-a-valid-key): a refused probe would read as down.
 */
export function mountPublicRoutes(
  router: Router<GatewayState>,
  deps: { isReady: () => Promise<boolean>; openApi: () => object; docsHtml: () => string; docsBundle: () => Buffer; limit?: GatewayMiddleware },
): void {
  const limit: GatewayMiddleware = deps.limit ?? ((_, next) => next());
  const probes = probeAnswers<GatewayState, z.infer<typeof HEALTH>, z.infer<typeof READINESS>>({
    isReady: deps.isReady,
    live: { status: 'ok' },
    ready: (up) => ({ status: up ? 'ok' : 'unavailable', database: up ? 'ok' : 'unreachable' }),
    unavailableHeaders: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
  });
  router.get('public.healthz', LIVENESS_PATH, probes.liveness);
  router.get('public.readyz', READINESS_PATH, probes.readiness);
  router.get('public.openapi', '/openapi.json', limit, (ctx) => {
    ctx.body = deps.openApi();
  });
  router.get('public.docs', '/docs', limit, (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = deps.docsHtml();
  });
  router.get('public.docs.bundle', SCALAR_BUNDLE_PATH, limit, (ctx) => {
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.body = deps.docsBundle();
  });
}
