// Request validation at the edge: zod schemas (from @pits/domain's contract) parse the body or
// the query with the contract's messages; a failure is 422 VALIDATION_ERROR with field paths
// (or 413 when `items` is too long, as `validationError` decides), a success is stored typed.
import type { z } from 'zod';
import { AppError, contractErrorMap, validationError } from '@pits/domain';
import type { GatewayMiddleware } from './gateway-state.js';

/** State added by `validateBody(schema)`. */
export interface ValidatedBody<T> {
  body: T;
}

/** State added by `validateQuery(schema)`. */
export interface ValidatedQuery<T> {
  query: T;
}

/**
 * Parses `ctx.request.body` (set by `jsonBody()`; `{}` when there is none) with `schema` and
 * stores the parsed value on `ctx.state.body`.
 *
 * @example
 * router.post('/api/partner/v1/adjustments', …, jsonBody(), validateBody(createAdjustmentSchema),
 *   async (ctx: GatewayContext<ValidatedBody<z.output<typeof createAdjustmentSchema>>>) => { ctx.state.body.items; });
 */
export function validateBody<S extends z.ZodType>(schema: S): GatewayMiddleware<ValidatedBody<z.output<S>>> {
  return async (ctx, next) => {
    const result = schema.safeParse(ctx.request.body ?? {}, { error: contractErrorMap });
    if (!result.success) throw new AppError(validationError(result.error));
    ctx.state.body = result.data;
    await next();
  };
}

/**
 * Parses the query string (`ctx.query`: strings, or arrays of strings for repeated names) with
 * `schema` and stores the parsed value on `ctx.state.query`.
 *
 * @example
 * router.get('/api/partner/v1/areas', …, validateQuery(areaSearchQuery),
 *   async (ctx: GatewayContext<ValidatedQuery<z.output<typeof areaSearchQuery>>>) => { ctx.state.query.page; });
 */
export function validateQuery<S extends z.ZodType>(schema: S): GatewayMiddleware<ValidatedQuery<z.output<S>>> {
  return async (ctx, next) => {
    const result = schema.safeParse(ctx.query, { error: contractErrorMap });
    if (!result.success) throw new AppError(validationError(result.error));
    ctx.state.query = result.data;
    await next();
  };
}
