// The crash suite's workload: a seeded plan of keyed writes (adjustment creates with a unique
// marker in `reason`, approves of adjustments created earlier, transfer creates with a marker in
// `reference_number`), run by concurrent clients while the gateway is killed at random moments,
// then every write without a definitive answer retried with its own key and body until it has one.
import type { GatewayResponse, JsonBody } from '../harness/gateway-response.js';
import type { GatewayRotation } from './gateway-rotation.js';
import { type KeyedOutcome, type KeyedRequest, type RetryReason, sendKeyed } from './keyed-request.js';
import type { SeededRandom } from './seeded-random.js';

export const ADJUSTMENTS = '/api/partner/v1/adjustments';
export const TRANSFERS = '/api/partner/v1/transfers';
export const APPROVE = '/api/partner/v1/adjustments/{id}/approve';

export type WriteKind = 'adjustment' | 'transfer' | 'approve';

export interface AttemptRecord {
  phase: 'load' | 'settle';
  gatewayPid: number;
  kind: KeyedOutcome['kind'];
  /** Why it must be retried (`later`), or how it went unanswered. */
  reason?: RetryReason | 'socket' | 'no_answer';
  status?: number;
  replayed: boolean;
  /** True when the gateway it went to was killed (so losing the answer was expected). */
  gatewayKilled: boolean;
  error?: string;
}

/** One logical write and everything that happened to it. */
export interface KeyedWrite {
  readonly index: number;
  readonly kind: WriteKind;
  readonly key: string;
  /** Creates: the text that identifies the created record (`reason` or `reference_number`). */
  readonly marker: string | null;
  readonly body: JsonBody;
  /** Approves: the adjustment create whose result it approves. */
  readonly target: KeyedWrite | null;
  readonly attempts: AttemptRecord[];
  /** The first definitive answer (2xx, or a 4xx other than "still in progress" and 429). */
  answer: GatewayResponse | null;
  /** Creates: `data.<adjustment|transfer>.id` of a 201 answer. */
  documentId: string | null;
}

/** Who writes, where, and with what. */
export interface LoadCatalogue {
  apiKey: string;
  tenant: string;
  /** Adjustments happen at the first; transfers go from the first to the second. */
  locationIds: readonly [number, number];
  productIds: readonly number[];
}

/** An approve only targets an adjustment planned this many writes earlier, so its create has usually been answered by then. */
const APPROVE_DISTANCE = 16;

/**
 * `total` writes, decided by `random` alone (so a seed reproduces the plan): about a third
 * approves, a tenth transfer creates, the rest adjustment creates (increases of `good` or
 * `damaged`, small decreases of `good`, 1 to 3 lines each).
 *
 * @example
 * const writes = planKeyedWrites(seededRandom(seed), catalogue, 300, `s${seed}`);
 */
export function planKeyedWrites(random: SeededRandom, catalogue: LoadCatalogue, total: number, tag: string): KeyedWrite[] {
  const writes: KeyedWrite[] = [];
  const approvable: KeyedWrite[] = [];
  const base = (index: number, kind: WriteKind) => ({ index, kind, key: `crash-${tag}-${index}-${kind}`, attempts: [], answer: null, documentId: null });
  for (let index = 0; index < total; index += 1) {
    const ready = approvable.filter((w) => w.index <= index - APPROVE_DISTANCE);
    const roll = random.next();
    if (ready.length > 0 && roll < 0.35) {
      const target = random.pick(ready);
      approvable.splice(approvable.indexOf(target), 1);
      writes.push({ ...base(index, 'approve'), marker: null, body: {}, target });
      continue;
    }
    const products = random.sample(catalogue.productIds, random.int(1, 3));
    if (roll < 0.45) {
      const marker = `crash ${tag} transfer ${index}`;
      writes.push({
        ...base(index, 'transfer'),
        marker,
        target: null,
        body: {
          from_location_id: catalogue.locationIds[0],
          to_location_id: catalogue.locationIds[1],
          transfer_date: '2026-03-10',
          reference_number: marker,
          items: products.map((id) => ({ product_id: String(id), quantity: random.int(1, 4) })),
        },
      });
      continue;
    }
    const type = random.next() < 0.3 ? 'decrease' : 'increase';
    const stockSource = type === 'increase' && random.next() < 0.25 ? 'damaged' : 'good';
    const marker = `crash ${tag} adjustment ${index}`;
    const write: KeyedWrite = {
      ...base(index, 'adjustment'),
      marker,
      target: null,
      body: {
        location_id: catalogue.locationIds[0],
        type,
        stock_source: stockSource,
        reason: marker,
        items: products.map((id) => ({ product_id: String(id), quantity: random.int(1, type === 'increase' ? 5 : 3), unit_cost: 1.25 })),
      },
    };
    writes.push(write);
    approvable.push(write);
  }
  return writes;
}

