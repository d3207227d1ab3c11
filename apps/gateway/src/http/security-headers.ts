// Response headers a security review expects on a JSON API: the browser never sniffs a type, no
// response with partner data is stored by a cache or a browser, API responses may not be framed
// or load anything, and no header advertises the server's software.
import { type GatewayAppMiddleware, setHeaders } from './gateway-state.js';

/** Pages meant for people (the reference, its renderer and its document) may be revalidated from a cache; everything else never. */
const PUBLIC_PAGES = new Set(['/docs', '/docs/scalar.js', '/openapi.json']);

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
 * app.use(requestId()).use(securityHeaders()).use(accessLog({ logger }));
 */
export function securityHeaders(): GatewayAppMiddleware {
  return async (ctx, next) => {
    setHeaders(ctx, HEADERS);
    ctx.remove('X-Powered-By');
    // Decided when the answer is known: the errors of those paths stay uncacheable too.
    const settle = () => {
      if (isPublicPage(ctx.path) && ctx.status >= 200 && ctx.status < 300) {
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

const isPublicPage = (path: string): boolean => PUBLIC_PAGES.has(path);
