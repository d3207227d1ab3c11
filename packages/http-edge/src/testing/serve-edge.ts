// Test support for this package (not exported): a bare Koa app (no router, no envelope) on a free
// port of 127.0.0.1, closed after each test of the file that serves it.
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { AppError } from '@pits/domain';
import { afterEach } from 'vitest';
import type { EdgeState } from '../edge-state.js';

const servers: { close(): void }[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/**
 * Serves the app `build` sets up; a thrown AppError is answered with its status (503 for
 * SERVICE_UNAVAILABLE, else 400) and kind, anything else 500.
 *
 * @example const url = await serveEdge((app) => app.use(requestId()).use((ctx) => void (ctx.body = 'ok')));
 */
export async function serveEdge<S extends EdgeState = EdgeState>(build: (app: Koa<S>) => void): Promise<string> {
  const app = new Koa<S>();
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      ctx.status = error instanceof AppError ? (error.kind === 'SERVICE_UNAVAILABLE' ? 503 : 400) : 500;
      ctx.body = { kind: error instanceof AppError ? error.kind : 'INTERNAL_ERROR' };
    }
  });
  build(app);
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise((resolve) => server.once('listening', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
