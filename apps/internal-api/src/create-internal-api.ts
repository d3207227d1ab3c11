// The internal API as an HTTP server: tRPC under /trpc, and the probes /healthz (process up) and
// /readyz (database reachable) answered before tRPC and without a token. Built by one factory
// that main.ts and the tests share.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import type { HostResolver } from '@pits/domain';
import { type CredentialCipher, type Database, createCredentialCipher, createDatabase, isDatabaseReachable, DATABASE_ERROR_KINDS, classifyDatabaseError } from '@pits/persistence';
import { type OperatorServer, type ProcessMetrics, type RequestLogFields, type TraceContext, UNMATCHED_ROUTE, createLimitedServer, createOperatorServer, createProcessLogger, createProcessMetrics, durationMs, parseTraceparent, systemHostResolver, urlHost } from '@pits/service-runtime';
import type { Logger } from 'pino';
import type { InternalApiConfig } from './config.js';
import { appRouter } from './router.js';
import { createServiceTokenCheck } from './service-token.js';
import type { CallRecorder } from './trpc.js';

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

/** Seconds a client should wait before retrying a SERVICE_UNAVAILABLE (sent as Retry-After). */
const RETRY_AFTER_SECONDS = 2;

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.statusCode = status;
  if (status === 503) res.setHeader('retry-after', String(RETRY_AFTER_SECONDS));
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
  const logger = deps.logger ?? createProcessLogger('internal-api', config.logLevel);
  const metrics = deps.metrics ?? createProcessMetrics('internal-api', { kinds: DATABASE_ERROR_KINDS, classify: classifyDatabaseError });
  const database = deps.database ?? createDatabase(config.database, { logger, ...metrics.databaseEvents });
  metrics.watchDatabase(database);
  const operator: OperatorServer | null = config.metrics ? createOperatorServer(metrics, config.metrics, config.http) : null;
  const ownsDatabase = deps.database === undefined;
  let ready = deps.ready ?? true;
  const cipher = deps.cipher ?? createCredentialCipher(config.credentialsKey);
  const now = deps.now ?? (() => new Date());
  const isServiceToken = createServiceTokenCheck(config.serviceToken);
  const webhookUrls = { policy: { allowPrivate: config.webhookAllowPrivateUrls }, resolve: deps.resolveHost ?? systemHostResolver() };
  const trpc = createHTTPHandler({
    router: appRouter,
    basePath: '/trpc/',
    maxBodySize: MAX_BODY_BYTES,
    createContext: ({ req }) => {
      const request = requests.get(req);
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
    responseMeta: ({ errors }) => (errors.some((e) => e.code === 'SERVICE_UNAVAILABLE') ? { headers: { 'retry-after': String(RETRY_AFTER_SECONDS) } } : {}),
    onError({ error, ctx, path, req }) {
      // For the request's own line, written only when no procedure ran (an unknown procedure, an
      // unreadable body); a procedure's line has its code from recordCall.
      const request = requests.get(req);
      if (request !== undefined) request.errorCode = error.code;
      // Errors inside procedures are logged by the error middleware; this catches those outside any procedure.
      if (ctx === undefined && error.code === 'INTERNAL_SERVER_ERROR') logger.error({ err: error.cause ?? error, path }, 'unexpected error');
    },
  });

  /** An answer of this HTTP edge that is a refusal, logged under the tRPC code it stands for (no procedure ran). */
  function refuse(request: RequestRecord, res: ServerResponse, status: number, errorCode: TRPC_ERROR_CODE_KEY, body: unknown): void {
    request.errorCode = errorCode;
    sendJson(res, status, body);
  }

  async function probe(req: IncomingMessage, res: ServerResponse, path: string, request: RequestRecord): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      return refuse(request, res, 405, 'METHOD_NOT_SUPPORTED', { status: 'method_not_allowed' });
    }
    if (path === '/healthz') return sendJson(res, 200, { status: 'ok' });
    const up = ready && !http.closing && (await isDatabaseReachable(database, config.readyTimeoutMs));
    sendJson(res, up ? 200 : 503, { status: up ? 'ready' : 'unavailable' });
  }

  /** What the HTTP server knows of a request that its procedure calls are logged with. */
  interface RequestRecord {
    calls: CallRecorder;
    /** Procedure calls finished (a batch has several); none: the request is logged as itself. */
    finished: number;
    /** The tRPC code of a refusal answered outside any procedure; null when there was none. */
    errorCode: TRPC_ERROR_CODE_KEY | null;
  }
  const requests = new WeakMap<IncomingMessage, RequestRecord>();

  /** One line and one observation, in the schema every app shares. */
  function record(requestId: string, trace: TraceContext | null, method: string, route: string, status: number, errorCode: TRPC_ERROR_CODE_KEY | null, elapsedMs: number, input: unknown, level: 'info' | 'debug'): void {
    const ids = (typeof input === 'object' && input !== null ? input : {}) as { tenantId?: unknown; partnerId?: unknown };
    const line: RequestLogFields = {
      request_id: requestId,
      method,
      route,
      status,
      duration_ms: durationMs(0, elapsedMs),
      partner_id: typeof ids.partnerId === 'number' ? ids.partnerId : null,
      tenant_id: typeof ids.tenantId === 'string' ? ids.tenantId : null,
      trace_id: trace?.traceId ?? null,
      parent_span_id: trace?.parentSpanId ?? null,
      error_code: errorCode,
    };
    metrics.http.observe(route, method, status, elapsedMs / 1000);
    logger[level](line, 'request finished');
  }

  const http = createLimitedServer((req, res) => {
    const started = performance.now();
    const requestId = randomUUID();
    const trace = parseTraceparent(req.headers.traceparent);
    const method = req.method ?? 'GET';
    // Nothing of this API may be cached or sniffed.
    res.setHeader('cache-control', 'no-store');
    res.setHeader('x-content-type-options', 'nosniff');
    res.setHeader('x-request-id', requestId);
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const isProbe = path === '/healthz' || path === '/readyz';
    const request: RequestRecord = {
      finished: 0,
      errorCode: null,
      calls: {
        finished(procedure, status, errorCode, elapsedMs, input) {
          request.finished += 1;
          record(requestId, trace, method, procedure, status, errorCode, elapsedMs, input, 'info');
        },
      },
    };
    requests.set(req, request);
    res.on('finish', () => {
      // Each procedure call was logged as it finished; a request that ran none (a probe, an unknown
      // path or procedure, a body refused before any call) is logged as itself. Probes come every
      // few seconds: they stay out of the info log.
      if (request.finished > 0) return;
      record(requestId, trace, method, isProbe ? path : UNMATCHED_ROUTE, res.statusCode, request.errorCode, performance.now() - started, undefined, isProbe ? 'debug' : 'info');
    });
    if (isProbe) {
      probe(req, res, path, request).catch((error: unknown) => {
        logger.error({ err: error, path }, 'probe failed');
        if (!res.headersSent) refuse(request, res, 500, 'INTERNAL_SERVER_ERROR', { status: 'error' });
      });
      return;
    }
    if (path === '/trpc' || path.startsWith('/trpc/')) {
      if (!ready) return refuse(request, res, 503, 'SERVICE_UNAVAILABLE', { status: 'starting', message: 'the database is not ready yet; retry after the Retry-After delay' });
      return trpc(req, res);
    }
    refuse(request, res, 404, 'NOT_FOUND', { status: 'not_found' });
  }, config.http);
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
      ready = true;
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
