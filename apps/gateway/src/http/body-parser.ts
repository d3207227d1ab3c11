// JSON request bodies, read straight from the socket with a hard byte limit, so no body-parser
// dependency decides our statuses. The parsed object goes on `ctx.request.body`.
import type { IncomingMessage } from 'node:http';
import { AppError, MAX_NESTING_DEPTH, domainError, exceedsNestingDepth } from '@pits/domain';
import { type GatewayMiddleware, type RouteStep, stepMiddleware } from './gateway-state.js';

declare module 'koa' {
  interface Request {
    /** The parsed JSON object of a POST/PUT/PATCH request (set by `jsonBody()`); absent otherwise. */
    body?: unknown;
  }
}

/** 1 MiB (docs/input-rules.md#sizes). */
export const DEFAULT_BODY_LIMIT_BYTES = 1_048_576;
/** At most this many `items` per request (docs/input-rules.md#sizes). */
export const DEFAULT_MAX_ITEMS = 500;

export interface JsonBodyOptions {
  /** Largest accepted body in bytes; default 1 MiB. */
  limitBytes?: number;
  /** Largest accepted length of a top-level `items` array; default 500. */
  maxItems?: number;
}

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

function tooLarge(limitBytes: number): AppError {
  return new AppError(
    domainError('PAYLOAD_TOO_LARGE', 'request body is too large', {
      issue: `the request body may be at most ${limitBytes} bytes`,
    }),
  );
}

function unsupportedType(declared: string): AppError {
  return new AppError(
    domainError('UNSUPPORTED_MEDIA_TYPE', 'the request body must be JSON', {
      field: 'Content-Type',
      issue: `${JSON.stringify(declared.slice(0, 100))} is not accepted; send application/json (UTF-8), or no Content-Type`,
    }),
  );
}

