// `Idempotency-Key` on POST/PUT/PATCH (decisions §11): the first request with a key claims it and
// runs; a repeat with the same fingerprint replays the stored response without running again; a
// repeat with a different fingerprint is 422 IDEMPOTENCY_KEY_REUSED. Keys are per partner.
import { createHash } from 'node:crypto';
import { setTimeout as sleepMs } from 'node:timers/promises';
import { AppError, domainError } from '@pits/domain';
import { errorBody, ERROR_STATUS } from './envelope.js';
import type { GatewayLogger, GatewayMiddleware } from './gateway-state.js';

/** What `begin` found for a (partner, key). */
export type IdempotencyBegin =
  | { state: 'new' }
  | { state: 'replay'; status: number; body: unknown }
  | { state: 'mismatch' }
  | { state: 'in_progress' };

/**
 * Where idempotency records live. A record is claimed atomically by `begin` (for a database: an
 * INSERT into `idempotency_records` relying on the unique (partner_id, key), and on conflict a
 * read of the existing row); a record expired by `now` counts as absent, and so does an
 * unfinished claim older than the store's claim lease (its process died).
 */
export interface IdempotencyStore {
  /**
   * Claims the key for this request (`new`), or reports a finished record with the same
   * fingerprint (`replay`), a record with another fingerprint (`mismatch`, finished or not), or an
   * unfinished claim with the same fingerprint (`in_progress`).
   */
  begin(partnerId: number, key: string, fingerprint: string, now: number): Promise<IdempotencyBegin>;
  /** Stores the response of a claimed key (2xx and 4xx only); it stays replayable until expiry. */
  complete(partnerId: number, key: string, status: number, body: unknown): Promise<void>;
  /** Releases a claim after a 5xx or an exception, so the request can be retried with the key. */
  abandon(partnerId: number, key: string): Promise<void>;
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
  claimedAt: number;
  expiresAt: number;
  response?: { status: number; body: unknown };
}

/**
 * Records in this process, for tests and single-process development.
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
      records.set(id(partnerId, key), { fingerprint, claimedAt: now, expiresAt: now + ttlMs });
      return Promise.resolve({ state: 'new' });
    },
    complete(partnerId, key, status, body) {
      const record = records.get(id(partnerId, key));
      if (record !== undefined) record.response = { status, body: structuredClone(body) };
      return Promise.resolve();
    },
    abandon(partnerId, key) {
      const record = records.get(id(partnerId, key));
      if (record !== undefined && record.response === undefined) records.delete(id(partnerId, key));
      return Promise.resolve();
    },
  };
}

/** JSON with object keys sorted at every level, so equal bodies give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
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

function replayBody(body: unknown, requestId: string): unknown {
  if (typeof body === 'object' && body !== null && !Array.isArray(body) && 'request_id' in body) {
    return { ...body, request_id: requestId };
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
    for (;;) {
      const found = await store.begin(partner.partnerId, key, fingerprint, now());
      if (found.state === 'new') break;
      if (found.state === 'mismatch') {
        throw keyReused('this key was already used with a different request (method, path, tenant or body)');
      }
      if (found.state === 'replay') {
        ctx.set('Idempotent-Replayed', 'true');
        ctx.status = found.status;
        ctx.body = replayBody(found.body, ctx.state.requestId);
        return;
      }
      if (Date.now() + pause > deadline) throw keyReused('a request with this key is still in progress');
      await sleepMs(pause);
      pause = Math.min(pause * 2, 250);
    }

    const partnerId = partner.partnerId;
    const release = async (): Promise<void> => {
      try {
        await store.abandon(partnerId, key);
      } catch (err) {
        logger.error({ err, request_id: ctx.state.requestId }, 'could not release an idempotency key');
      }
    };
    const record = async (code: number, payload: unknown): Promise<void> => {
      try {
        await store.complete(partnerId, key, code, JSON.parse(JSON.stringify(payload ?? null)) as unknown);
      } catch (err) {
        logger.error({ err, request_id: ctx.state.requestId }, 'could not store an idempotent response');
        await release();
      }
    };

    try {
      await next();
    } catch (err) {
      if (err instanceof AppError && ERROR_STATUS[err.kind].http < 500) {
        await record(ERROR_STATUS[err.kind].http, errorBody(err.error, ctx.state.requestId));
      } else {
        await release();
      }
      throw err;
    }
    const status = ctx.status;
    if ((status >= 200 && status < 300) || (status >= 400 && status < 500)) await record(status, ctx.body);
    else await release();
  };
}
