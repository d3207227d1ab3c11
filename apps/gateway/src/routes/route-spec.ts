// A partner route described as data: method, path, schemas, envelope and handler. The same list
// mounts the routes on the router (with the middleware each needs) and generates the OpenAPI
// document, so a served route can never be missing from /openapi.json. The compiler checks the
// edge: a handler must return what its response schema's envelope carries as `data`.
import type { ErrorKind } from '@pits/domain';
import type { Scope } from '@pits/persistence';
import type { z } from 'zod';
import type { SandboxRecord } from '../docs/sandbox-ids.js';
import type { AuthenticatedPartner } from '../http/index.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** What a handler receives: parsed and authorized input, never the Koa context. */
export interface RouteInput<Body, Query> {
  /**
   * Where the handler's database work runs: the request's transaction when it claimed an
   * Idempotency-Key (so the stored response commits with the work), else the database, bounded
   * by the request's deadline either way. Handlers use nothing else.
   */
  db: Scope;
  partner: AuthenticatedPartner;
  /** The authorized tenant (tenant-scoped routes only; '' otherwise). */
  tenantId: string;
  /** What the route's body schema produced; `undefined` on a route without one. */
  body: Body;
  /** What the route's query schema produced; `undefined` on a route without one. */
  query: Query;
  params: Record<string, string>;
  now: Date;
  requestId: string;
}

/**
 * A response schema: envelope A (`status: 'ok'`) or B (`status: 200`) around the route's data, as
 * `envelopeA` and `envelopeB` of @pits/domain build them.
 */
export type EnvelopeSchema = z.ZodType<unknown, { status: 'ok' | 200; data: unknown; errors: null; request_id: string }>;

/**
 * What a handler returns: the `data` of its response schema's envelope, in the form a client
 * parses with that schema (its input side).
 *
 * @example
 * type Data = ResponseData<typeof adjustmentDetailResponse>; // { adjustment: { id: string; … } }
 */
export type ResponseData<R extends EnvelopeSchema> = z.input<R>['data'];

/** The envelope a response schema describes: A for `status: 'ok'`, B for `status: 200`. */
export type EnvelopeOf<R extends EnvelopeSchema> = z.input<R>['status'] extends 'ok' ? 'A' : 'B';

/** The HTTP statuses a route may answer with: envelope B repeats its status in the body, and its schema says 200. */
export type SuccessStatusOf<R extends EnvelopeSchema> = EnvelopeOf<R> extends 'A' ? 200 | 201 : 200;

/** A path parameter as the reference shows it: what it names, an example, and the sandbox record Test Request pre-fills. */
export interface PathParameterDoc {
  /** In plain words, where a reader finds it: "The reservation's number, as `id` in its answer". */
  description: string;
  /** The reference's example value, one the examples of the sandbox use. */
  example: string;
  /** The sandbox record whose id fills it when the server knows one (DOCS_SANDBOX_IDS). */
  sandbox?: SandboxRecord;
}

/** What a route is, apart from its schemas and functions: the part the router and the reference read. */
interface RouteFacts {
  /** Operation name: rate-limit bucket, access log, OpenAPI operationId. */
  name: string;
  method: HttpMethod;
  /** Further methods served by the same handler (approve/reject also answer POST). */
  alsoMethods?: HttpMethod[];
  /** Koa path with `:param` segments. */
  path: string;
  /** Each `:param` of the path, described for the reference (the document refuses to build without it). */
  params?: Readonly<Record<string, PathParameterDoc>>;
  summary: string;
  description?: string;
  tag: string;
  /** Requires `X-Tenant-Id` and an active installation. */
  tenantScoped: boolean;
  /** Error codes this route can answer besides the ones every authenticated route can. */
  errors: ErrorKind[];
  /**
   * A write whose handler waits on something outside the database (a request to a partner's
   * server) between its own short transactions: it gets the database, not one transaction around
   * it, so no lock is held while it waits. With an Idempotency-Key its response is stored right
   * after; a crash in between can repeat the work on retry, so only work that may repeat belongs here.
   */
  outsideTransaction?: true;
}

/**
 * A route as written in a route file, typed by its own schemas: the handler gets what `body` and
 * `query` produce and must return what `response` carries as `data`; `envelope` and `status` must
 * be the ones `response` describes, and `example` must be a body that `body` accepts.
 */
export interface RouteSpec<B extends z.ZodType, Q extends z.ZodType, R extends EnvelopeSchema> extends RouteFacts {
  body?: B;
  query?: Q;
  response: R;
  envelope: NoInfer<EnvelopeOf<R>>;
  status: NoInfer<SuccessStatusOf<R>>;
  /** An example request body for the reference. */
  example?: NoInfer<z.input<B>>;
  /** An example query for the reference (every parameter the example request sends). */
  queryExample?: NoInfer<z.input<Q>>;
  /** The `data` of an example success response for the reference, as the handler would return it. */
  responseExample?: NoInfer<ResponseData<R>>;
  /**
   * Checks that wait on something outside the database (resolving a webhook's host name). They run
   * before the handler's transaction, so no lock is held while they wait; throw an AppError to refuse.
   */
  beforeTransaction?: (input: Omit<RouteInput<z.output<B>, z.output<Q>>, 'db'>) => Promise<void>;
  handler: (input: RouteInput<z.output<B>, z.output<Q>>) => Promise<NoInfer<ResponseData<R>>>;
}

/**
 * A checked route as the router and the OpenAPI generator hold it, in one list whatever its
 * schemas: the handler takes the parsed input as `unknown` and answers the data to send.
 */
export interface Route extends RouteFacts {
  body?: z.ZodType;
  query?: z.ZodType;
  response: EnvelopeSchema;
  envelope: 'A' | 'B';
  status: 200 | 201;
  example?: unknown;
  queryExample?: unknown;
  responseExample?: unknown;
  beforeTransaction?: (input: Omit<RouteInput<unknown, unknown>, 'db'>) => Promise<void>;
  handler: (input: RouteInput<unknown, unknown>) => Promise<unknown>;
}

/**
 * Checks a route against its schemas (this is where a handler that drops or renames a field, or
 * sends a wrong type, fails to compile) and returns it as a `Route` for the list.
 *
 * @example
 * defineRoute({
 *   name: 'webhooks.list', method: 'GET', path: '/api/partner/v1/webhooks', summary: 'List webhook endpoints',
 *   tag: 'Webhooks', tenantScoped: false, envelope: 'A', status: 200, response: listWebhooksResponse, errors: [],
 *   handler: async ({ db, partner }) => ({ webhooks: (await listWebhookEndpoints(db, partner.partnerId)).map(presentEndpoint) }),
 * });
 */
export function defineRoute<B extends z.ZodType = z.ZodUndefined, Q extends z.ZodType = z.ZodUndefined, R extends EnvelopeSchema = EnvelopeSchema>(
  spec: RouteSpec<B, Q, R>,
): Route {
  const { handler, beforeTransaction, ...facts } = spec;
  // mountRoutes runs `body` and `query` before the handler and passes on exactly what they
  // produced (undefined without a schema), so the input has the types the spec was checked with.
  type Input = RouteInput<z.output<B>, z.output<Q>>;
  return {
    ...facts,
    handler: (input) => handler(input as Input),
    ...(beforeTransaction === undefined ? {} : { beforeTransaction: (input: Omit<RouteInput<unknown, unknown>, 'db'>) => beforeTransaction(input as Omit<Input, 'db'>) }),
  };
}
