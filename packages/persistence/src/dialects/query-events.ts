// How each dialect hands its Kysely instance the caller's DatabaseEvents: one function, so every
// dialect reports statements and failed statements the same way.
import type { KyselyConfig, LogEvent } from 'kysely';
import type { DatabaseEvents } from './sql-dialect.js';

/**
 * Kysely's `log` option for `events`, or nothing when no one listens (Kysely then times no query).
 *
 * @example new Kysely<DB>({ dialect, ...queryLog(events) })
 */
export function queryLog(events: DatabaseEvents): Pick<KyselyConfig, 'log'> {
  const { onQuery, onQueryError } = events;
  if (!onQuery && !onQueryError) return {};
  return {
    log: (event: LogEvent) => {
      if (event.level === 'query') onQuery?.(event.query.sql, event.query.parameters);
      else onQueryError?.(event.error);
    },
  };
}