/**
 * The request `write` sends, the same key and body every time (an approve once its adjustment has an id).
 *
 * @example
 * const outcome = await sendKeyed(gateway.url, requestForWrite(write, catalogue), 15_000);
 */
export function requestForWrite(write: KeyedWrite, catalogue: LoadCatalogue): KeyedRequest {
  const common = { apiKey: catalogue.apiKey, tenant: catalogue.tenant, idempotencyKey: write.key, body: write.body };
  if (write.kind === 'adjustment') return { ...common, method: 'POST', path: ADJUSTMENTS, template: ADJUSTMENTS };
  if (write.kind === 'transfer') return { ...common, method: 'POST', path: TRANSFERS, template: TRANSFERS };
  const id = write.target?.documentId;
  if (id === null || id === undefined) throw new Error(`approve ${write.key}: its adjustment was never created`);
  return { ...common, method: 'PATCH', path: APPROVE.replace('{id}', encodeURIComponent(id)), template: APPROVE };
}

export interface AttemptOptions {
  catalogue: LoadCatalogue;
  rotation: GatewayRotation;
  /** A live gateway that has not answered within this is a hang (recorded, and the request counts as unanswered). */
  answerWithinMs: number;
}

/** Sends `write` once to the current gateway and records what happened. */
async function attempt(write: KeyedWrite, phase: AttemptRecord['phase'], options: AttemptOptions): Promise<KeyedOutcome> {
  const gateway = await options.rotation.current();
  const outcome = await sendKeyed(gateway.url, requestForWrite(write, options.catalogue), options.answerWithinMs);
  const record: AttemptRecord = { phase, gatewayPid: gateway.pid, kind: outcome.kind, replayed: false, gatewayKilled: options.rotation.wasKilled(gateway.pid) };
  if (outcome.kind === 'unanswered') {
    record.reason = outcome.reason;
    record.error = outcome.error;
  } else {
    record.status = outcome.res.status;
    if (outcome.kind === 'later') record.reason = outcome.reason;
    else {
      record.replayed = outcome.replayed;
      write.answer = outcome.res;
      if (outcome.res.status === 201) write.documentId = String(outcome.res.body.data[write.kind === 'transfer' ? 'transfer' : 'adjustment'].id);
    }
  }
  write.attempts.push(record);
  return outcome;
}

export interface KillPlan {
  /** Kill once this many writes of the plan have been taken by the clients... */
  afterTaken: number;
  /** ...and this many milliseconds more have passed. */
  delayMs: number;
}

/**
 * `kills` moments spread over the middle of the load (between 10 % and 85 % of the writes taken),
 * each with a random extra delay, so every kill lands while requests are in flight.
 */
