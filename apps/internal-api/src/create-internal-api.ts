// The internal API as an HTTP server: a Koa app with the edge both HTTP apps share
// (@pits/http-edge), then the edge's probes /healthz (process up) and /readyz (database reachable)
// answered without a token in this app's JSON, then tRPC under /trpc (its own node handler,
// mounted with `ctx.respond = false`). Built by one factory that main.ts and the tests share. The
// middleware, in order:
//
//   requestId() → securityHeaders() → internalAccessLog (access-log.ts, the edge's requestLog)
//   → the probes (probeAnswers(…).answer) → 404 outside /trpc → readyGate(…).middleware → tRPC
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import type { HostResolver } from '@pits/domain';
import { PROBE_PATHS, RETRY_AFTER_SECONDS, probeAnswers, readyGate, requestId, securityHeaders, setHeaders } from '@pits/http-edge';
import { type CredentialCipher, type Database, createCredentialCipher, createDatabase, isDatabaseReachable, DATABASE_ERROR_KINDS, classifyDatabaseError } from '@pits/persistence';
import { type OperatorServer, type ProcessMetrics, createLimitedServer, createOperatorServer, createProcessLogger, createProcessMetrics, systemHostResolver, urlHost } from '@pits/service-runtime';
import type { Logger } from 'pino';
import { type InternalApiState, internalAccessLog } from './access-log.js';
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
  /**
   * False when the database is not migrated yet (main.ts starts serving first, then migrates):
   * until `markReady()`, calls answer SERVICE_UNAVAILABLE and /readyz says no. Default true.
   */
  ready?: boolean;
  /** How webhook host names are resolved at registration (tests map names to addresses); the system resolver by default. */
  resolveHost?: HostResolver;
  /** The process's metrics (main.ts creates them first, so its database reports to them); created here when absent. */
  metrics?: ProcessMetrics;
}

export interface InternalApi {
  readonly server: Server;
  readonly metrics: ProcessMetrics;
  /** Starts listening on `config.host:config.port` (0: a free port), and on the operator port when `config.metrics` sets one. */
  listen(): Promise<{ port: number; url: string; metricsUrl: string | null }>;
  /** The database is migrated: serve calls. */
  markReady(): void;
  /**
   * Stops accepting connections, closes idle keep-alive connections at once, lets in-flight
   * requests finish (cut after `config.shutdownTimeoutMs`), and closes the database if the
   * factory opened it.
   */
  close(): Promise<void>;
}

/** Request bodies larger than this are refused (PAYLOAD_TOO_LARGE). */
const MAX_BODY_BYTES = 1024 * 1024;

/** What every 503 of this edge carries. */
const UNAVAILABLE_HEADERS: Readonly<Record<string, string>> = { 'retry-after': String(RETRY_AFTER_SECONDS) };
const JSON_HEADERS: Readonly<Record<string, string>> = { 'content-type': 'application/json' };

type InternalApiContext = Koa.ParameterizedContext<InternalApiState>;

/** A JSON answer of the edge itself (a probe, a refusal); the security headers are already set. */
function sendJson(ctx: InternalApiContext, status: number, body: unknown): void {
  ctx.status = status;
  setHeaders(ctx, JSON_HEADERS);
  ctx.body = JSON.stringify(body);
}

/**
 * An answer of this HTTP edge that is a refusal, logged under the tRPC code it stands for (no
 * procedure ran); a 503 says when to retry (a probe's 503 has it from the edge).
 */
function refuse(ctx: InternalApiContext, status: number, errorCode: TRPC_ERROR_CODE_KEY, body: unknown): void {
  ctx.state.record.errorCode = errorCode;
  if (status === 503) setHeaders(ctx, UNAVAILABLE_HEADERS);
  sendJson(ctx, status, body);
}

/**
 * @example
 * const api = createInternalApi(config, { database });
 * const { url } = await api.listen();
 * // ... later, on SIGTERM:
 * await api.close();
 */
