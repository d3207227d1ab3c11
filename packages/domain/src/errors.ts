// The closed list of refusal kinds the whole product speaks. Each transport (REST gateway, tRPC)
// maps a kind to its own status in one table; nothing else decides a status.

/** Every kind of refusal a client can see. */
export const ERROR_KINDS = [
  'INVALID_REQUEST',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'REQUEST_TIMEOUT',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'VALIDATION_ERROR',
  'INVALID_STATE',
  'INSUFFICIENT_STOCK',
  'SHELF_LIFE_TOO_SHORT',
  'IDEMPOTENCY_KEY_REUSED',
  'STALE_QUANTITY',
  'RATE_LIMITED',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
] as const;

export type ErrorKind = (typeof ERROR_KINDS)[number];

/** One offending input: `field` is a path such as `items[2].quantity`, or `""` when no single input is at fault. */
export interface FieldIssue {
  field: string;
  issue: string;
}

/**
 * A refusal as plain data.
 *
 * @example
 * const e = domainError('INVALID_STATE', 'adjustment is approved, not pending', { field: 'status' });
 */
export interface DomainError {
  kind: ErrorKind;
  message: string;
  /** The first offending input. */
  details: FieldIssue;
  /** Every offending input, when more than one. */
  issues?: FieldIssue[];
}

export function domainError(
  kind: ErrorKind,
  message: string,
  options: { field?: string; issue?: string; issues?: FieldIssue[] } = {},
): DomainError {
  const details = { field: options.field ?? '', issue: options.issue ?? message };
  return options.issues && options.issues.length > 1
    ? { kind, message, details, issues: options.issues }
    : { kind, message, details };
}

/** The result of a pure decision: the value, or a typed refusal. Never thrown. */
export type Result<T, E = DomainError> = { ok: true; value: T } | { ok: false; error: E };

export const ok = <T>(value: T): { ok: true; value: T } => ({ ok: true, value });
export const fail = (error: DomainError): { ok: false; error: DomainError } => ({ ok: false, error });

/**
 * An expected refusal carried across I/O layers (persistence, apps) as an exception, so a
 * transaction rolls back; the transport turns it into its status and envelope. Anything
 * thrown that is not an `AppError` is unexpected and is reported as INTERNAL_ERROR.
 */
export class AppError extends Error {
  readonly error: DomainError;
  constructor(error: DomainError) {
    super(error.message);
    this.name = 'AppError';
    this.error = error;
  }
  get kind(): ErrorKind {
    return this.error.kind;
  }
}

/** Throws the refusal of a failed result, or returns its value. */
export function unwrap<T>(result: Result<T>): T {
  if (!result.ok) throw new AppError(result.error);
  return result.value;
}
