// The one tRPC instance of the internal API: its context, the procedure every route builds on
// (token required), and the one table that turns a domain refusal into a tRPC error code.
import { TRPCError, type TRPC_ERROR_CODE_KEY, initTRPC } from '@trpc/server';
import { ZodError } from 'zod';
import { AppError, type ErrorKind, type FieldIssue, domainError, zodIssuesToFieldIssues } from '@pits/domain';
import type { CredentialCipher, Database } from '@pits/persistence';
import type { Logger } from 'pino';

/** What every procedure sees. Built per request by the HTTP server, or by hand in tests. */
export interface InternalApiContext {
  database: Database;
  cipher: CredentialCipher;
  now: () => Date;
  logger: Logger;
  /** Whether the request presented the internal service token. */
  authorized: boolean;
}

/** Kind to tRPC code, the only place that decides it. Kinds the internal API never raises still get their nearest code. */
export const TRPC_CODE_BY_KIND: Record<ErrorKind, TRPC_ERROR_CODE_KEY> = {
  NOT_FOUND: 'NOT_FOUND',
  VALIDATION_ERROR: 'BAD_REQUEST',
  INVALID_REQUEST: 'BAD_REQUEST',
  INVALID_STATE: 'CONFLICT',
  INSUFFICIENT_STOCK: 'CONFLICT',
  FORBIDDEN: 'FORBIDDEN',
  UNAUTHORIZED: 'UNAUTHORIZED',
  METHOD_NOT_ALLOWED: 'METHOD_NOT_SUPPORTED',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  IDEMPOTENCY_KEY_REUSED: 'CONFLICT',
  RATE_LIMITED: 'TOO_MANY_REQUESTS',
  INTERNAL_ERROR: 'INTERNAL_SERVER_ERROR',
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
  TOO_MANY_REQUESTS: 'RATE_LIMITED',
  CONFLICT: 'INVALID_STATE',
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

const t = initTRPC.context<InternalApiContext>().create({
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
  if (error.code === 'INTERNAL_SERVER_ERROR') {
    ctx.logger.error({ err: cause ?? error, path, type }, 'unexpected error');
    throw new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: INTERNAL_ERROR_MESSAGE, cause: error });
  }
  return result;
});

const requireServiceToken = t.middleware(({ ctx, next }) => {
  if (!ctx.authorized) {
    throw new AppError(domainError('UNAUTHORIZED', 'a valid internal service token is required', { field: 'Authorization' }));
  }
  return next();
});

/** Every procedure of the internal API: errors mapped, then the service token required (before input is even parsed). */
export const protectedProcedure = t.procedure.use(mapErrors).use(requireServiceToken);
