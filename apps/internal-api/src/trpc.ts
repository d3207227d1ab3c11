// The one tRPC instance of the internal API: its context, the procedure every route builds on
// (token required), and the one table that turns a domain refusal into a tRPC error code.
import { performance } from 'node:perf_hooks';
import { TRPCError, type TRPC_ERROR_CODE_KEY, initTRPC } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { ZodError } from 'zod';
import { zodIssuesToFieldIssues } from '@pits/contract';
import { AppError, type ErrorKind, type FieldIssue, type HostResolver, MAX_NESTING_DEPTH, type WebhookUrlPolicy, domainError, exceedsNestingDepth } from '@pits/domain';
import { CommittedRefusal, type CredentialCipher, type Scope, isDatabaseUnavailable, withTransaction } from '@pits/persistence';
import type { Logger } from 'pino';
import { underDeadline } from '@pits/service-runtime';

/** What every procedure sees. Built per request by the HTTP server, or by hand in tests. */
export interface InternalApiContext {
  /** Where procedures run their queries; each call gets it bounded by its deadline. */
  database: Scope;
  /** A call not finished within this is refused SERVICE_UNAVAILABLE and its work does not commit (0: no deadline, tests). */
  deadlineMs?: number;
  cipher: CredentialCipher;
  now: () => Date;
  logger: Logger;
  /** Whether the request presented the internal service token. */
  authorized: boolean;
  /** Where webhook endpoints may point (WEBHOOK_ALLOW_PRIVATE_URLS), and how their host names are resolved. */
  webhookUrls: { policy: WebhookUrlPolicy; resolve: HostResolver };
  /** Told of every procedure call when it finishes (the HTTP server logs and meters it); absent in tests that build a context by hand. */
  calls?: CallRecorder;
}

/** Where a finished procedure call is reported. */
export interface CallRecorder {
  /**
   * `status` is the HTTP status its answer maps to; `errorCode` the tRPC code of a refusal (null on
   * success); `input` the raw input (its tenantId/partnerId are logged).
   */
  finished(path: string, status: number, errorCode: TRPC_ERROR_CODE_KEY | null, elapsedMs: number, input: unknown): void;
}

/** Kind to tRPC code, the only place that decides it. Kinds the internal API never raises still get their nearest code. */
export const TRPC_CODE_BY_KIND: Record<ErrorKind, TRPC_ERROR_CODE_KEY> = {
  NOT_FOUND: 'NOT_FOUND',
  VALIDATION_ERROR: 'BAD_REQUEST',
  INVALID_REQUEST: 'BAD_REQUEST',
  INVALID_STATE: 'CONFLICT',
  INSUFFICIENT_STOCK: 'CONFLICT',
  SHELF_LIFE_TOO_SHORT: 'BAD_REQUEST',
  FORBIDDEN: 'FORBIDDEN',
  UNAUTHORIZED: 'UNAUTHORIZED',
  METHOD_NOT_ALLOWED: 'METHOD_NOT_SUPPORTED',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  REQUEST_TIMEOUT: 'TIMEOUT',
  UNSUPPORTED_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  IDEMPOTENCY_KEY_REUSED: 'CONFLICT',
  STALE_QUANTITY: 'CONFLICT',
  RATE_LIMITED: 'TOO_MANY_REQUESTS',
  INTERNAL_ERROR: 'INTERNAL_SERVER_ERROR',
  SERVICE_UNAVAILABLE: 'SERVICE_UNAVAILABLE',
};

/** The kind reported for errors tRPC raises itself (unknown procedure, unparseable body...). */
const KIND_BY_TRPC_CODE: Partial<Record<TRPC_ERROR_CODE_KEY, ErrorKind>> = {
  PARSE_ERROR: 'INVALID_REQUEST',
  BAD_REQUEST: 'INVALID_REQUEST',
  UNAUTHORIZED: 'UNAUTHORIZED',
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  METHOD_NOT_SUPPORTED: 'METHOD_NOT_ALLOWED',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  TIMEOUT: 'REQUEST_TIMEOUT',
  UNSUPPORTED_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  TOO_MANY_REQUESTS: 'RATE_LIMITED',
  CONFLICT: 'INVALID_STATE',
  SERVICE_UNAVAILABLE: 'SERVICE_UNAVAILABLE',
};

