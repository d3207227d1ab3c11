// `Idempotency-Key` on POST/PUT/PATCH (docs/idempotency.md): the first request with a key claims it and
// runs; a repeat with the same fingerprint replays the stored response without running again; a
// repeat with a different fingerprint is 422 IDEMPOTENCY_KEY_REUSED. Keys are per partner.
import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleepMs } from 'node:timers/promises';
import { AppError, type ErrorKind, domainError, withFields } from '@pits/domain';
import { errorBody, ERROR_STATUS } from './envelope.js';
import type { Scope } from '@pits/persistence';
import type { GatewayLogger, GatewayMiddleware } from './gateway-state.js';

/** What `begin` found for a (partner, key). */
export type IdempotencyBegin =
  | { state: 'new'; token: string }
  | { state: 'replay'; status: number; body: unknown }
  | { state: 'mismatch' }
  | { state: 'in_progress' };

/**
 * Where idempotency records live. A record is claimed atomically by `begin`, which hands the
 * claimant a token; a record expired by `now` counts as absent, and so does an unfinished claim
 * older than the store's claim lease (its process died). Only the token's holder can complete or
 * release the claim, so a claim that was taken over can never overwrite the newer one's result.
 */
export interface IdempotencyStore {
  /**
   * Claims the key for this request (`new`, with its token), or reports a finished record with
   * the same fingerprint (`replay`), a record with another fingerprint (`mismatch`, finished or
   * not), or an unfinished claim with the same fingerprint (`in_progress`).
   */
  begin(partnerId: number, key: string, fingerprint: string, now: number): Promise<IdempotencyBegin>;
  /**
   * Stores the response of the claim held with `token`, in `scope` when given (the transaction of
   * the work the response describes, so both commit or neither does); false when the claim is no
   * longer this token's.
   */
  complete(scope: Scope | null, partnerId: number, key: string, token: string, status: number, body: unknown): Promise<boolean>;
  /** Releases the claim held with `token` after a 5xx or an exception, so the request can be retried with the key. */
  abandon(partnerId: number, key: string, token: string): Promise<void>;
}

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export interface MemoryIdempotencyStoreOptions {
  /** How long a record replays; default 24 h. */
  ttlMs?: number;
  /** After this long an unfinished claim is considered dead and can be taken over; default 60 s. */
  claimLeaseMs?: number;
}

interface MemoryRecord {
  fingerprint: string;
  token: string;
  claimedAt: number;
  expiresAt: number;
  response?: { status: number; body: unknown };
}

/**
 * Records in this process, for tests and single-process development (it has no transactions: a
 * response is stored when `complete` is called).
 *
 * @example
 * const store = createMemoryIdempotencyStore();
 * app.use(idempotency({ store, logger }));
 */
export function createMemoryIdempotencyStore(options: MemoryIdempotencyStoreOptions = {}): IdempotencyStore {
  const ttlMs = options.ttlMs ?? IDEMPOTENCY_TTL_MS;
  const claimLeaseMs = options.claimLeaseMs ?? 60_000;
  const records = new Map<string, MemoryRecord>();
  let lastPrune = 0;
  const id = (partnerId: number, key: string): string => `${partnerId}\u0000${key}`;

  return {
    begin(partnerId, key, fingerprint, now) {
      if (now - lastPrune >= 60_000) {
        lastPrune = now;
        for (const [k, r] of records) if (r.expiresAt <= now) records.delete(k);
      }
      const existing = records.get(id(partnerId, key));
      const live =
        existing !== undefined &&
        existing.expiresAt > now &&
        (existing.response !== undefined || now - existing.claimedAt < claimLeaseMs);
      if (live) {
        if (existing.fingerprint !== fingerprint) return Promise.resolve({ state: 'mismatch' });
        if (existing.response === undefined) return Promise.resolve({ state: 'in_progress' });
        return Promise.resolve({ state: 'replay', status: existing.response.status, body: structuredClone(existing.response.body) });
      }
      const token = randomUUID();
      records.set(id(partnerId, key), { fingerprint, token, claimedAt: now, expiresAt: now + ttlMs });
      return Promise.resolve({ state: 'new', token });
    },
    complete(_scope, partnerId, key, token, status, body) {
      const record = records.get(id(partnerId, key));
      if (record === undefined || record.token !== token || record.response !== undefined) return Promise.resolve(false);
      record.response = { status, body: structuredClone(body) };
      return Promise.resolve(true);
    },
    abandon(partnerId, key, token) {
      const record = records.get(id(partnerId, key));
      if (record !== undefined && record.token === token && record.response === undefined) records.delete(id(partnerId, key));
      return Promise.resolve();
    },
  };
}

