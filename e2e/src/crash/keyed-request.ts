// One write sent with its Idempotency-Key, and what its outcome means for the client: answered
// (a 2xx, or a 4xx that will not change on retry), to be retried later (the key is still held by
// a running or dead request, the service is unavailable, rate limited or failed), or unanswered
// (the connection died with the gateway, or no answer came at all).
import { expectContract } from '../harness/openapi-contract.js';
import { type GatewayResponse, readGatewayResponse } from '../harness/gateway-response.js';

export interface KeyedRequest {
  method: 'POST' | 'PATCH';
  /** The concrete path. */
  path: string;
  /** Its OpenAPI template, for the contract check. */
  template: string;
  /** The partner's API key and tenant. */
  apiKey: string;
  tenant: string;
  idempotencyKey: string;
  body: unknown;
}

export type RetryReason = 'in_progress' | 'unavailable' | 'rate_limited' | 'server_error';

export type KeyedOutcome =
  | { kind: 'answered'; res: GatewayResponse; replayed: boolean }
  | { kind: 'later'; reason: RetryReason; res: GatewayResponse }
  | { kind: 'unanswered'; reason: 'socket' | 'no_answer'; error: string };

/** The 422 a duplicate gets while the key's first request is still running (or its claim has not yet expired). */
export function stillInProgress(res: GatewayResponse): boolean {
  return res.status === 422 && res.body?.error?.code === 'IDEMPOTENCY_KEY_REUSED' && /still in progress/.test(String(res.body?.error?.details?.issue));
}

function classify(res: GatewayResponse): KeyedOutcome {
  if (stillInProgress(res)) return { kind: 'later', reason: 'in_progress', res };
  if (res.status === 429) return { kind: 'later', reason: 'rate_limited', res };
  if (res.status === 503) return { kind: 'later', reason: 'unavailable', res };
  if (res.status >= 500) return { kind: 'later', reason: 'server_error', res };
  return { kind: 'answered', res, replayed: res.headers['idempotent-replayed'] === 'true' };
}

/**
 * Sends `request` to the gateway at `baseUrl`. Every response that arrives passes the contract
 * check (a failed check throws, like every e2e response); a connection that dies, or no answer
 * within `answerWithinMs`, is an `unanswered` outcome rather than an exception.
 *
 * @example
 * const outcome = await sendKeyed(gateway.url, { method: 'POST', path, template: path, apiKey, tenant, idempotencyKey: 'k-1', body }, 15_000);
 * if (outcome.kind === 'answered') expect(outcome.res.status).toBe(201);
 */
export async function sendKeyed(baseUrl: string, request: KeyedRequest, answerWithinMs: number): Promise<KeyedOutcome> {
  let res: GatewayResponse;
  try {
    const answer = await fetch(`${baseUrl}${request.path}`, {
      method: request.method,
      headers: {
        accept: 'application/json',
        authorization: `Bearer ${request.apiKey}`,
        'x-tenant-id': request.tenant,
        'idempotency-key': request.idempotencyKey,
        'content-type': 'application/json',
      },
      body: JSON.stringify(request.body),
      signal: AbortSignal.timeout(answerWithinMs),
    });
    res = await readGatewayResponse(baseUrl, request.method, request.path, answer);
  } catch (error) {
    const name = error instanceof Error ? error.name : '';
    const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : '';
    const text = `${error instanceof Error ? error.message : String(error)}${cause}`;
    return { kind: 'unanswered', reason: name === 'TimeoutError' || name === 'AbortError' ? 'no_answer' : 'socket', error: text };
  }
  await expectContract(res, request.method, request.template);
  return classify(res);
}
