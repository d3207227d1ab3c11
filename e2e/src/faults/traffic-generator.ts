// Steady, bounded traffic while a fault is injected: a few loops against the gateway (adjustment
// creates and approves, each with its own Idempotency-Key, and detail and list reads) and one
// against the internal API, each request recorded with its key, status, latency and Retry-After,
// so a test can judge what partners saw and which writes were acknowledged.
import { setTimeout as sleep } from 'node:timers/promises';
import { type GatewayResponse, type JsonBody, readGatewayResponse } from '../harness/gateway-response.js';

export type TrafficOp = 'create' | 'approve' | 'detail' | 'list' | 'internal';

export interface TrafficRecord {
  op: TrafficOp;
  /** The process class that answered: `gateway` or `internal-api`. */
  target: 'gateway' | 'internal-api';
  method: string;
  path: string;
  /** The Idempotency-Key of a write. */
  key?: string;
  /** The HTTP status; 0 when no answer came (refused connection, or none within the answer timeout: a hang). */
  status: number;
  /** Why there was no answer (status 0). */
  failure?: string;
  /** `error.code` of the gateway envelope, `error.data.code` of a tRPC error. */
  code?: string;
  retryAfter?: string;
  /** `performance.now()` when sent and when the answer was read. */
  startedAt: number;
  endedAt: number;
  latencyMs: number;
  /** `load` while the fault plays, `retry` when the test retries a write afterwards. */
  phase: 'load' | 'retry';
  /** The whole response of a non-2xx gateway answer (for the contract check of samples). */
  response?: GatewayResponse;
}

/** One write the traffic meant to make, with every attempt at it. */
export interface WriteIntent {
  op: 'create' | 'approve';
  key: string;
  method: 'POST' | 'PATCH';
  path: string;
  body: unknown;
  /** The adjustment: the target of an approve from the start, the result of a create once acknowledged. */
  number?: string;
  /** A create's `reason`: unique per key, so the audit can count the adjustments each key made. */
  marker?: string;
  attempts: TrafficRecord[];
}

export interface TrafficTarget {
  gatewayUrl: string;
  /** The partner's API key secret and one of its tenants. */
  key: string;
  tenant: string;
  locationId: number;
  productIds: readonly number[];
  /** The internal API and a partner id to read there; no internal loop without it. */
  internal?: { url: string; token: string; partnerId: number };
}

export interface TrafficOptions {
  /** Unique per scenario: part of every Idempotency-Key and marker. */
  label: string;
  /** Concurrent gateway loops; default 4. */
  loops?: number;
  /** Pause between two requests of one loop; default 30 ms (keeps a two-core machine usable). */
  pauseMs?: number;
  /** The traffic stops by itself after this many requests (default 1500) ... */
  maxRequests?: number;
  /** ... or after this long (default 60 s), whichever comes first. */
  maxDurationMs?: number;
  /** A request without an answer after this is abandoned and recorded with status 0. */
  answerTimeoutMs: number;
}

export interface Traffic {
  readonly records: readonly TrafficRecord[];
  readonly writes: readonly WriteIntent[];
  /** Stops the loops after their current request; resolves once all of them stopped. */
  stop(): Promise<void>;
}

const CREATE = '/api/partner/v1/adjustments';
const LIST = '/api/engine/v1/adjustments';
const detailPath = (number: string) => `/api/engine/v1/adjustments/${encodeURIComponent(number)}`;
const approvePath = (number: string) => `/api/partner/v1/adjustments/${encodeURIComponent(number)}/approve`;

/** The marker a create carries in `reason`; the audit looks adjustments up by it. */
export const markerOf = (key: string) => `fault-suite ${key}`;

export const isSuccess = (status: number) => status >= 200 && status < 300;

/** Whether any attempt of the intent was answered 2xx (in `phase`, or in any phase). */
export function acknowledged(intent: WriteIntent, phase?: TrafficRecord['phase']): boolean {
  return intent.attempts.some((a) => isSuccess(a.status) && (phase === undefined || a.phase === phase));
}

function describeFailure(error: unknown): string {
  const err = error as { name?: string; message?: string; cause?: { code?: string } };
  if (err.name === 'TimeoutError' || err.name === 'AbortError') return 'no answer in time';
  return err.cause?.code ?? err.message ?? String(error);
}

/**
 * Sends one gateway request and records it (with the parsed body beside the record). `phase`
 * tells the load from the test's retries.
 *
 * @example
 * const { record } = await sendToGateway(target, { op: 'list', method: 'GET', path: LIST }, 'load', 5000);
 */
