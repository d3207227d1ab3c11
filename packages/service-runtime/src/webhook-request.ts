// One webhook POST, sent only where the URL policy allows (docs/webhooks.md#endpoint-urls): the URL is
// checked, its host resolved once and every address checked, and the socket connects to those
// checked addresses only (a custom `lookup`), so a second DNS answer can never redirect it. What
// comes back is the status and at most 1 KiB of body; a failure is a generic reason, never the
// error text of whatever answered.
import { type IncomingMessage, type RequestOptions, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { type HostResolver, type WebhookTarget, type WebhookUrlPolicy, checkWebhookUrl, resolveWebhookTarget } from '@pits/domain';

/** Bytes of a response body that are read and kept; the rest is never read. */
export const RESPONSE_BODY_LIMIT = 1024;

export interface WebhookPost {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** For everything: resolution, connection, answer and the body read. */
  timeoutMs: number;
  policy: WebhookUrlPolicy;
  resolve: HostResolver;
}

/** The receiver answered (any status), or the attempt failed before an answer, for a generic reason. */
export type WebhookPostOutcome = { answered: true; statusCode: number; body: string } | { answered: false; reason: string };

/** Node and OpenSSL error codes, by the reason a partner reads. */
const REASON_BY_CODE: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  ECONNABORTED: 'connection reset',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'host unreachable',
  EHOSTDOWN: 'host unreachable',
  ENETDOWN: 'host unreachable',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  EAI_NODATA: 'host not found',
  EAI_NONAME: 'host not found',
  EPROTO: 'TLS error',
};

/**
 * The partner-facing reason for a failed request. Only the error's code is looked at: its message
 * may carry text of the service that answered (a database's greeting, an internal host name).
 *
 * @example genericReason(Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:5432'), { code: 'ECONNREFUSED' })) === 'connection refused'
 */
export function genericReason(error: unknown): string {
  const code = typeof error === 'object' && error !== null ? Reflect.get(error, 'code') : undefined;
  if (typeof code !== 'string') return 'connection failed';
  const known = REASON_BY_CODE[code];
  if (known) return known;
  if (/^ERR_(TLS|SSL)_|CERT|^UNABLE_TO_|^HOSTNAME_MISMATCH$/.test(code)) return 'TLS error';
  if (code.startsWith('HPE_')) return 'invalid HTTP response';
  return 'connection failed';
}

/**
 * The bytes read, as text. Decoding as a stream keeps back a character that the limit cut in
 * two; NUL cannot be stored in every database's text, so it becomes U+FFFD like any invalid byte.
 */
function decodeBody(bytes: Buffer): string {
  return new TextDecoder('utf-8').decode(bytes, { stream: true }).replaceAll('\u0000', '\uFFFD');
}

/** Reads at most RESPONSE_BODY_LIMIT bytes, then destroys the response; settles with what came on end, close or error. */
function readLimited(response: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const done = () => {
      if (settled) return;
      settled = true;
      resolve(decodeBody(Buffer.concat(chunks, size)));
    };
    response.on('data', (chunk: Buffer) => {
      if (settled) return;
      const room = RESPONSE_BODY_LIMIT - size;
      chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
      size += Math.min(chunk.length, room);
      if (size >= RESPONSE_BODY_LIMIT) {
        done();
        response.destroy();
      }
    });
    response.once('end', done);
    response.once('close', done);
    response.once('error', done);
  });
}

/** A `lookup` that answers with the checked addresses only, whatever name it is asked for. */
function checkedLookup(addresses: readonly string[]): LookupFunction {
  const entries = addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  return (_hostname, options, callback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
    const usable = family === 4 || family === 6 ? entries.filter((e) => e.family === family) : entries;
    const first = usable[0];
    if (!first) {
      callback(Object.assign(new Error('no checked address of the requested family'), { code: 'ENOTFOUND' }), '', 0);
    } else if (options.all) {
      callback(null, usable);
    } else {
      callback(null, first.address, first.family);
    }
  };
}

function send(target: WebhookTarget, addresses: readonly string[], post: WebhookPost, signal: AbortSignal, timedOut: () => WebhookPostOutcome): Promise<WebhookPostOutcome> {
  return new Promise((resolve) => {
    let answered = false;
    const options: RequestOptions = {
      method: 'POST',
      host: target.host,
      port: target.port,
      path: `${target.url.pathname}${target.url.search}`,
      headers: { ...post.headers, 'Content-Length': String(Buffer.byteLength(post.body, 'utf8')) },
      // A fresh connection per attempt: never a pooled socket opened for an earlier check.
      agent: false,
      lookup: checkedLookup(addresses),
      signal,
    };
    const request = (target.protocol === 'https:' ? httpsRequest : httpRequest)(options, (response) => {
      answered = true;
      void readLimited(response).then((body) => resolve({ answered: true, statusCode: response.statusCode ?? 0, body }));
    });
    request.on('error', (error) => {
      // Once the status is in, a late error (the body cut off, the deadline) changes nothing.
      if (!answered) resolve(signal.aborted ? timedOut() : { answered: false, reason: genericReason(error) });
    });
    request.end(post.body);
  });
}

/**
 * POSTs `body` to `url` if the policy allows the URL and every address its host resolves to;
 * otherwise fails with `address not allowed` without connecting. Redirects are not followed.
 *
 * @example
 * const outcome = await postWebhook({ url, headers, body, timeoutMs: 10_000, policy: { allowPrivate: false }, resolve });
 * // { answered: true, statusCode: 204, body: '' } or { answered: false, reason: 'connection refused' }
 */
export async function postWebhook(post: WebhookPost): Promise<WebhookPostOutcome> {
  const checked = checkWebhookUrl(post.url, post.policy);
  if (!checked.ok) return { answered: false, reason: 'address not allowed' };
  const timedOut = (): WebhookPostOutcome => ({ answered: false, reason: `timeout after ${post.timeoutMs} ms` });
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), post.timeoutMs);
  try {
    const expired = new Promise<'expired'>((resolve) => deadline.signal.addEventListener('abort', () => resolve('expired'), { once: true }));
    const resolved = await Promise.race([resolveWebhookTarget(checked.value, post.policy, post.resolve), expired]);
    if (resolved === 'expired') return timedOut();
    if (!resolved.ok) return { answered: false, reason: resolved.error === 'unresolvable' ? 'host not found' : 'address not allowed' };
    return await send(checked.value, resolved.value, post, deadline.signal, timedOut);
  } finally {
    clearTimeout(timer);
  }
}