/** `application/json` or `application/<anything>+json` (RFC 6839), as type/subtype in lower case. */
const JSON_MEDIA_TYPE = /^application\/(?:[a-z0-9!#$&^_.-]+\+)?json$/;

/**
 * Whether a declared Content-Type describes a body this parser reads: a JSON media type whose
 * parameters name no charset other than UTF-8 (JSON is UTF-8, RFC 8259). Other parameters are
 * ignored; a value that does not parse is not JSON.
 */
export function isJsonContentType(declared: string): boolean {
  const [type = '', ...parameters] = declared.split(';');
  if (!JSON_MEDIA_TYPE.test(type.trim().toLowerCase())) return false;
  for (const parameter of parameters) {
    const at = parameter.indexOf('=');
    if (at < 0) {
      if (parameter.trim() === '') continue;
      return false;
    }
    if (parameter.slice(0, at).trim().toLowerCase() !== 'charset') continue;
    const charset = parameter.slice(at + 1).trim().replace(/^"(.*)"$/, '$1').toLowerCase();
    if (charset !== 'utf-8' && charset !== 'utf8') return false;
  }
  return true;
}

/** The request has content by its framing: chunked, or a Content-Length other than 0. */
function hasContent(ctx: { get(name: string): string }): boolean {
  const length = ctx.get('Content-Length').trim();
  return ctx.get('Transfer-Encoding') !== '' || (length !== '' && length !== '0');
}

function invalid(message: string, field = ''): AppError {
  return new AppError(domainError('INVALID_REQUEST', message, { field, issue: message }));
}

/**
 * Reads at most `limit` bytes; stops collecting as soon as the limit is passed and lets the rest
 * of the upload drain into nothing (the caller closes the connection after the response).
 */
function readLimited(req: IncomingMessage, limit: number): Promise<Buffer | 'too_large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onAbort);
      req.off('close', onAbort);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.resume();
        resolve('too_large');
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    // The client went away, or the request was destroyed, before the body ended: no more events come.
    const onAbort = (): void => {
      cleanup();
      reject(invalid('the request body could not be read'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onAbort);
    req.on('close', onAbort);
  });
}

/**
 * The body at once when it has arrived whole already and waits in the stream's buffer (a small
 * body comes in the same packet as its headers): no listeners, no ticks. Undefined when it has
 * not, or when it is over `limit` (then `readLimited` reads and refuses it as usual). Nothing
 * before the parser reads the request, so the stream is paused, and `read()` without a size
 * returns everything buffered (null: an empty body).
 */
function readArrived(req: IncomingMessage, limit: number): Buffer | undefined {
  if (!req.complete || req.readableLength > limit) return undefined;
  return (req.read() as Buffer | null) ?? Buffer.alloc(0);
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Parses JSON bodies of POST, PUT and PATCH into `ctx.request.body` (other methods: left unset).
 * Over `limitBytes` → 413 PAYLOAD_TOO_LARGE (a declared Content-Length is checked before reading);
 * not UTF-8, not JSON, not a JSON object, or nested deeper than 32 levels (docs/input-rules.md#nesting) → 400
 * INVALID_REQUEST; empty body → `{}`; a top-level `items` array longer than `maxItems` → 413
 * PAYLOAD_TOO_LARGE on `items`. A body with a declared Content-Type that is not JSON in UTF-8
 * (`isJsonContentType`) → 415 UNSUPPORTED_MEDIA_TYPE before it is read; a body without any
 * Content-Type is read as JSON, for the clients that omit it (docs/input-rules.md). The depth is measured without recursion before anything else (the idempotency
 * fingerprint, validation) walks the body, whatever headers came with it.
 *
 * @example
 * router.post('/api/partner/v1/adjustments', authenticate(lookup), rateLimit(opts), jsonBody(), handler);
 */
export function jsonBody(options: JsonBodyOptions = {}): GatewayMiddleware {
  return stepMiddleware(jsonBodyStep(options));
}

/** The reading of `jsonBody` as a route step (what `mountRoutes` runs). */
export function jsonBodyStep(options: JsonBodyOptions = {}): RouteStep {
  const limitBytes = options.limitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  const maxItems = options.maxItems ?? DEFAULT_MAX_ITEMS;
  const decoder = new TextDecoder('utf-8', { fatal: true });

  return async (ctx) => {
    if (!METHODS_WITH_BODY.has(ctx.method) || ctx.request.body !== undefined) return;
    const encoding = ctx.get('Content-Encoding').trim().toLowerCase();
    if (encoding !== '' && encoding !== 'identity') {
      ctx.set('Connection', 'close');
      throw invalid('compressed request bodies are not supported', 'Content-Encoding');
    }
    const contentType = ctx.get('Content-Type');
    if (contentType.trim() !== '' && hasContent(ctx) && !isJsonContentType(contentType)) {
      // The body is not read: the connection goes with the answer, so nothing waits for the rest of it.
      ctx.set('Connection', 'close');
      throw unsupportedType(contentType);
    }
    const declared = ctx.get('Content-Length');
    if (declared !== '' && Number(declared) > limitBytes) {
      ctx.set('Connection', 'close');
      throw tooLarge(limitBytes);
    }
    const raw = readArrived(ctx.req, limitBytes) ?? (await readLimited(ctx.req, limitBytes));
    if (raw === 'too_large') {
      ctx.set('Connection', 'close');
      throw tooLarge(limitBytes);
    }

    let text: string;
    try {
      text = decoder.decode(raw);
    } catch {
      throw invalid('the request body is not valid UTF-8');
    }
    let body: unknown = {};
    if (text.trim() !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        throw invalid('the request body is not valid JSON');
      }
    }
    if (!isJsonObject(body)) throw invalid('the request body must be a JSON object');
    if (exceedsNestingDepth(body)) throw invalid(`the request body must not be nested more than ${MAX_NESTING_DEPTH} levels deep`);
    const items = body['items'];
    if (Array.isArray(items) && items.length > maxItems) {
      throw new AppError(
        domainError('PAYLOAD_TOO_LARGE', 'too many items in one request', {
          field: 'items',
          issue: `at most ${maxItems} items per request, got ${items.length}`,
        }),
      );
    }
    ctx.request.body = body;
  };
}