export function createInternalApi(config: InternalApiConfig, deps: InternalApiDeps = {}): InternalApi {
  const logger = deps.logger ?? createProcessLogger('internal-api', config.logLevel);
  const metrics = deps.metrics ?? createProcessMetrics('internal-api', { kinds: DATABASE_ERROR_KINDS, classify: classifyDatabaseError });
  const database = deps.database ?? createDatabase(config.database, { logger, ...metrics.databaseEvents });
  metrics.watchDatabase(database);
  const operator: OperatorServer | null = config.metrics ? createOperatorServer(metrics, config.metrics, config.http) : null;
  const ownsDatabase = deps.database === undefined;
  const cipher = deps.cipher ?? createCredentialCipher(config.credentialsKey);
  const now = deps.now ?? (() => new Date());
  const isServiceToken = createServiceTokenCheck(config.serviceToken);
  const webhookUrls = { policy: { allowPrivate: config.webhookAllowPrivateUrls }, resolve: deps.resolveHost ?? systemHostResolver() };
  const accessLog = internalAccessLog({ logger, metrics: metrics.http });
  const trpc = createHTTPHandler({
    router: appRouter,
    basePath: '/trpc/',
    maxBodySize: MAX_BODY_BYTES,
    createContext: ({ req }) => {
      const request = accessLog.recordOf(req);
      return {
        database,
        cipher,
        now,
        logger,
        deadlineMs: config.requestDeadlineMs,
        authorized: isServiceToken(req.headers.authorization),
        webhookUrls,
        ...(request ? { calls: request.calls } : {}),
      };
    },
    // A refusal a retry can get past says when: Retry-After on SERVICE_UNAVAILABLE.
    responseMeta: ({ errors }) => (errors.some((e) => e.code === 'SERVICE_UNAVAILABLE') ? { headers: UNAVAILABLE_HEADERS } : {}),
    onError({ error, ctx, path, req }) {
      // For the request's own line, written only when no procedure ran (an unknown procedure, an
      // unreadable body); a procedure's line has its code from recordCall.
      const request = accessLog.recordOf(req);
      if (request !== undefined) request.errorCode = error.code;
      // Errors inside procedures are logged by the error middleware; this catches those outside any procedure.
      if (ctx === undefined && error.code === 'INTERNAL_SERVER_ERROR') logger.error({ err: error.cause ?? error, path }, 'unexpected error');
    },
  });

  // Until the database is migrated, calls answer SERVICE_UNAVAILABLE; the probes answer before the gate.
  const gate = readyGate<InternalApiState>({
    ready: deps.ready ?? true,
    refuse: (ctx) => refuse(ctx, 503, 'SERVICE_UNAVAILABLE', { status: 'starting', message: 'the database is not ready yet; retry after the Retry-After delay' }),
  });

  const probes = probeAnswers<InternalApiState, { status: 'ok' }, { status: 'ready' | 'unavailable' }>({
    isReady: async () => gate.ready && !http.closing && (await isDatabaseReachable(database, config.readyTimeoutMs)),
    live: { status: 'ok' },
    ready: (up) => ({ status: up ? 'ready' : 'unavailable' }),
    unavailableHeaders: UNAVAILABLE_HEADERS,
    send: sendJson,
  });
  const refuseMethod = (ctx: InternalApiContext) => refuse(ctx, 405, 'METHOD_NOT_SUPPORTED', { status: 'method_not_allowed' });

  const app = new Koa<InternalApiState>({ proxy: false });
  app
    .use(requestId())
    .use(securityHeaders())
    .use(accessLog.middleware)
    .use(async (ctx, next) => {
      if (!PROBE_PATHS.has(ctx.path)) return next();
      try {
        await probes.answer(ctx, refuseMethod);
      } catch (error) {
        logger.error({ err: error, path: ctx.path }, 'probe failed');
        if (!ctx.headerSent) refuse(ctx, 500, 'INTERNAL_SERVER_ERROR', { status: 'error' });
      }
    })
    .use((ctx, next) => (ctx.path === '/trpc' || ctx.path.startsWith('/trpc/') ? next() : refuse(ctx, 404, 'NOT_FOUND', { status: 'not_found' })))
    .use(gate.middleware)
    .use((ctx) => {
      // tRPC answers on Node's response itself: Koa leaves it alone. tRPC sets the status only over
      // a 200 (Koa starts every response at 404).
      ctx.respond = false;
      ctx.status = 200;
      trpc(ctx.req, ctx.res);
    });
  const http = createLimitedServer(app.callback(), config.http);
  const server = http.server;

  let closed: Promise<void> | undefined;

  return {
    server,
    metrics,
    async listen() {
      const { port, url } = await new Promise<{ port: number; url: string }>((resolve, reject) => {
        server.once('error', reject);
        server.listen(config.port, config.host, () => {
          server.off('error', reject);
          const { port } = server.address() as AddressInfo;
          resolve({ port, url: `http://${urlHost(config.host)}:${port}` });
        });
      });
      try {
        return { port, url, metricsUrl: operator ? (await operator.listen()).url : null };
      } catch (error) {
        await http.close(0);
        throw error;
      }
    },
    markReady() {
      gate.open();
    },
    close() {
      closed ??= (async () => {
        await Promise.all([http.close(config.shutdownTimeoutMs), operator?.close()]);
        if (ownsDatabase) await database.destroy();
      })();
      return closed;
    },
  };
}
