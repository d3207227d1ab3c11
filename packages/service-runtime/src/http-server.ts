// The HTTP servers of the gateway and the internal API: limits set explicitly instead of Node's
// defaults (a trickled body would stay open for 300 s, slow headers about 80 s), and a graceful
// close that lets go of idle keep-alive connections at once and of busy ones as soon as their
// response is written.
import { type IncomingMessage, type RequestListener, STATUS_CODES, type Server, type ServerResponse, createServer } from 'node:http';
import type { Duplex } from 'node:stream';

/** How long and how much a client may take to send a request. */
export interface HttpServerLimits {
  /** Receiving the request line and headers. */
  headersTimeoutMs: number;
  /** Receiving the whole request, body included. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this long. */
  keepAliveTimeoutMs: number;
  /** Largest request line plus headers, in bytes (431 above it). */
  maxHeaderBytes: number;
}

export const DEFAULT_HTTP_LIMITS: HttpServerLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxHeaderBytes: 16_384,
};

/** Node checks the header and request timeouts on this interval; its default (30 s) would let a slow client overstay by that much. */
const TIMEOUT_CHECK_INTERVAL_MS = 1000;

/**
 * What Node's HTTP parser answers by itself (a malformed request, headers over the size limit, a
 * client too slow to send its request), with the same security headers as every other answer.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nConnection: close\r\nContent-Length: 0\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\n\r\n`,
  );
}

/** A server that knows how to stop. */
export interface LimitedServer {
  readonly server: Server;
  /** True once `close` was called: the owner's readiness probe should say no. */
  readonly closing: boolean;
  /**
   * Stops accepting connections, closes idle keep-alive connections at once, lets in-flight
   * requests finish (their responses carry `Connection: close`) and cuts whatever is still open
   * after `graceMs`. Resolves when every connection is gone. Safe to call twice.
   */
  close(graceMs: number): Promise<void>;
}

/**
 * @example
 * const http = createLimitedServer(app.callback(), DEFAULT_HTTP_LIMITS);
 * http.server.listen(4000);
 * process.on('SIGTERM', () => http.close(10_000));
 */
export function createLimitedServer(handler: RequestListener, limits: HttpServerLimits = DEFAULT_HTTP_LIMITS): LimitedServer {
  let closing = false;
  let closed: Promise<void> | undefined;
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      maxHeaderSize: limits.maxHeaderBytes,
      connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
    },
    (req: IncomingMessage, res: ServerResponse) => {
      if (closing) letGoAfter(res);
      else {
        inFlight.add(res);
        res.once('close', () => inFlight.delete(res));
      }
      handler(req, res);
    },
  );
  server.on('clientError', answerClientError);
  const inFlight = new Set<ServerResponse>();
  /** Answer the request, then let its connection go instead of keeping it alive. */
  const letGoAfter = (res: ServerResponse): void => {
    if (!res.headersSent) res.shouldKeepAlive = false;
    res.once('close', () => server.closeIdleConnections());
  };
  return {
    server,
    get closing() {
      return closing;
    },
    close(graceMs) {
      closed ??= new Promise<void>((resolve) => {
        closing = true;
        if (!server.listening) {
          resolve();
          return;
        }
        const cut = setTimeout(() => server.closeAllConnections(), graceMs);
        cut.unref();
        for (const res of inFlight) letGoAfter(res);
        server.close(() => {
          clearTimeout(cut);
          resolve();
        });
        server.closeIdleConnections();
      });
      return closed;
    },
  };
}

/**
 * The host part of the URL by which a person on this machine reaches a listening address: a
 * wildcard address (0.0.0.0, ::) becomes 127.0.0.1, an IPv6 address gets its brackets.
 *
 * @example `http://${urlHost('0.0.0.0')}:${port}` // 'http://127.0.0.1:4000'
 */
export function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}
