// Shared pieces of the benchmarks: child processes on free ports, autocannon runs from this
// process (the servers run in their own processes), and a printed table.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';

export const ROOT = join(import.meta.dirname, '..', '..', '..');

/** Creates (afresh) the database `name` on the server of `adminUrl`; returns its URL. */
export async function createPostgresDatabase(adminUrl: string, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`drop database if exists ${name}`);
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Drops the database `name` a benchmark created, even with connections still open. */
export async function dropPostgresDatabase(adminUrl: string, name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`drop database if exists ${name} with (force)`);
  } finally {
    await admin.end();
  }
}

/**
 * The databases a run of `mode` left behind when it was stopped before its cleanup (Ctrl-C, a
 * kill): of `names`, those named `pits_<mode>_<side>_<pid>` whose process `isRunning` says is gone.
 * A run still going keeps its own.
 */
export function abandonedBenchDatabases(names: readonly string[], mode: string, isRunning: (pid: number) => boolean): string[] {
  const pattern = new RegExp(`^pits_${mode}_(?:old|main)_(\\d+)$`);
  return names.filter((name) => {
    const pid = pattern.exec(name)?.[1];
    return pid !== undefined && !isRunning(Number(pid));
  });
}

/** Whether a process with this pid exists on this machine (one of another user's counts). */
export function processRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Drops the databases earlier runs of `mode` left behind (`abandonedBenchDatabases`); returns the names it dropped. */
export async function dropAbandonedBenchDatabases(adminUrl: string, mode: string): Promise<string[]> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  let names: string[];
  try {
    const { rows } = await admin.query<{ datname: string }>('select datname from pg_database where datname like $1', [`pits_${mode}_%`]);
    names = rows.map((row) => row.datname);
  } finally {
    await admin.end();
  }
  const abandoned = abandonedBenchDatabases(names, mode, processRunning);
  for (const name of abandoned) await dropPostgresDatabase(adminUrl, name);
  return abandoned;
}

