// W3C Trace Context: the `traceparent` header a caller may send, read so its trace id can be
// logged with the request. A header that is not a valid version-00 traceparent is ignored (the
// request goes on as if it had none), never refused.

/** What a valid `traceparent` carries that the logs keep. */
export interface TraceContext {
  /** 32 lower-case hex digits, not all zero. */
  traceId: string;
  /** The caller's span: 16 lower-case hex digits, not all zero. */
  parentSpanId: string;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

/**
 * The trace context of a `traceparent` header value, or null when it is absent, repeated or invalid.
 *
 * @example parseTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01') // { traceId: '4bf9…4736', parentSpanId: '00f0…02b7' }
 */
export function parseTraceparent(header: string | readonly string[] | undefined): TraceContext | null {
  if (typeof header !== 'string' || header.length !== 55) return null;
  const match = TRACEPARENT.exec(header);
  if (match === null) return null;
  const [, traceId, parentSpanId] = match as unknown as [string, string, string];
  if (traceId === ZERO_TRACE || parentSpanId === ZERO_SPAN) return null;
  return { traceId, parentSpanId };
}
