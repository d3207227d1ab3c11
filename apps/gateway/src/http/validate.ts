// Request validation at the edge: zod schemas (from @pits/domain's contract) parse the body or
// the query with the contract's messages; a failure is 422 VALIDATION_ERROR with field paths
// (or 413 when `items` is too long, as `validationError` decides), a success is stored typed.
// Path parameters get the contract's text rule (docs/input-rules.md#text), the same for every route.
import { isUtf8 } from 'node:buffer';
import type { z } from 'zod';
import { contractErrorMap, validationError } from '@pits/contract';
import { AppError, type FieldIssue, domainError, textIssue } from '@pits/domain';
import { type GatewayMiddleware, type RouteStep, stepMiddleware } from './gateway-state.js';

/**
 * Why a percent-encoded name or value whose bytes are not UTF-8 is refused: an unpaired surrogate
 * can only travel in a URL that way (`%ED%A0%80` is U+D800 in generalised UTF-8), and a parser
 * would silently turn it into U+FFFD.
 */
export const NOT_UTF8_ISSUE = 'must be valid UTF-8 once percent-decoded (no unpaired surrogates)';

const PERCENT_BYTE = /%([0-9A-Fa-f]{2})/g;

/**
 * The bytes a URL component stands for, decoded as a form decoder does: `%XX` is that byte, `+`
 * a space when `plus`, every other character its own UTF-8; and whether those bytes are UTF-8.
 */
function percentDecode(component: string, plus: boolean): { text: string; utf8: boolean } {
  const source = plus ? component.replace(/\+/g, ' ') : component;
  if (!source.includes('%')) return { text: source, utf8: true };
  const parts: Buffer[] = [];
  let last = 0;
  for (const match of source.matchAll(PERCENT_BYTE)) {
    parts.push(Buffer.from(source.slice(last, match.index), 'utf8'), Buffer.from([Number.parseInt(match[1]!, 16)]));
    last = match.index + match[0].length;
  }
  parts.push(Buffer.from(source.slice(last), 'utf8'));
  const bytes = Buffer.concat(parts);
  return { text: bytes.toString('utf8'), utf8: isUtf8(bytes) };
}

/** The first query parameter whose name or value is not UTF-8 once decoded, by its (lossily decoded) name. */
function malformedQueryParameter(querystring: string): string | undefined {
  if (!querystring.includes('%')) return undefined;
  for (const pair of querystring.split('&')) {
    const at = pair.indexOf('=');
    const name = percentDecode(at < 0 ? pair : pair.slice(0, at), true);
    const value = percentDecode(at < 0 ? '' : pair.slice(at + 1), true);
    if (!name.utf8 || !value.utf8) return name.text;
  }
  return undefined;
}

const NONE: ReadonlySet<string> = new Set();

function refused(issues: FieldIssue[]): AppError {
  const first = issues[0]!;
  return new AppError(domainError('VALIDATION_ERROR', `${first.field} ${first.issue}`, { field: first.field, issue: first.issue, issues }));
}

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
  return stepMiddleware(validateBodyStep(schema));
}

/** The check of `validateBody` as a route step (what `mountRoutes` runs). */
export function validateBodyStep<S extends z.ZodType>(schema: S): RouteStep<ValidatedBody<z.output<S>>> {
  return (ctx) => {
    const result = schema.safeParse(ctx.request.body ?? {}, { error: contractErrorMap });
    if (!result.success) throw new AppError(validationError(result.error));
    ctx.state.body = result.data;
  };
}

/**
 * Parses the query string (`ctx.query`: strings, or arrays of strings for repeated names) with
 * `schema` and stores the parsed value on `ctx.state.query`. A parameter whose percent-encoded
 * name or value is not UTF-8 (how a lone surrogate is sent) is 422 on that parameter first:
 * Koa's parser would have replaced those bytes with U+FFFD, so the schema would never see them.
 *
 * @example
 * router.get('/api/partner/v1/areas', …, validateQuery(areaSearchQuery),
 *   async (ctx: GatewayContext<ValidatedQuery<z.output<typeof areaSearchQuery>>>) => { ctx.state.query.page; });
 */
export function validateQuery<S extends z.ZodType>(schema: S): GatewayMiddleware<ValidatedQuery<z.output<S>>> {
  return stepMiddleware(validateQueryStep(schema));
}

/** The check of `validateQuery` as a route step (what `mountRoutes` runs). */
export function validateQueryStep<S extends z.ZodType>(schema: S): RouteStep<ValidatedQuery<z.output<S>>> {
  return (ctx) => {
    const malformed = malformedQueryParameter(ctx.querystring);
    if (malformed !== undefined) throw refused([{ field: malformed, issue: NOT_UTF8_ISSUE }]);
    const result = schema.safeParse(ctx.query, { error: contractErrorMap });
    if (!result.success) throw new AppError(validationError(result.error));
    ctx.state.query = result.data;
  };
}

/**
 * Checks every path parameter of the matched route (`:id`, whatever the route) with the text rule
 * of docs/input-rules.md#text: a NUL (`%00`), or bytes that are not UTF-8 (`%ED%A0%80`, a lone surrogate),
 * is 422 VALIDATION_ERROR on the parameter's name, before any handler looks the value up.
 * @koa/router keeps the raw text of a parameter it cannot decode, so such a parameter is the raw
 * path segment itself.
 *
 * @example
 * router.get('/api/engine/v1/adjustments/:id', authenticate(lookup), validateParams(), handler);
 */
export function validateParams(): GatewayMiddleware {
  return stepMiddleware(paramsStep);
}

/** The check of `validateParams` as a route step (what `mountRoutes` runs). */
export const paramsStep: RouteStep = (ctx) => {
  // Only a percent-encoded segment can stand for bytes that are not UTF-8.
  const undecodable = ctx.path.includes('%') ? new Set(ctx.path.split('/').filter((segment) => !percentDecode(segment, false).utf8)) : NONE;
  const issues: FieldIssue[] = [];
  for (const [name, value] of Object.entries(ctx.params ?? {})) {
    const issue = undecodable.has(value) ? NOT_UTF8_ISSUE : textIssue(value);
    if (issue !== undefined) issues.push({ field: name, issue });
  }
  if (issues.length > 0) throw refused(issues);
};