export function planKills(random: SeededRandom, total: number, kills: number): KillPlan[] {
  const span = Math.floor(total * 0.75);
  return Array.from({ length: kills }, (_, k) => {
    const slot = Math.floor(span / kills);
    return { afterTaken: Math.floor(total * 0.1) + k * slot + random.int(0, slot - 1), delayMs: random.int(0, 60) };
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Retries of one write after the load before `settle` gives up on it. */
const MAX_SETTLE_ATTEMPTS = 20;

/**
 * Runs `writes` with `concurrency` clients, each taking the next write when its last one ended.
 * Meanwhile the gateway is killed and replaced at each of `kills`. An approve whose adjustment has
 * no id yet (its create is unanswered) is not sent now; it is returned as deferred, for `settle`.
 *
 * @example
 * const { deferred } = await runUnderKills(writes, planKills(random, writes.length, 4), { catalogue, rotation, answerWithinMs: 15_000, concurrency: 8 });
 */
export async function runUnderKills(writes: readonly KeyedWrite[], kills: readonly KillPlan[], options: AttemptOptions & { concurrency: number }): Promise<{ deferred: KeyedWrite[] }> {
  const deferred: KeyedWrite[] = [];
  let cursor = 0;
  let finished = false;
  const client = async () => {
    for (;;) {
      const write = writes[cursor];
      if (write === undefined) return;
      cursor += 1;
      if (write.kind === 'approve' && write.target?.documentId === null) {
        deferred.push(write);
        continue;
      }
      await attempt(write, 'load', options);
    }
  };
  const killer = async () => {
    for (const kill of kills) {
      while (cursor < kill.afterTaken && !finished) await sleep(2);
      if (finished) throw new Error(`the load ended before kill ${options.rotation.kills() + 1} (after ${kill.afterTaken} writes taken)`);
      await sleep(kill.delayMs);
      await options.rotation.replace('SIGKILL');
    }
  };
  const clients = Promise.all(Array.from({ length: options.concurrency }, client)).finally(() => {
    finished = true;
  });
  await Promise.all([clients, killer()]);
  return { deferred };
}

/**
 * Retries every write without a definitive answer, creates first (an approve needs its
 * adjustment's id), with its own key and body, until each has one: after the claim lease of the
 * last killed gateway has run out, in rounds, waiting longer after a "still in progress". Throws,
 * naming the keys, when some still have none after `timeoutMs` or after 20 retries.
 *
 * @example
 * await settle(writes, { catalogue, rotation, answerWithinMs: 15_000, leaseMs: 3000, concurrency: 4, timeoutMs: 60_000 });
 */
export async function settle(writes: readonly KeyedWrite[], options: AttemptOptions & { leaseMs: number; concurrency: number; timeoutMs: number }): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  const leaseOver = options.rotation.lastKillAt() + options.leaseMs + 250;
  if (Date.now() < leaseOver) await sleep(leaseOver - Date.now());
  const byPhase = [writes.filter((w) => w.kind !== 'approve'), writes.filter((w) => w.kind === 'approve')];
  for (const group of byPhase) {
    let pending = group.filter((w) => w.answer === null);
    while (pending.length > 0) {
      const exhausted = pending.filter((w) => w.attempts.filter((a) => a.phase === 'settle').length >= MAX_SETTLE_ATTEMPTS);
      if (Date.now() > deadline || exhausted.length > 0) {
        const stuck = exhausted.length > 0 ? exhausted : pending;
        throw new Error(
          `no definitive answer after ${Date.now() > deadline ? `${options.timeoutMs} ms` : `${MAX_SETTLE_ATTEMPTS} retries`} for ${stuck.length} keys: ${stuck.map((w) => `${w.key} (${JSON.stringify(w.attempts.at(-1))})`).join(', ')}`,
        );
      }
      const outcomes: KeyedOutcome[] = [];
      let next = 0;
      const client = async () => {
        for (;;) {
          const write = pending[next];
          if (write === undefined) return;
          next += 1;
          outcomes.push(await attempt(write, 'settle', options));
        }
      };
      await Promise.all(Array.from({ length: options.concurrency }, client));
      pending = pending.filter((w) => w.answer === null);
      if (pending.length > 0) await sleep(outcomes.some((o) => o.kind === 'later' && o.reason === 'in_progress') ? 1000 : 300);
    }
  }
}

/** What the run did, for the report and the assertions. */
export interface CrashTally {
  seed: number;
  /** Logical writes planned and sent. */
  writes: number;
  /** HTTP requests sent for them (load and retries). */
  requests: number;
  kills: number;
  /** Writes sent during the load that had no definitive answer when it ended. */
  unanswered: number;
  /** ...of which: the connection died with a killed gateway, 503, "still in progress", 429. */
  lostWithGateway: number;
  unavailable: number;
  inProgress: number;
  rateLimited: number;
  /** Approves first sent after the load, because their create was unanswered. */
  deferred: number;
  /** Requests sent again after the load for a write that was already sent once. */
  retried: number;
  /** Definitive answers that were replays (`Idempotent-Replayed: true`). */
  replayed: number;
  /** Failures that are bugs whatever the timing: 5xx other than 503, no answer from a live gateway, a connection lost on a gateway that was not killed. */
  serverErrors: number;
  hangs: number;
  lostOnLiveGateway: number;
}

/**
 * @example
 * console.log(JSON.stringify(tallyOf(seed, writes, rotation)));
 */
export function tallyOf(seed: number, writes: readonly KeyedWrite[], rotation: GatewayRotation): CrashTally {
  const attempts = writes.flatMap((w) => w.attempts);
  const loadEnd = (w: KeyedWrite) => w.attempts.filter((a) => a.phase === 'load').at(-1);
  const unansweredAfterLoad = writes.filter((w) => {
    const last = loadEnd(w);
    return last !== undefined && last.kind !== 'answered';
  });
  const lastReason = (reason: AttemptRecord['reason']) => unansweredAfterLoad.filter((w) => loadEnd(w)!.reason === reason).length;
  return {
    seed,
    writes: writes.length,
    requests: attempts.length,
    kills: rotation.kills(),
    unanswered: unansweredAfterLoad.length,
    lostWithGateway: unansweredAfterLoad.filter((w) => loadEnd(w)!.kind === 'unanswered' && loadEnd(w)!.gatewayKilled).length,
    unavailable: lastReason('unavailable'),
    inProgress: lastReason('in_progress'),
    rateLimited: lastReason('rate_limited'),
    deferred: writes.filter((w) => w.attempts.length > 0 && w.attempts[0]!.phase === 'settle').length,
    retried: writes.reduce((n, w) => n + (w.attempts[0]?.phase === 'load' ? w.attempts.filter((a) => a.phase === 'settle').length : 0), 0),
    replayed: attempts.filter((a) => a.replayed).length,
    serverErrors: attempts.filter((a) => a.reason === 'server_error').length,
    hangs: attempts.filter((a) => a.reason === 'no_answer').length,
    lostOnLiveGateway: attempts.filter((a) => a.reason === 'socket' && !a.gatewayKilled).length,
  };
}
