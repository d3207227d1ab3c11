// Test support for this folder (not exported): a Koa app on 127.0.0.1 with an ephemeral port, a
// pino logger that records its lines, and a fixed partner.
import Koa from 'koa';
import Router from '@koa/router';
import { pino, type Logger } from 'pino';
import type { AddressInfo } from 'node:net';
import { requestId } from '@pits/http-edge';
import type { HttpMetrics } from '@pits/service-runtime';
import { accessLog } from '../http/access-log.js';
import { errorMapper } from '../http/error-mapper.js';
import type { AuthenticatedPartner, GatewayMiddleware, GatewayState } from '../http/gateway-state.js';
import { methodNotAllowed } from '../http/method-not-allowed.js';

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

export async function serve(app: Koa<GatewayState>): Promise<RunningServer> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type LogLine = Record<string, unknown> & { level: number; msg?: string };

/** A real pino logger whose lines land in `lines` (parsed). */
export function recordingLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as LogLine) });
  return { logger, lines };
}

export const PARTNER: AuthenticatedPartner = {
  partnerId: 7,
  name: 'Acme Logistics',
  email: 'ops@acme.test',
  tier: 'small',
  keyId: 70,
};

/** Stands in for `authenticate` where a test is about something else. */
export function asPartner(partner: AuthenticatedPartner = PARTNER): GatewayMiddleware {
  return async (ctx, next) => {
    ctx.state.partner = partner;
    await next();
  };
}

/**
 * The app-level chain (request id, access log, error mapper, @koa/router's dispatch, 404/405) around routes that
 * `define` registers; served on an ephemeral port.
 */
export async function serveRoutes(
  define: (router: Router<GatewayState>) => void,
  options: { logger?: Logger; metrics?: HttpMetrics } = {},
): Promise<RunningServer & { lines: LogLine[] }> {
  const recording = recordingLogger();
  const logger = options.logger ?? recording.logger;
  const app = new Koa<GatewayState>();
  const router = new Router<GatewayState>();
  define(router);
  app
    .use(requestId())
    .use(accessLog({ logger, ...(options.metrics ? { metrics: options.metrics } : {}) }))
    .use(errorMapper({ logger }))
    .use(router.routes())
    .use(methodNotAllowed(router));
  const running = await serve(app);
  return { ...running, lines: recording.lines };
}

/** The JSON body of a response, typed loosely for assertions. */
export async function json(response: Response): Promise<Record<string, unknown> & { error?: { code: string; message: string; details: { field: string; issue: string }; issues?: unknown[] } }> {
  return (await response.json()) as Record<string, unknown> & {
    error?: { code: string; message: string; details: { field: string; issue: string }; issues?: unknown[] };
  };
}

export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