/**
 * Deeper than this, a body cannot be fingerprinted (the JSON body parser refuses bodies far
 * shallower; this bound keeps the recursion finite whoever calls it).
 */
export const MAX_FINGERPRINT_DEPTH = 64;

/** JSON with object keys sorted at every level, so equal bodies give equal text. Throws past MAX_FINGERPRINT_DEPTH levels. */
export function canonicalJson(value: unknown, depth = 0): string {
  if (depth > MAX_FINGERPRINT_DEPTH) {
    throw new AppError(domainError('INVALID_REQUEST', 'the request body nests too deeply', { issue: `must not nest deeper than ${MAX_FINGERPRINT_DEPTH} levels` }));
  }
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v, depth + 1)).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v, depth + 1)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * SHA-256 over method, path, tenant and the canonical body. The tenant is part of it so a key
 * reused for another tenant is a mismatch rather than a replay of that other tenant's response.
 */
export function requestFingerprint(method: string, path: string, tenantId: string | null, body: unknown): string {
  return createHash('sha256')
    .update(canonicalJson([method.toUpperCase(), path, tenantId, body ?? {}]))
    .digest('hex');
}

export interface IdempotencyOptions {
  store: IdempotencyStore;
  /** Reports a store that failed to record a finished response. */
  logger: GatewayLogger;
  /** Epoch milliseconds; `Date.now` by default. */
  now?: () => number;
  /** How long a duplicate waits for the first request with its key to finish; default 5000 ms. */
  waitMs?: number;
  /** First pause between polls; doubles up to 250 ms. Default 20 ms. */
  pollMs?: number;
  /** Called for each request answered with a stored response (metrics). */
  onReplay?: () => void;
}

const METHODS = new Set(['POST', 'PUT', 'PATCH']);
const MAX_KEY_LENGTH = 255;

function keyReused(issue: string): AppError {
  return new AppError(
    domainError('IDEMPOTENCY_KEY_REUSED', 'the Idempotency-Key was already used for another request', {
      field: 'Idempotency-Key',
      issue,
    }),
  );
}

/** The `error.code` of a stored refusal's envelope (an object already, read from the store), for the access log. */
function storedErrorCode(body: unknown): ErrorKind | undefined {
  if (typeof body !== 'object' || body === null || !('error' in body)) return undefined;
  const { error } = body;
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  const { code } = error;
  return typeof code === 'string' && Object.hasOwn(ERROR_STATUS, code) ? (code as ErrorKind) : undefined;
}

function replayBody(body: unknown, requestId: string): unknown {
  if (typeof body === 'object' && body !== null && !Array.isArray(body) && 'request_id' in body) {
    return withFields(body, { request_id: requestId });
  }
  return body;
}

