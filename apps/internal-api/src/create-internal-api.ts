// The internal API as an HTTP server: tRPC under /trpc, and the probes /healthz (process up) and
// /readyz (database reachable) answered before tRPC and without a token. Built by one factory
// that main.ts and the tests share.
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import { type CredentialCipher, type Database, createCredentialCipher, createDatabase, isDatabaseReachable } from '@pits/persistence';
import { type Logger, pino } from 'pino';
import type { InternalApiConfig } from './config.js';
import { appRouter } from './router.js';
import { createServiceTokenCheck } from './service-token.js';

/** What tests (and main.ts) may supply instead of what the factory would build from the config. */
export interface InternalApiDeps {
  /** An open, migrated database. When absent the factory opens one from `config.database` and closes it on `close()`. */
  database?: Database;
  logger?: Logger;
  cipher?: CredentialCipher;
  now?: () => Date;
}

export interface InternalApi {
  readonly server: Server;
  /** Starts listening on `config.host:config.port` (0: a free port). */
  listen(): Promise<{ port: number; url: string }>;
  /**
   * Stops accepting connections, lets in-flight requests finish (cut after
   * `config.shutdownTimeoutMs`), and closes the database if the factory opened it.
   */
  close(): Promise<void>;
}

/** Request bodies larger than this are refused (PAYLOAD_TOO_LARGE). */
const MAX_BODY_BYTES = 1024 * 1024;

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.setHeader('cache-control', 'no-store');
  res.end(JSON.stringify(body));
}

/**
 * @example
 * const api = createInternalApi(config, { database });
 * const { url } = await api.listen();
 * // ... later, on SIGTERM:
 * await api.close();
 */
export function createInternalApi(config: InternalApiConfig, deps: InternalApiDeps = {}): InternalApi {
  const database = deps.database ?? createDatabase(config.database);
  const ownsDatabase = deps.database === undefined;
  const logger = deps.logger ?? pino({ name: 'internal-api', level: config.logLevel });
  const cipher = deps.cipher ?? createCredentialCipher(config.credentialsKey);
  const now = deps.now ?? (() => new Date());
  const isServiceToken = createServiceTokenCheck(config.serviceToken);
  let closing = false;

  const trpc = createHTTPHandler({
    router: appRouter,
    basePath: '/trpc/',
    maxBodySize: MAX_BODY_BYTES,
    createContext: ({ req }) => ({ database, cipher, now, logger, authorized: isServiceToken(req.headers.authorization) }),
    onError({ error, ctx, path }) {
      // Errors inside procedures are logged by the error middleware; this catches those outside any procedure.
      if (ctx === undefined && error.code === 'INTERNAL_SERVER_ERROR') logger.error({ err: error.cause ?? error, path }, 'unexpected error');
    },
  });

  async function probe(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      return sendJson(res, 405, { status: 'method_not_allowed' });
    }
    if (path === '/healthz') return sendJson(res, 200, { status: 'ok' });
    const ready = !closing && (await isDatabaseReachable(database));
    sendJson(res, ready ? 200 : 503, { status: ready ? 'ready' : 'unavailable' });
  }

  const server = createServer((req, res) => {
    const started = performance.now();
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    // While shutting down, answer what is in flight and let the connection go.
    if (closing) res.shouldKeepAlive = false;
    const isProbe = path === '/healthz' || path === '/readyz';
    res.on('finish', () => {
      // Probes come every few seconds: keep them out of the info log.
      logger[isProbe ? 'debug' : 'info']({ method: req.method, path, status: res.statusCode, ms: Math.round(performance.now() - started) }, 'request');
    });
    if (isProbe) {
      probe(req, res, path).catch((error: unknown) => {
        logger.error({ err: error, path }, 'probe failed');
        if (!res.headersSent) sendJson(res, 500, { status: 'error' });
      });
      return;
    }
    if (path === '/trpc' || path.startsWith('/trpc/')) return trpc(req, res);
    sendJson(res, 404, { status: 'not_found' });
  });

  let closed: Promise<void> | undefined;

  return {
    server,
    listen() {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(config.port, config.host, () => {
          server.off('error', reject);
          const { port } = server.address() as AddressInfo;
          const host = config.host.includes(':') ? `[${config.host}]` : config.host;
          resolve({ port, url: `http://${host}:${port}` });
        });
      });
    },
    close() {
      closed ??= (async () => {
        closing = true;
        if (server.listening) {
          await new Promise<void>((resolve) => {
            const cut = setTimeout(() => server.closeAllConnections(), config.shutdownTimeoutMs);
            // Keep-alive connections idle between requests would hold close() open; sweep them as in-flight requests end.
            const sweep = setInterval(() => server.closeIdleConnections(), 50);
            server.close(() => {
              clearTimeout(cut);
              clearInterval(sweep);
              resolve();
            });
            server.closeIdleConnections();
          });
        }
        if (ownsDatabase) await database.destroy();
      })();
      return closed;
    },
  };
}