export async function sendToGateway(
  target: Pick<TrafficTarget, 'gatewayUrl' | 'key' | 'tenant'>,
  request: { op: TrafficOp; method: string; path: string; key?: string; body?: unknown },
  phase: TrafficRecord['phase'],
  answerTimeoutMs: number,
): Promise<{ record: TrafficRecord; body: JsonBody }> {
  const headers: Record<string, string> = { accept: 'application/json', authorization: `Bearer ${target.key}`, 'x-tenant-id': target.tenant };
  if (request.key !== undefined) headers['idempotency-key'] = request.key;
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  const base = { op: request.op, target: 'gateway' as const, method: request.method, path: request.path, phase, ...(request.key !== undefined ? { key: request.key } : {}) };
  const startedAt = performance.now();
  try {
    const res = await fetch(`${target.gatewayUrl}${request.path}`, {
      method: request.method,
      headers,
      ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
      signal: AbortSignal.timeout(answerTimeoutMs),
    });
    const read = await readGatewayResponse(target.gatewayUrl, request.method, request.path, res);
    const endedAt = performance.now();
    const code: unknown = read.body?.error?.code;
    const record: TrafficRecord = {
      ...base,
      status: read.status,
      ...(typeof code === 'string' ? { code } : {}),
      ...(read.headers['retry-after'] !== undefined ? { retryAfter: read.headers['retry-after'] } : {}),
      startedAt,
      endedAt,
      latencyMs: endedAt - startedAt,
      ...(isSuccess(read.status) ? {} : { response: read }),
    };
    return { record, body: read.body };
  } catch (error) {
    const endedAt = performance.now();
    return { record: { ...base, status: 0, failure: describeFailure(error), startedAt, endedAt, latencyMs: endedAt - startedAt }, body: undefined };
  }
}

/** The number of the adjustment a create answered with. */
function createdNumber(body: JsonBody): string | undefined {
  const id: unknown = body?.data?.adjustment?.id;
  return typeof id === 'string' ? id : undefined;
}

/** One internal API read (`partners.byId`) over plain HTTP, so its status and Retry-After can be recorded. */
async function sendToInternalApi(internal: NonNullable<TrafficTarget['internal']>, answerTimeoutMs: number): Promise<TrafficRecord> {
  const path = `/trpc/partners.byId?input=${encodeURIComponent(JSON.stringify({ id: internal.partnerId }))}`;
  const base = { op: 'internal' as const, target: 'internal-api' as const, method: 'GET', path, phase: 'load' as const };
  const startedAt = performance.now();
  try {
    const res = await fetch(`${internal.url}${path}`, { headers: { authorization: `Bearer ${internal.token}` }, signal: AbortSignal.timeout(answerTimeoutMs) });
    const text = await res.text();
    const endedAt = performance.now();
    let code: unknown;
    try {
      code = (JSON.parse(text) as { error?: { data?: { code?: unknown } } }).error?.data?.code;
    } catch {
      code = undefined;
    }
    const retryAfter = res.headers.get('retry-after');
    return {
      ...base,
      status: res.status,
      ...(typeof code === 'string' ? { code } : {}),
      ...(retryAfter !== null ? { retryAfter } : {}),
      startedAt,
      endedAt,
      latencyMs: endedAt - startedAt,
    };
  } catch (error) {
    const endedAt = performance.now();
    return { ...base, status: 0, failure: describeFailure(error), startedAt, endedAt, latencyMs: endedAt - startedAt };
  }
}

/**
 * An increase of 1 of `productId` at `locationId`, keyed `key`, its marker in `reason`.
 *
 * @example
 * const intent = createIntent('burst-1', location.id, product.id);
 * await sendIntent(target, intent, 'load', 8000);
 */
export function createIntent(key: string, locationId: number, productId: number): WriteIntent {
  const marker = markerOf(key);
  const body = { location_id: locationId, type: 'increase', stock_source: 'good', reason: marker, items: [{ product_id: String(productId), quantity: 1, unit_cost: 1 }] };
  return { op: 'create', key, method: 'POST', path: CREATE, body, marker, attempts: [] };
}

/** Sends `intent` once with its key and body, adds the attempt to it (and a create's number once acknowledged), and returns the attempt. */
export async function sendIntent(target: Pick<TrafficTarget, 'gatewayUrl' | 'key' | 'tenant'>, intent: WriteIntent, phase: TrafficRecord['phase'], answerTimeoutMs: number): Promise<TrafficRecord> {
  const { record, body } = await sendToGateway(target, { op: intent.op, method: intent.method, path: intent.path, key: intent.key, body: intent.body }, phase, answerTimeoutMs);
  intent.attempts.push(record);
  const number = intent.op === 'create' && isSuccess(record.status) ? createdNumber(body) : undefined;
  if (number !== undefined) intent.number = number;
  return record;
}

/**
 * Starts the loops at once. Each gateway loop cycles create → approve (the oldest acknowledged,
 * not yet approved create; another create when there is none) → detail (a random acknowledged
 * adjustment) → list; every write has a fresh Idempotency-Key, and every create an increase of 1
 * so an approval never fails for want of stock.
 *
 * @example
 * const traffic = startTraffic(target, { label: 'outage', answerTimeoutMs: 8000 });
 * await proxy.cut();
 * await traffic.stop();
 * const answered503 = traffic.records.filter((r) => r.status === 503);
 */