/**
 * Goes after `authenticate`, `rateLimit`, `jsonBody` and `requireTenant` (the fingerprint needs the
 * parsed body and the tenant; a replay still counts against the rate limit), before validation
 * and the handler. Without the header it does nothing. A replay has the stored status and body,
 * a new `request_id` and `Idempotent-Replayed: true`. A duplicate that arrives while the first is
 * still running waits up to `waitMs`, then replays; if the first is still running then, it gets
 * 422 IDEMPOTENCY_KEY_REUSED "a request with this key is still in progress" (the contract has no 409).
 *
 * A successful response is stored by the route itself, through `ctx.state.idempotency.complete`,
 * in the transaction of its work (`mountRoutes` does this for every route): after a crash the
 * key either replays a committed result or was never used. A refusal (4xx) is stored here, after
 * the handler's transaction rolled back; a 5xx releases the claim. A route that answers 2xx
 * without storing is a programming error and answers 500.
 *
 * @example
 * router.post('/api/partner/v1/adjustments', authenticate(lookup), limit, jsonBody(), requireTenant(check),
 *   idempotency({ store, logger }), validateBody(schema), handler);
 */
export function idempotency(options: IdempotencyOptions): GatewayMiddleware {
  const { store, logger } = options;
  const now = options.now ?? Date.now;
  const waitMs = options.waitMs ?? 5000;
  const pollMs = options.pollMs ?? 20;

  return async (ctx, next) => {
    const header = ctx.headers['idempotency-key'];
    if (!METHODS.has(ctx.method) || header === undefined) {
      await next();
      return;
    }
    const key = Array.isArray(header) ? header.join(', ') : header;
    if (key.length < 1 || key.length > MAX_KEY_LENGTH) {
      throw new AppError(
        domainError('VALIDATION_ERROR', 'invalid Idempotency-Key', {
          field: 'Idempotency-Key',
          issue: `must be 1 to ${MAX_KEY_LENGTH} characters`,
        }),
      );
    }
    const partner = ctx.state.partner;
    if (partner === undefined) throw new Error('idempotency needs authenticate() before it');
    const fingerprint = requestFingerprint(ctx.method, ctx.path, ctx.state.tenantId ?? null, ctx.request.body);

    const deadline = Date.now() + waitMs;
    let pause = pollMs;
    let token: string;
    for (;;) {
      const found = await store.begin(partner.partnerId, key, fingerprint, now());
      if (found.state === 'new') {
        token = found.token;
        break;
      }
      if (found.state === 'mismatch') {
        throw keyReused('this key was already used with a different request (method, path, tenant or body)');
      }
      if (found.state === 'replay') {
        options.onReplay?.();
        ctx.set('Idempotent-Replayed', 'true');
        ctx.status = found.status;
        ctx.body = replayBody(found.body, ctx.state.requestId);
        const code = found.status >= 400 ? storedErrorCode(found.body) : undefined;
        if (code !== undefined) ctx.state.errorCode = code;
        return;
      }
      if (Date.now() + pause > deadline) throw keyReused('a request with this key is still in progress');
      await sleepMs(pause);
      pause = Math.min(pause * 2, 250);
    }

    const partnerId = partner.partnerId;
    const completion = {
      completed: false,
      complete: async (scope: Scope | null, status: number, body: unknown): Promise<boolean> => {
        const stored = await store.complete(scope, partnerId, key, token, status, JSON.parse(JSON.stringify(body ?? null)) as unknown);
        completion.completed ||= stored;
        return stored;
      },
    };
    ctx.state.idempotency = completion;
    const release = async (): Promise<void> => {
      try {
        await store.abandon(partnerId, key, token);
      } catch (err) {
        logger.error({ err, request_id: ctx.state.requestId }, 'could not release an idempotency key');
      }
    };

    try {
      await next();
    } catch (err) {
      if (err instanceof AppError && ERROR_STATUS[err.kind].http < 500) {
        // Nothing of the request's work committed (its transaction rolled back): the refusal alone is stored.
        await completion.complete(null, ERROR_STATUS[err.kind].http, errorBody(err.error, ctx.state.requestId)).catch(async (storeError: unknown) => {
          logger.error({ err: storeError, request_id: ctx.state.requestId }, 'could not store an idempotent refusal');
          await release();
        });
      } else {
        await release();
      }
      throw err;
    }
    if (!completion.completed) {
      await release();
      throw new Error(`route ${ctx.method} ${ctx.path} answered ${ctx.status} without storing its Idempotency-Key response`);
    }
  };
}
