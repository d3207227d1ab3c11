// Holding PostgreSQL row locks from the test, so a gateway's transaction can be stopped at a
// chosen statement, and watching what that gateway's own backends are doing (pg_stat_activity,
// by the application_name each process sets). Only this test's connections and the processes
// it started are ever looked at; nothing here terminates a backend.
import pg from 'pg';

export interface HeldRowLock {
  /** The rows `select ... for update` returned. */
  rows: Record<string, unknown>[];
  /** Rolls the holding transaction back (the lock is released) and closes the connection. Safe to call twice. */
  release(): Promise<void>;
}

export interface GatewayBackend {
  pid: number;
  state: string | null;
  waitEventType: string | null;
  query: string;
}

async function connect(databaseUrl: string, role: string): Promise<pg.Client> {
  const client = new pg.Client({
    connectionString: databaseUrl,
    application_name: `pits-crash-${role}-${process.pid}`,
    // Bounded even if the test itself dies: a statement waits at most 10 s, and the server ends
    // this session if it sits in its transaction for more than a minute.
    statement_timeout: 10_000,
    idle_in_transaction_session_timeout: 60_000,
    connectionTimeoutMillis: 5000,
  });
  await client.connect();
  return client;
}

/**
 * Opens a transaction on its own connection and runs `lockingQuery` (a `select ... for update`)
 * in it; the locks stay until `release()`.
 *
 * @example
 * const held = await holdRowLock(url, 'sequence', `select last_value from document_sequences where tenant_id = $1 and prefix = 'ADJ' for update`, [tenantId]);
 * await held.release();
 */
export async function holdRowLock(databaseUrl: string, role: string, lockingQuery: string, params: unknown[]): Promise<HeldRowLock> {
  const client = await connect(databaseUrl, role);
  try {
    await client.query('begin');
    const { rows } = await client.query<Record<string, unknown>>(lockingQuery, params);
    let released: Promise<void> | undefined;
    return {
      rows,
      release() {
        released ??= (async () => {
          try {
            await client.query('rollback');
          } finally {
            await client.end();
          }
        })();
        return released;
      },
    };
  } catch (error) {
    await client.end();
    throw error;
  }
}

/** A connection for looking at pg_stat_activity. */
export interface ActivityWatch {
  /** The backends of the process with this pid (its `application_name` is `pits-gateway-<pid>`). */
  gatewayBackends(gatewayPid: number): Promise<GatewayBackend[]>;
  /** The tables a backend holds locks on in its open transaction (a table it wrote to holds RowExclusiveLock until commit or rollback). */
  tablesLockedBy(backendPid: number): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * @example
 * const watch = await watchActivity(url);
 * const waiting = (await watch.gatewayBackends(gateway.pid)).filter((b) => b.waitEventType === 'Lock');
 */
export async function watchActivity(databaseUrl: string): Promise<ActivityWatch> {
  const client = await connect(databaseUrl, 'watch');
  return {
    async gatewayBackends(gatewayPid) {
      const { rows } = await client.query<{ pid: number; state: string | null; wait_event_type: string | null; query: string }>(
        'select pid, state, wait_event_type, query from pg_stat_activity where application_name = $1',
        [`pits-gateway-${gatewayPid}`],
      );
      return rows.map((r) => ({ pid: r.pid, state: r.state, waitEventType: r.wait_event_type, query: r.query }));
    },
    async tablesLockedBy(backendPid) {
      const { rows } = await client.query<{ name: string }>(
        `select distinct c.relname as name from pg_locks l join pg_class c on c.oid = l.relation where l.pid = $1 and l.locktype = 'relation' and l.granted and c.relkind = 'r' order by 1`,
        [backendPid],
      );
      return rows.map((r) => r.name);
    },
    close: () => client.end(),
  };
}
