// Response headers a security review expects on a JSON API: the browser never sniffs a type, no
// response with partner data is stored by a cache or a browser, API responses may not be framed
// or load anything, and no header advertises the server's software.
import { type EdgeMiddleware, type EdgeState, setHeaders } from './edge-state.js';

export interface SecurityHeadersOptions {
  /**
   * Pages meant for people (the gateway's reference, its renderer and its document): a 2xx of one
   * may be revalidated from a cache and carries no Content-Security-Policy; everything else never. None by default.
   */
  publicPages?: ReadonlySet<string>;
}

const HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
};

/**
 * First after `requestId()`, so error responses carry the headers too.
 *
 * @example
 * app.use(requestId()).use(securityHeaders({ publicPages: new Set(['/docs']) })).use(accessLog({ logger, outcome }));
 */
export function securityHeaders<S extends EdgeState = EdgeState>(options: SecurityHeadersOptions = {}): EdgeMiddleware<S> {
  const publicPages = options.publicPages ?? new Set<string>();
  return async (ctx, next) => {
    setHeaders(ctx, HEADERS);
    ctx.remove('X-Powered-By');
    // Decided when the answer is known: the errors of those paths stay uncacheable too.
    const settle = () => {
      if (publicPages.has(ctx.path) && ctx.status >= 200 && ctx.status < 300) {
        ctx.set('Cache-Control', 'no-cache');
        ctx.remove('Content-Security-Policy');
      }
    };
    try {
      await next();
    } finally {
      settle();
    }
  };
}