export const INTERNAL_ERROR_MESSAGE = 'internal error';

/** What clients read in `error.data` besides tRPC's own `code`, `httpStatus` and `path`. */
export interface RefusalData {
  kind: ErrorKind;
  /** The first offending input as a path (`changes.code`, `items[2].quantity`), or `""`. */
  field: string;
  /** Every offending input; empty when none is at fault. */
  issues: FieldIssue[];
}

/**
 * The domain view of a tRPC error: its kind and offending inputs. Unknown errors say nothing more
 * than INTERNAL_ERROR.
 *
 * @example refusalOf(error) // { kind: 'NOT_FOUND', field: 'tenantId', issues: [{ field: 'tenantId', issue: '...' }] }
 */
export function refusalOf(error: TRPCError): RefusalData {
  if (error.code === 'INTERNAL_SERVER_ERROR') return { kind: 'INTERNAL_ERROR', field: '', issues: [] };
  const cause = error.cause;
  if (cause instanceof AppError) {
    const d = cause.error;
    return { kind: d.kind, field: d.details.field, issues: d.issues ?? [d.details] };
  }
  if (cause instanceof ZodError) {
    const issues = zodIssuesToFieldIssues(cause);
    return { kind: 'VALIDATION_ERROR', field: issues[0]?.field ?? '', issues };
  }
  return { kind: KIND_BY_TRPC_CODE[error.code] ?? 'INVALID_REQUEST', field: '', issues: [] };
}

function validationMessage(error: ZodError): string {
  const issues = zodIssuesToFieldIssues(error);
  const first = issues[0] ?? { field: '', issue: 'is invalid' };
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  return `${first.field === '' ? 'input' : first.field}: ${first.issue}${more}`;
}

/** What a procedure may declare about itself with `.meta(...)`. */
export interface ProcedureMeta {
  /**
   * The mutation opens its own transaction, after a check that waits on something outside the
   * database (resolving a webhook's host name), so no lock is held while it waits. Its database
   * writes must still be one `withTransaction(ctx.database, …)`: ctx.database carries the deadline.
   */
  ownTransaction?: boolean;
}

const t = initTRPC.context<InternalApiContext>().meta<ProcedureMeta>().create({
  // Never send stack traces, whatever NODE_ENV says.
  isDev: false,
  errorFormatter({ shape, error }) {
    return {
      code: shape.code,
      message: error.code === 'INTERNAL_SERVER_ERROR' ? INTERNAL_ERROR_MESSAGE : shape.message,
      data: {
        code: shape.data.code,
        httpStatus: shape.data.httpStatus,
        ...(shape.data.path !== undefined ? { path: shape.data.path } : {}),
        ...refusalOf(error),
      },
    };
  },
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/**
 * First in every chain: an `AppError` becomes its tRPC code with its message; a zod input error
 * becomes BAD_REQUEST with a readable message; anything else unexpected is logged here and
 * reaches the client as INTERNAL_SERVER_ERROR "internal error" (never its message or stack).
 */
const mapErrors = t.middleware(async ({ ctx, next, path, type }) => {
  const result = await next();
  if (result.ok) return result;
  const { error } = result;
  const cause = error.cause;
  if (cause instanceof AppError) {
    const code = TRPC_CODE_BY_KIND[cause.kind];
    if (code === 'INTERNAL_SERVER_ERROR') ctx.logger.error({ err: cause, path, type }, 'internal error refusal');
    throw new TRPCError({ code, message: code === 'INTERNAL_SERVER_ERROR' ? INTERNAL_ERROR_MESSAGE : cause.message, cause });
  }
  if (cause instanceof ZodError) {
    throw new TRPCError({ code: 'BAD_REQUEST', message: validationMessage(cause), cause });
  }
  if (isDatabaseUnavailable(cause)) {
    ctx.logger.warn({ reason: cause instanceof Error ? cause.message : String(cause), path, type }, 'answered SERVICE_UNAVAILABLE: the database is unavailable or too slow');
    const unavailable = new AppError(
      domainError('SERVICE_UNAVAILABLE', 'the service is temporarily unavailable', { issue: 'the database did not answer in time; nothing was changed, retry later' }),
    );
    throw new TRPCError({ code: 'SERVICE_UNAVAILABLE', message: unavailable.message, cause: unavailable });
  }
  if (error.code === 'INTERNAL_SERVER_ERROR') {
    ctx.logger.error({ err: cause ?? error, path, type }, 'unexpected error');
    throw new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: INTERNAL_ERROR_MESSAGE, cause: error });
  }
  return result;
});

