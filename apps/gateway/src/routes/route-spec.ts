// A partner route described as data: method, path, schemas, envelope and handler. The same list
// mounts the routes on the router (with the middleware each needs) and generates the OpenAPI
// document, so a served route can never be missing from /openapi.json.
import type { ErrorKind } from '@pits/domain';
import type { z } from 'zod';
import type { AuthenticatedPartner } from '../http/index.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** What a handler receives: parsed and authorized input, never the Koa context. */
export interface RouteInput<Body, Query> {
  partner: AuthenticatedPartner;
  /** The authorized tenant (tenant-scoped routes only; '' otherwise). */
  tenantId: string;
  body: Body;
  query: Query;
  params: Record<string, string>;
  now: Date;
  requestId: string;
}

export interface RouteSpec<B extends z.ZodType = z.ZodType, Q extends z.ZodType = z.ZodType> {
  /** Operation name: rate-limit bucket, access log, OpenAPI operationId. */
  name: string;
  method: HttpMethod;
  /** Further methods served by the same handler (approve/reject also answer POST). */
  alsoMethods?: HttpMethod[];
  /** Koa path with `:param` segments. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  /** Requires `X-Tenant-Id` and an active installation. */
  tenantScoped: boolean;
  body?: B;
  query?: Q;
  envelope: 'A' | 'B';
  status: 200 | 201;
  response: z.ZodType;
  /** Error codes this route can answer besides the ones every authenticated route can. */
  errors: ErrorKind[];
  /** An example request body for the reference. */
  example?: unknown;
  handler: (input: RouteInput<z.output<B>, z.output<Q>>) => Promise<unknown>;
}

/** Keeps a route's handler typed by its own schemas. */
export function defineRoute<B extends z.ZodType = z.ZodType, Q extends z.ZodType = z.ZodType>(spec: RouteSpec<B, Q>): RouteSpec {
  return spec as unknown as RouteSpec;
}
