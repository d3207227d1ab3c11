// Any number of processes may start together on a database nobody has migrated yet
// (docs/operating-guarantees.md#start-up-and-readiness): three real processes (two gateways and the
// internal API) started at the same moment on a brand-new SQLite file, round after round, and once
// on a PostgreSQL database of their own. Every one must become ready and none may exit: the
// migrations are serialised, so the processes that wait find nothing left to do. No timing is
// asserted; the deadlines only bound a hung start.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testPostgresUrl } from '@pits/persistence/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildService, ExitInfo } from './harness/child-service.js';
import { e2eDialects } from './harness/e2e-database.js';
import { startGatewayProcess } from './harness/start-gateway.js';
import { startInternalApiProcess } from './harness/start-internal-api.js';

const dialects = await e2eDialects();

const SQLITE_ROUNDS = 10;
/** A start on a busy two-core machine, migrations included: generous, it only bounds a hang. */
const READY_WITHIN_MS = 120_000;
/** Per round: three starts in parallel, their stops, and some slack. */
const ROUND_MS = READY_WITHIN_MS + 60_000;

interface Round {
  /** Why each process that did not become ready failed (its output included). */
  failures: string[];
  /** How each started process exited when stopped: SIGTERM's graceful exit is code 0. */
  exits: Record<string, ExitInfo>;
}

const readyNow = async (service: ChildService): Promise<boolean> =>
  fetch(`${service.url}/readyz`, { signal: AbortSignal.timeout(5000) }).then(
    (res) => res.status === 200,
    () => false,
  );

/** Starts two gateways and the internal API at once on `databaseUrl`, checks each is still ready, stops them. */
async function startThreeAtOnce(databaseUrl: string): Promise<Round> {
  const credentialsKey = randomBytes(32).toString('hex');
  const token = randomBytes(24).toString('base64url');
  const env = { LOG_LEVEL: 'warn' };
  const starts = await Promise.allSettled([
    startGatewayProcess({ databaseUrl, credentialsKey, name: 'gateway-1', env, readyTimeoutMs: READY_WITHIN_MS }),
    startInternalApiProcess({ databaseUrl, credentialsKey, token, env, readyTimeoutMs: READY_WITHIN_MS }).then((api) => api.service),
    startGatewayProcess({ databaseUrl, credentialsKey, name: 'gateway-2', env, readyTimeoutMs: READY_WITHIN_MS }),
  ]);
  const started = starts.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failures = starts.flatMap((s) => (s.status === 'rejected' ? [String((s.reason as Error).message ?? s.reason)] : []));
  for (const service of started) {
    if (!(await readyNow(service))) failures.push(`${service.name} stopped answering /readyz with 200 after it was ready\n${service.describe()}`);
  }
  const exits: Record<string, ExitInfo> = {};
  const stopped = await Promise.all(started.map((service) => service.stop()));
  started.forEach((service, i) => (exits[service.name] = stopped[i]!));
  return { failures, exits };
}

const GRACEFUL: ExitInfo = { code: 0, signal: null };

function expectAllReadyAndStopped(round: Round, label: string): void {
  expect(round.failures, label).toEqual([]);
  expect(round.exits, label).toEqual({ 'gateway-1': GRACEFUL, 'internal-api': GRACEFUL, 'gateway-2': GRACEFUL });
}

describe.runIf(dialects.includes('sqlite'))('[sqlite] three processes started together on a new file', () => {
  let dir: string;
  // In hooks, not at collection: a skipped block runs no hooks, and would leave the folder behind.
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'pits-concurrent-start-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(
    `all become ready, ${SQLITE_ROUNDS} rounds in a row`,
    async () => {
      for (let round = 1; round <= SQLITE_ROUNDS; round += 1) {
        // A file that does not exist yet: the processes create it as they open it.
        const file = join(dir, `round-${round}.sqlite`);
        expectAllReadyAndStopped(await startThreeAtOnce(file), `round ${round} on ${file}`);
      }
    },
    SQLITE_ROUNDS * ROUND_MS,
  );
});

describe.runIf(dialects.includes('postgres'))('[postgres] three processes started together on a new database', () => {
  const server = testPostgresUrl();
  const name = `pits_e2e_start_${process.pid}_${randomBytes(4).toString('hex')}`;
  let created = false;

  /** Runs one statement on the server, outside the database under test. */
  async function administer(statement: string): Promise<void> {
    const admin = new pg.Client({ connectionString: server });
    await admin.connect();
    try {
      await admin.query(statement);
    } finally {
      await admin.end();
    }
  }

  afterAll(async () => {
    if (created) await administer(`drop database if exists ${name} with (force)`);
  }, 60_000);

  it(
    'all become ready',
    async () => {
      await administer(`create database ${name}`);
      created = true;
      const url = new URL(server);
      url.pathname = `/${name}`;
      expectAllReadyAndStopped(await startThreeAtOnce(url.toString()), `database ${name}`);
    },
    ROUND_MS,
  );
});
