// The procedures a router serves, read from the router as tRPC types it: a built router is its
// procedures and sub-routers as its own properties (`TRPCBuiltRouter` is `Router & TRecord`), plus
// what every router has. A procedure is callable (its type has a call signature); a sub-router's
// record is an object of procedures and records.
import type { AnyTRPCRouter } from '@trpc/server';
import { router } from '../trpc.js';

/** What every router has besides its procedures: the own keys of an empty router, never read. */
const EVERY_ROUTERS_OWN = new Set(Object.keys(router({})));

/** The paths under `path` of a procedure (itself) or of a sub-router's record (its procedures, at any depth). */
function pathsOf(item: unknown, path: string[]): string[] {
  if (typeof item === 'function') return [path.join('.')];
  const record = item as Record<string, unknown>;
  return Object.keys(record).flatMap((key) => pathsOf(record[key], [...path, key]));
}

/**
 * Every procedure path of a router (`partners.create`), in the order the router declares them.
 *
 * @example procedurePaths(router({ partners: router({ list: protectedProcedure.query(() => []) }) })) // ['partners.list']
 */
export function procedurePaths(built: AnyTRPCRouter): string[] {
  const record = built as unknown as Record<string, unknown>;
  return Object.keys(record)
    .filter((key) => !EVERY_ROUTERS_OWN.has(key))
    .flatMap((key) => pathsOf(record[key], [key]));
}