/** Null when the PostgreSQL server of `url` accepts a connection within 2 s, else why not. */
export async function postgresReachable(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface Child {
  process: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

/** Starts `node <args>` with env and waits until `healthPath` answers 200. */
export async function startNode(args: string[], env: Record<string, string>, port: number, healthPath = '/healthz'): Promise<Child> {
  const script = args.join(' ');
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}`);
    try {
      const res = await fetch(`${url}${healthPath}`);
      if (res.ok) break;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) {
      // Not left running behind a benchmark that fails here.
      child.kill('SIGKILL');
      throw new Error(`${script} did not come up`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    process: child,
    url,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

/**
 * A built gateway (apps/gateway/dist/main.js) on a free loopback port, ready (`/readyz`): `env`
 * gives DATABASE_URL, CREDENTIALS_KEY and anything else it needs.
 */
export async function startGateway(env: Record<string, string>): Promise<Child> {
  const port = await freePort();
  return startNode([join(ROOT, 'apps/gateway/dist/main.js')], { ...env, GATEWAY_HOST: '127.0.0.1', GATEWAY_PORT: String(port) }, port, '/readyz');
}

/**
 * A built internal API (apps/internal-api/dist/main.js) on a free loopback port, ready
 * (`/readyz`): `env` gives DATABASE_URL, CREDENTIALS_KEY and INTERNAL_API_TOKEN.
 */
export async function startInternalApi(env: Record<string, string>): Promise<Child> {
  const port = await freePort();
  return startNode([join(ROOT, 'apps/internal-api/dist/main.js')], { ...env, INTERNAL_API_HOST: '127.0.0.1', INTERNAL_API_PORT: String(port) }, port, '/readyz');
}

/**
 * CPU seconds (user + system) a process has used so far, from /proc (Linux); null elsewhere.
 * Per request, it measures a server's cost independently of what else the machine is running.
 */
export function cpuSeconds(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/** Nanoseconds of CPU: the main thread's, and the sum of the others'. */
export interface ThreadCpu {
  main: number;
  others: number;
}

/**
 * CPU time a process's threads have run so far, in nanoseconds, from each thread's
 * /proc/<pid>/task/<tid>/schedstat (Linux): `main` for the thread that runs JavaScript (its id is
 * the process's), `others` for the rest (V8's collector and compiler threads, libuv's pool).
 * /proc/<pid>/stat counts whole 10 ms ticks, a few percent of the CPU a short run at a fixed rate
 * uses; this counts the nanosecond. Null when the kernel does not keep it (its main thread shows
 * no time at all) or the process is gone. A thread that has ended takes its time with it.
 */
export function threadCpuNanoseconds(pid: number | undefined): ThreadCpu | null {
  if (pid === undefined) return null;
  try {
    let main = 0;
    let others = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      let ran: number;
      try {
        ran = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        continue; // the thread ended while the list was read
      }
      if (tid === String(pid)) main = ran;
      else others += ran;
    }
    return main > 0 ? { main, others } : null;
  } catch {
    return null;
  }
}

/**
 * Times the processes together were taken off a CPU so far: `involuntary` when the scheduler
 * preempted them (more runnable processes than cores), `voluntary` when they waited (I/O, an empty
 * event loop); from /proc (Linux), null elsewhere.
 */
export function contextSwitches(pids: readonly (number | undefined)[]): { voluntary: number; involuntary: number } | null {
  const total = { voluntary: 0, involuntary: 0 };
  for (const pid of pids) {
    if (pid === undefined) return null;
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      total.voluntary += Number(/^voluntary_ctxt_switches:\s*(\d+)/m.exec(status)?.[1] ?? 0);
      total.involuntary += Number(/^nonvoluntary_ctxt_switches:\s*(\d+)/m.exec(status)?.[1] ?? 0);
    } catch {
      return null;
    }
  }
  return total;
}

/** USER_HZ: 100 on every mainstream Linux build. */
const CLOCK_TICKS_PER_SECOND = 100;

/** CPU seconds so far of several processes together; null if any is unknown. */
export function cpuSecondsOf(pids: readonly (number | undefined)[]): number | null {
  let total = 0;
  for (const pid of pids) {
    const used = cpuSeconds(pid);
    if (used === null) return null;
    total += used;
  }
  return total;
}

/**
 * Waits until the processes are all but idle (under a tenth of a core over `quietMs`), at most
 * `maxMs`: requests a load generator gave up on at its end are still being served until then.
 */
export async function settle(pids: readonly (number | undefined)[], quietMs = 200, maxMs = 5000): Promise<void> {
  const deadline = Date.now() + maxMs;
  let last = cpuSecondsOf(pids);
  while (last !== null && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, quietMs));
    const now = cpuSecondsOf(pids);
    if (now === null || now - last < quietMs / 1000 / 10) return;
    last = now;
  }
}

export interface LoadResult {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** Responses by HTTP status. */
  statusCodes: Record<string, number>;
  /** Requests completed in the run. */
  requests: number;
  /** Requests sent in the run: the completed ones and those still unanswered when it ended. */
  sent: number;
}

/**
 * autocannon for `seconds` with `connections`, from this process. `requests` (autocannon's
 * request objects, e.g. with `setupRequest` to vary path, headers and body per request) overrides
 * method, headers and body. Several urls: connection i goes to url i mod n (round-robin, so give
 * a multiple of their number), and the result is their total.
 */
export async function load(
  name: string,
  url: string | readonly string[],
  options: {
    headers?: Record<string, string>;
    seconds?: number;
    connections?: number;
    method?: 'GET' | 'POST' | 'PATCH';
    body?: string;
    requests?: autocannon.Request[];
    /** Requests per second over all connections (autocannon's overallRate); none: as fast as the server answers. */
    rate?: number;
  } = {},
): Promise<LoadResult> {
  const result = await autocannon({
    // autocannon takes an array of urls; its typings only say string.
    url: url as string,
    connections: options.connections ?? 50,
    duration: options.seconds ?? 10,
    headers: options.headers ?? {},
    method: options.method ?? 'GET',
    ...(options.body ? { body: options.body } : {}),
    ...(options.requests ? { requests: options.requests } : {}),
    ...(options.rate ? { overallRate: options.rate } : {}),
  });
  const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, stat]) => [code, stat.count ?? 0]));
  return {
    name,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    statusCodes,
    requests: result.requests.total,
    // autocannon reports it (its typings do not), but at a fixed rate it counts each connection's
    // first second of requests as sent up front (run.js adds the connection's rate, not 1), so a
    // paced run counts the responses instead. That leaves out the requests still in flight when
    // the run ends (up to one per connection), which the server still serves: a caller that needs
    // them counts on the server side (bench:scale-out counts Redis hits).
    sent: options.rate ? result.requests.total : ((result.requests as { sent?: number }).sent ?? result.requests.total),
  };
}

export function printTable(title: string, rows: LoadResult[]): void {
  console.log(`\n${title}`);
  console.log(`${'case'.padEnd(48)} ${'req/s'.padStart(9)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'non-2xx'.padStart(8)} ${'errors'.padStart(7)}`);
  for (const r of rows) {
    console.log(`${r.name.padEnd(48)} ${r.requestsPerSecond.toFixed(0).padStart(9)} ${String(r.p50).padStart(8)} ${String(r.p99).padStart(8)} ${String(r.non2xx).padStart(8)} ${String(r.errors).padStart(7)}`);
  }
}