export function startTraffic(target: TrafficTarget, options: TrafficOptions): Traffic {
  const loops = options.loops ?? 4;
  const pauseMs = options.pauseMs ?? 30;
  const maxRequests = options.maxRequests ?? 1500;
  const until = performance.now() + (options.maxDurationMs ?? 60_000);
  const records: TrafficRecord[] = [];
  const writes: WriteIntent[] = [];
  const pending: string[] = [];
  const known: string[] = [];
  let running = true;
  let serial = 0;

  const more = () => running && records.length < maxRequests && performance.now() < until;
  const note = (record: TrafficRecord) => {
    records.push(record);
    return record;
  };

  async function create(): Promise<void> {
    serial += 1;
    const intent = createIntent(`${options.label}-c${serial}`, target.locationId, target.productIds[serial % target.productIds.length]!);
    writes.push(intent);
    const sent = await sendIntent(target, intent, 'load', options.answerTimeoutMs);
    note(sent);
  }

  async function approve(number: string): Promise<void> {
    serial += 1;
    const key = `${options.label}-a${serial}`;
    const intent: WriteIntent = { op: 'approve', key, method: 'PATCH', path: approvePath(number), body: {}, number, attempts: [] };
    writes.push(intent);
    const sent = await sendToGateway(target, { op: 'approve', method: 'PATCH', path: approvePath(number), key, body: {} }, 'load', options.answerTimeoutMs);
    intent.attempts.push(note(sent.record));
  }

  async function gatewayLoop(offset: number): Promise<void> {
    for (let step = offset; more(); step += 1) {
      const kind = step % 4;
      if (kind === 1 && pending.length > 0) await approve(pending.shift()!);
      else if (kind === 2 && known.length > 0) {
        const number = known[Math.floor(Math.random() * known.length)]!;
        note((await sendToGateway(target, { op: 'detail', method: 'GET', path: detailPath(number) }, 'load', options.answerTimeoutMs)).record);
      } else if (kind === 3) note((await sendToGateway(target, { op: 'list', method: 'GET', path: `${LIST}?per_page=5` }, 'load', options.answerTimeoutMs)).record);
      else {
        const before = writes.length;
        await create();
        const intent = writes[before];
        if (intent?.number !== undefined) {
          pending.push(intent.number);
          known.push(intent.number);
        }
      }
      await sleep(pauseMs);
    }
  }

  async function internalLoop(internal: NonNullable<TrafficTarget['internal']>): Promise<void> {
    while (more()) {
      note(await sendToInternalApi(internal, options.answerTimeoutMs));
      await sleep(pauseMs * 3);
    }
  }

  const all = [
    ...Array.from({ length: loops }, (_, i) => gatewayLoop(i)),
    ...(target.internal ? [internalLoop(target.internal)] : []),
  ];
  return {
    records,
    writes,
    async stop() {
      running = false;
      await Promise.all(all);
    },
  };
}

export interface RetryOptions {
  /** Wait until this `performance.now()` time first (the claim lease of an interrupted attempt has run out by then). */
  notBefore: number;
  answerTimeoutMs: number;
  /** Attempts per write; default 12. */
  attempts?: number;
  pauseMs?: number;
  concurrency?: number;
}

/** A refusal a retry can get past: unavailable, no answer, or the key's earlier attempt still in progress. */
function retryable(record: TrafficRecord): boolean {
  if (record.status === 503 || record.status === 0) return true;
  const issue: unknown = record.response?.body?.error?.details?.issue;
  return record.status === 422 && record.code === 'IDEMPOTENCY_KEY_REUSED' && typeof issue === 'string' && issue.includes('in progress');
}

/**
 * Sends every write that got no 2xx again, with its same Idempotency-Key and body, until it is
 * answered 2xx or refused for good (a refusal that is not retryable stays as it is, for the audit
 * to report). Returns the writes it retried.
 *
 * @example
 * const retried = await retryUnacknowledged(target, traffic.writes, { notBefore: healedAt + 3000, answerTimeoutMs: 8000 });
 */
export async function retryUnacknowledged(target: Pick<TrafficTarget, 'gatewayUrl' | 'key' | 'tenant'>, writes: readonly WriteIntent[], options: RetryOptions): Promise<WriteIntent[]> {
  const todo = writes.filter((w) => !acknowledged(w));
  if (todo.length === 0) return [];
  const wait = options.notBefore - performance.now();
  if (wait > 0) await sleep(wait);
  const attempts = options.attempts ?? 12;
  const queue = [...todo];
  const worker = async () => {
    for (let intent = queue.shift(); intent !== undefined; intent = queue.shift()) {
      for (let n = 0; n < attempts; n += 1) {
        const record = await sendIntent(target, intent, 'retry', options.answerTimeoutMs);
        if (isSuccess(record.status)) break;
        if (!retryable(record)) break;
        await sleep(options.pauseMs ?? 400);
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 4 }, worker));
  return todo;
}