/**
 * Outermost: times each call and reports it with the status and tRPC code its final answer maps to
 * (after mapErrors), so every call, refused or not, is logged and counted once.
 */
const recordCall = t.middleware(async ({ ctx, path, next, getRawInput }) => {
  if (ctx.calls === undefined) return next();
  const started = performance.now();
  const result = await next();
  const status = result.ok ? 200 : getHTTPStatusCodeFromError(result.error);
  const errorCode = result.ok ? null : result.error.code;
  ctx.calls.finished(path, status, errorCode, performance.now() - started, await getRawInput().catch(() => undefined));
  return result;
});

const requireServiceToken = t.middleware(({ ctx, next }) => {
  if (!ctx.authorized) {
    throw new AppError(domainError('UNAUTHORIZED', 'a valid internal service token is required', { field: 'Authorization' }));
  }
  return next();
});

/**
 * An input nested deeper than 32 levels is refused as INVALID_REQUEST (docs/input-rules.md#nesting), like the
 * gateway's bodies, before zod or anything else walks it; the check itself never recurses.
 */
const boundedNesting = t.middleware(async ({ getRawInput, next }) => {
  if (exceedsNestingDepth(await getRawInput())) {
    throw new AppError(domainError('INVALID_REQUEST', `the input must not be nested more than ${MAX_NESTING_DEPTH} levels deep`, { field: '' }));
  }
  return next();
});

/**
 * The call's deadline: past it the call is refused SERVICE_UNAVAILABLE, whatever it waits on, and
 * its scope's signal is aborted, so a transaction still running rolls back instead of committing.
 */
const withDeadline = t.middleware(async ({ ctx, next }) => {
  const timeoutMs = ctx.deadlineMs ?? 0;
  if (timeoutMs <= 0) return next();
  const refusal = () =>
    new AppError(
      domainError('SERVICE_UNAVAILABLE', 'the call could not be completed in time', {
        issue: `no answer within ${timeoutMs} ms; nothing was committed after this answer, retry later`,
      }),
    );
  return underDeadline(timeoutMs, refusal, (deadline) =>
    next({
      ctx: {
        database: { ...ctx.database, signal: deadline },
      },
    }),
  );
});

/** Carries a refused result out of the transaction it must roll back. */
class RolledBack extends Error {
  constructor(readonly result: unknown) {
    super('rolled back');
  }
}

/**
 * A mutation's work is one transaction (its use cases join it), committed only when the call
 * succeeds and its deadline has not passed: a call answered SERVICE_UNAVAILABLE never commits
 * afterwards, and a refusal leaves nothing behind, unless it is a `CommittedRefusal` (a hold found
 * expired is expired, then the call refused): that failed result is returned from the
 * transaction's work, which commits it, as a use case run on its own would.
 */
const mutationInOneTransaction = t.middleware(async ({ ctx, type, meta, next }) => {
  if (type !== 'mutation' || meta?.ownTransaction === true) return next();
  try {
    return await withTransaction(ctx.database, async (tx) => {
      const result = await next({ ctx: { database: tx } });
      if (!result.ok && !(result.error.cause instanceof CommittedRefusal)) throw new RolledBack(result);
      return result;
    });
  } catch (error) {
    if (error instanceof RolledBack) return error.result as Awaited<ReturnType<typeof next>>;
    throw error;
  }
});

/**
 * Every procedure of the internal API: recorded (logged and metered), errors mapped, then the service token required (before
 * input is even parsed), then the input's nesting bounded, then its deadline, then (mutations) its transaction.
 */
export const protectedProcedure = t.procedure.use(recordCall).use(mapErrors).use(requireServiceToken).use(boundedNesting).use(withDeadline).use(mutationInOneTransaction);
