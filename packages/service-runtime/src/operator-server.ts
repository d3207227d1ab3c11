// The operator port: a small HTTP server of its own, apart from the port partners or internal
// callers use, that serves the process's metrics (GET /metrics, Prometheus text format). It binds
// to 127.0.0.1 unless told otherwise, so nothing outside the host reaches it by default; partners
// never can (their port answers /metrics with the contract's 404).
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { ServerResponse } from 'node:http';
import { DEFAULT_HTTP_LIMITS, type HttpServerLimits, createLimitedServer, urlHost } from './http-server.js';
import type { ProcessMetrics } from './metrics.js';

/** Where the operator server listens. */
export interface OperatorEndpoint {
  host: string;
  /** 0 picks a free port (tests). */
  port: number;
}

export interface OperatorServer {
  /** Starts listening; resolves with the port it got and the metrics URL. */
  listen(): Promise<{ port: number; url: string }>;
  /** Stops at once (a scrape in flight gets up to `graceMs`). */
  close(graceMs?: number): Promise<void>;
}

function answer(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.statusCode = status;
  res.setHeader('content-type', contentType);
  res.setHeader('cache-control', 'no-store');
  res.setHeader('x-content-type-options', 'nosniff');
  res.end(body);
}

/**
 * Serves `metrics.metrics()`: the process's registry and its request metrics (a bare prom-client
 * registry would leave the request metrics out, so it is not accepted).
 *
 * @example
 * const operator = createOperatorServer(metrics, { host: '127.0.0.1', port: 9464 });
 * const { url } = await operator.listen(); // http://127.0.0.1:9464/metrics
 */
export function createOperatorServer(metrics: Pick<ProcessMetrics, 'app' | 'contentType' | 'metrics'>, endpoint: OperatorEndpoint, limits: HttpServerLimits = DEFAULT_HTTP_LIMITS): OperatorServer {
  const http = createLimitedServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') return answer(res, 404, 'text/plain; charset=utf-8', 'not found: the operator port serves GET /metrics\n');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      return answer(res, 405, 'text/plain; charset=utf-8', 'method not allowed\n');
    }
    metrics.metrics().then(
      (text) => answer(res, 200, metrics.contentType, text),
      (error: unknown) => answer(res, 500, 'text/plain; charset=utf-8', `metrics collection failed: ${(error as Error).message}\n`),
    );
  }, limits);
  return {
    async listen() {
      http.server.listen(endpoint.port, endpoint.host);
      await Promise.race([once(http.server, 'listening'), once(http.server, 'error').then(([error]) => Promise.reject(error as Error))]);
      const { port } = http.server.address() as AddressInfo;
      return { port, url: `http://${urlHost(endpoint.host)}:${port}/metrics` };
    },
    close: (graceMs = 1000) => http.close(graceMs),
  };
}
