// One fault scenario from start to verdict: steady traffic, a warm-up, the fault injected and
// held, healed, recovery measured on every process, the writes that got no 2xx retried with their
// keys, then the audit (lost, doubled, half-applied), the ledger check and a row of the fault table.
// The checks every scenario shares are in `expectFaultContained`.
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import type { ChildService } from '../harness/child-service.js';
import { expectError } from '../harness/error-envelope.js';
import { expectContract } from '../harness/openapi-contract.js';
import { FAULT_SETTINGS, type FaultStack, MARGIN_MS } from './fault-stack.js';
import { type FaultRow, recordFaultRow } from './fault-report.js';
import { type TrafficRecord, type TrafficTarget, type WriteIntent, acknowledged, isSuccess, markerOf, retryUnacknowledged, startTraffic } from './traffic-generator.js';
import { type WriteAudit, auditWrites } from './write-audit.js';

/** A request without an answer after this is a hang (recorded with status 0); far beyond every bound the checks apply. */
export const ANSWER_TIMEOUT_MS = FAULT_SETTINGS.requestDeadlineMs + 8000;

/** What one probe saw: an HTTP status (or tRPC httpStatus), or why there was none. */
export interface ProbeResult {
  what: string;
  status: number | 'no answer';
  ms: number;
  retryAfter?: string;
  code?: string;
}

export interface Recovery {
  /** From the end of the fault until every probe had succeeded once; null when one never did. */
  ms: number | null;
  /** Per probe: ms until its first success, null when it never succeeded. */
  byProbe: Record<string, number | null>;
}

export interface ScenarioPlan {
  /** Its name in the fault table. */
  fault: string;
  /** Unique per scenario, without `_` or `%`, and no label may be another's prefix followed by `-`. */
  label: string;
  stack: FaultStack;
  /** Where the traffic and the recovery probes go; default the stack's gateway. */
  gateway?: ChildService;
  /** Traffic before the fault (every answer must be 2xx); default 800 ms. */
  warmupMs?: number;
  /**
   * The fault was in place before the traffic began (a process started into it): no warm-up, and
   * every answer counts as during the fault. Without it, an answer quick enough to end before
   * `inject` ran would be judged as traffic before the fault.
   */
  faultedFromStart?: boolean;
  inject(): Promise<void>;
  /** How long the fault holds once injected (at least as long as `whileFaulted` takes). */
  holdMs: number;
  heal(): Promise<void>;
  /** Runs once the fault is injected, beside the traffic; what it saw lands in the outcome. */
  whileFaulted?(): Promise<ProbeResult[]>;
  /** How recovery is measured (the traffic so far at hand); default `measureRecovery` on the gateway and the internal API. */
  recover?(since: number, traffic: { records: readonly TrafficRecord[]; writes: readonly WriteIntent[] }): Promise<Recovery>;
  /** Traffic after recovery; default 1000 ms. */
  tailMs?: number;
  loops?: number;
}

export interface ScenarioOutcome {
  plan: ScenarioPlan;
  /** Every request of the traffic (retries are in `writes[].attempts`). */
  records: readonly TrafficRecord[];
  writes: readonly WriteIntent[];
  retried: WriteIntent[];
  /** `performance.now()` times. */
  injectedAt: number;
  healedAt: number;
  recoveredAt: number | null;
  recovery: Recovery;
  /** ms from the end of the fault to the traffic's first 2xx. */
  firstTrafficSuccessMs: number | null;
  during: ProbeResult[];
  audit: WriteAudit;
  ledger: { balanced: boolean; mismatches: unknown[] };
  exited: string[];
  row: FaultRow;
}

export function trafficTarget(stack: FaultStack, gateway: ChildService = stack.gateway): TrafficTarget {
  return {
    gatewayUrl: gateway.url,
    key: stack.partner.key,
    tenant: stack.tenant,
    locationId: stack.locationId,
    productIds: stack.products.map((p) => p.id),
    internal: { url: stack.internalApi.url, token: stack.internalToken, partnerId: stack.partner.id },
  };
}

/** A Retry-After a client can act on: a whole number of seconds, at least 1. */
const usableRetryAfter = (value: string | undefined) => value !== undefined && /^\d+$/.test(value) && Number(value) >= 1;

/** `promise`, or a rejection after `ms`: a probe never hangs the suite. */
function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** GET `url` and what came back. */
export async function probeHttp(what: string, url: string, headers: Record<string, string> = {}): Promise<ProbeResult> {
  const started = performance.now();
  try {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS) });
    const text = await res.text();
    let code: unknown;
    try {
      const body = JSON.parse(text) as { error?: { code?: unknown; data?: { code?: unknown } } };
      code = typeof body.error?.code === 'string' ? body.error.code : body.error?.data?.code;
    } catch {
      code = undefined;
    }
    const retryAfter = res.headers.get('retry-after');
    return { what, status: res.status, ms: performance.now() - started, ...(retryAfter !== null ? { retryAfter } : {}), ...(typeof code === 'string' ? { code } : {}) };
  } catch {
    return { what, status: 'no answer', ms: performance.now() - started };
  }
}

/** The typed internal API client's view of one call: success (200) or the refusal's httpStatus and code. */
export async function probeInternalClient(stack: FaultStack): Promise<ProbeResult> {
  const what = 'internal API typed client (partners.byId)';
  const started = performance.now();
  try {
    await within(ANSWER_TIMEOUT_MS, stack.internal.partners.byId.query({ id: stack.partner.id }));
    return { what, status: 200, ms: performance.now() - started };
  } catch (error) {
    const data = (error as { data?: { httpStatus?: unknown; code?: unknown } }).data;
    return {
      what,
      status: typeof data?.httpStatus === 'number' ? data.httpStatus : 'no answer',
      ms: performance.now() - started,
      ...(typeof data?.code === 'string' ? { code: data.code } : {}),
    };
  }
}

/**
 * What a caller sees while the database is out, once the fault has settled in: both /readyz, a
 * partner read, the internal API over plain HTTP and through the typed client.
 *
 * @example
 * whileFaulted: () => probeUnavailability(stack, stack.gateway)
 */
export async function probeUnavailability(stack: FaultStack, gateway: ChildService, settleMs = 700): Promise<ProbeResult[]> {
  await sleep(settleMs);
  const auth = { authorization: `Bearer ${stack.partner.key}`, 'x-tenant-id': stack.tenant };
  return Promise.all([
    probeHttp('gateway /readyz', `${gateway.url}/readyz`),
    probeHttp('internal API /readyz', `${stack.internalApi.url}/readyz`),
    probeHttp('gateway partner read', `${gateway.url}/api/engine/v1/adjustments?per_page=1`, auth),
    probeHttp('internal API call over HTTP', `${stack.internalApi.url}/trpc/partners.byId?input=${encodeURIComponent(JSON.stringify({ id: stack.partner.id }))}`, {
      authorization: `Bearer ${stack.internalToken}`,
    }),
    probeInternalClient(stack),
  ]);
}

/**
 * What `probeUnavailability` saw must be: both /readyz 503 within READY_TIMEOUT_MS + margin; the
 * partner read and the internal API call 503 SERVICE_UNAVAILABLE with Retry-After within the
 * request deadline + margin; the typed client refused with SERVICE_UNAVAILABLE (httpStatus 503).
 *
 * @example
 * expectUnavailableProbes(outcome.during);
 */
export function expectUnavailableProbes(during: readonly ProbeResult[]): void {
  const seen = new Map(during.map((p) => [p.what, p]));
  const at = (what: string) => {
    const probe = seen.get(what);
    expect(probe, `probe "${what}" ran`).toBeDefined();
    return probe!;
  };
  for (const what of ['gateway /readyz', 'internal API /readyz']) {
    const probe = at(what);
    expect(probe.status, `${what} while the database is out`).toBe(503);
    expect(probe.ms, `${what} answers within READY_TIMEOUT_MS + margin`).toBeLessThanOrEqual(FAULT_SETTINGS.readyTimeoutMs + MARGIN_MS);
  }
  for (const what of ['gateway partner read', 'internal API call over HTTP', 'internal API typed client (partners.byId)']) {
    const probe = at(what);
    expect({ status: probe.status, code: probe.code }, what).toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    expect(probe.ms, `${what} answers within the request deadline + margin`).toBeLessThanOrEqual(FAULT_SETTINGS.requestDeadlineMs + MARGIN_MS);
    if (what !== 'internal API typed client (partners.byId)') expect(usableRetryAfter(probe.retryAfter), `${what}: Retry-After ${probe.retryAfter}`).toBe(true);
  }
}

/**
 * Polls each process until it serves again, from `since` (a `performance.now()` time): every
 * gateway's /readyz and a partner read, the internal API's /readyz and a typed call.
 *
 * @example
 * const recovery = await measureRecovery(stack, [stack.gateway], healedAt);
 */
export async function measureRecovery(stack: FaultStack, gateways: readonly ChildService[], since: number, timeoutMs = 20_000): Promise<Recovery> {
  const auth = { authorization: `Bearer ${stack.partner.key}`, 'x-tenant-id': stack.tenant };
  const probes: Record<string, () => Promise<ProbeResult>> = {};
  for (const g of gateways) {
    probes[`${g.name} /readyz`] = () => probeHttp('', `${g.url}/readyz`);
    probes[`${g.name} partner read`] = () => probeHttp('', `${g.url}/api/engine/v1/adjustments?per_page=1`, auth);
  }
  probes['internal API /readyz'] = () => probeHttp('', `${stack.internalApi.url}/readyz`);
  probes['internal API typed call'] = () => probeInternalClient(stack);
  const deadline = since + timeoutMs;
  const byProbe: Record<string, number | null> = {};
  await Promise.all(
    Object.entries(probes).map(async ([name, probe]) => {
      byProbe[name] = null;
      while (performance.now() < deadline) {
        const result = await probe();
        if (typeof result.status === 'number' && isSuccess(result.status)) {
          byProbe[name] = performance.now() - since;
          return;
        }
        await sleep(50);
      }
    }),
  );
  const times = Object.values(byProbe);
  return { ms: times.some((t) => t === null) ? null : Math.max(...(times as number[])), byProbe };
}

export const describeRecord = (r: TrafficRecord) =>
  `${r.op} ${r.method} ${r.path}${r.key ? ` [${r.key}]` : ''} → ${r.status || r.failure}${r.code ? ` ${r.code}` : ''}${r.retryAfter ? ` (Retry-After ${r.retryAfter})` : ''} in ${Math.round(r.latencyMs)} ms`;

/** Status → count over `records`. */
function countStatuses(records: readonly TrafficRecord[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of records) counts[String(r.status)] = (counts[String(r.status)] ?? 0) + 1;
  return counts;
}

/**
 * Runs the scenario and records its row in the fault table; the fault is always healed, whatever
 * fails on the way. Assertions are left to the caller (`expectFaultContained` and its own).
 *
 * @example
 * const outcome = await runScenario({ fault: 'outage (proxy cut)', label: 'outage', stack, holdMs: 4000,
 *   inject: () => stack.databaseFault('cut'), heal: () => stack.databaseFault('pass') });
 * expectFaultContained(outcome, { latencyBoundMs: 3000, unavailable: true });
 */
export async function runScenario(plan: ScenarioPlan): Promise<ScenarioOutcome> {
  const { stack } = plan;
  const gateway = plan.gateway ?? stack.gateway;
  const target = trafficTarget(stack, gateway);
  const startedFaulted = plan.faultedFromStart === true;
  let injectedAt = startedFaulted ? performance.now() : Number.NaN;
  const traffic = startTraffic(target, { label: plan.label, loops: plan.loops ?? 4, answerTimeoutMs: ANSWER_TIMEOUT_MS, maxDurationMs: 60_000 });
  let healedAt = Number.NaN;
  let healed = false;
  let during: ProbeResult[] = [];
  let recovery: Recovery = { ms: null, byProbe: {} };
  try {
    if (!startedFaulted) {
      await sleep(plan.warmupMs ?? 800);
      injectedAt = performance.now();
    }
    await plan.inject();
    const watching = plan.whileFaulted?.() ?? Promise.resolve([]);
    await sleep(plan.holdMs);
    during = await watching;
    healedAt = performance.now();
    healed = true;
    await plan.heal();
    recovery = plan.recover ? await plan.recover(healedAt, traffic) : await measureRecovery(stack, [gateway], healedAt);
    await sleep(plan.tailMs ?? 1000);
  } finally {
    if (!healed) await plan.heal().catch(() => undefined);
    await traffic.stop();
  }
  const recoveredAt = recovery.ms === null ? null : healedAt + recovery.ms;
  const firstSuccess = traffic.records.find((r) => r.startedAt >= healedAt && isSuccess(r.status));

  // Writes that got no 2xx: again with the same key, once an interrupted attempt's claim lease has run out.
  const retried = await retryUnacknowledged(target, traffic.writes, { notBefore: healedAt + FAULT_SETTINGS.claimLeaseMs + 200, answerTimeoutMs: ANSWER_TIMEOUT_MS });
  const audit = await auditWrites(stack.inspector, stack.tenant, markerOf(`${plan.label}-`), traffic.writes);
  const ledger = await within(ANSWER_TIMEOUT_MS, stack.internal.stock.checkLedger.query({}));
  const exited = stack.exitedProcesses();

  const windowEnd = recoveredAt ?? Number.POSITIVE_INFINITY;
  // Every request the fault could touch: in flight at its start, up to the moment every process had recovered.
  const inFault = traffic.records.filter((r) => r.endedAt >= injectedAt && r.startedAt <= windowEnd);
  const row: FaultRow = {
    fault: plan.fault,
    dialect: stack.dialect,
    sent: traffic.records.length,
    writes: traffic.writes.length,
    acknowledged: traffic.writes.filter((w) => acknowledged(w, 'load')).length,
    retried: retried.length,
    lost: audit.lost.length,
    doubled: audit.doubled.length,
    halfApplied: audit.halfApplied.length,
    statusesDuringFault: countStatuses(inFault),
    maxLatencyDuringFaultMs: Math.max(0, ...inFault.map((r) => r.latencyMs)),
    recoverMs: recovery.ms,
    recordedAt: new Date().toISOString(),
  };
  recordFaultRow(row);
  const probes = Object.entries(recovery.byProbe).map(([probe, ms]) => `${probe} ${ms === null ? 'never' : `${Math.round(ms)} ms`}`);
  console.log(`[fault] ${plan.fault}: recovered in ${recovery.ms === null ? 'never' : `${Math.round(recovery.ms)} ms`} (${probes.join(', ')}); first 2xx of the traffic ${firstSuccess ? `${Math.round(firstSuccess.endedAt - healedAt)} ms` : 'never'} after the fault ended`);
  return {
    plan,
    records: traffic.records,
    writes: traffic.writes,
    retried,
    injectedAt,
    healedAt,
    recoveredAt,
    recovery,
    firstTrafficSuccessMs: firstSuccess ? firstSuccess.endedAt - healedAt : null,
    during,
    audit,
    ledger: { balanced: ledger.balanced, mismatches: ledger.mismatches },
    exited,
    row,
  };
}

const TEMPLATES: Record<string, string> = {
  create: '/api/partner/v1/adjustments',
  approve: '/api/partner/v1/adjustments/{id}/approve',
  detail: '/api/engine/v1/adjustments/{id}',
  list: '/api/engine/v1/adjustments',
};

export interface Containment {
  /** No answer may take longer than this. */
  latencyBoundMs: number;
  /** Whether 503 SERVICE_UNAVAILABLE (with Retry-After) is an acceptable answer during the fault; otherwise every answer must be 2xx. */
  unavailable: boolean;
}

/**
 * What every scenario must show: every request answered (none hung) within the bound; every
 * non-2xx a 503 SERVICE_UNAVAILABLE with a usable Retry-After (checked against the contract);
 * everything 2xx before the fault and after recovery; every process still the same process; no
 * write lost, doubled, half-applied or left without a 2xx after its retries; the ledger balanced.
 * Soft assertions: one run reports every violation, timing and data alike.
 *
 * @example
 * expectFaultContained(outcome, { latencyBoundMs: FAULT_SETTINGS.requestDeadlineMs + MARGIN_MS, unavailable: true });
 */
export async function expectFaultContained(outcome: ScenarioOutcome, containment: Containment): Promise<void> {
  const { records } = outcome;
  expect.soft(records.filter((r) => r.status === 0).map(describeRecord), 'every request was answered: none hung, none refused').toEqual([]);
  expect.soft(records.filter((r) => r.latencyMs > containment.latencyBoundMs).map(describeRecord), `every answer within ${containment.latencyBoundMs} ms`).toEqual([]);
  const refusedWell = (r: TrafficRecord) => containment.unavailable && r.status === 503 && r.code === 'SERVICE_UNAVAILABLE' && usableRetryAfter(r.retryAfter);
  expect.soft(
    records.filter((r) => !isSuccess(r.status) && !refusedWell(r)).map(describeRecord),
    containment.unavailable ? 'every non-2xx is 503 SERVICE_UNAVAILABLE with Retry-After' : 'every answer is 2xx',
  ).toEqual([]);
  expect.soft(records.filter((r) => r.endedAt < outcome.injectedAt && !isSuccess(r.status)).map(describeRecord), 'before the fault: all 2xx').toEqual([]);
  expect.soft(Object.entries(outcome.recovery.byProbe).filter(([, t]) => t === null).map(([probe]) => probe), 'every process serves again').toEqual([]);
  expect.soft(outcome.recoveredAt).not.toBeNull();
  const recovered = outcome.recoveredAt ?? Number.POSITIVE_INFINITY;
  expect.soft(records.filter((r) => r.startedAt >= recovered && !isSuccess(r.status)).map(describeRecord), 'after recovery: all 2xx').toEqual([]);
  expect.soft(records.filter((r) => r.startedAt >= recovered).length, 'traffic ran after recovery').toBeGreaterThan(0);
  expect.soft(outcome.exited, 'every process is still the same process (no exit, no restart)').toEqual([]);
  expect.soft(outcome.audit.unresolved, 'every write got a 2xx, at the latest when retried with its key').toEqual([]);
  expect.soft(outcome.audit.lost, 'no acknowledged write lost').toEqual([]);
  expect.soft(outcome.audit.doubled, 'no write applied twice').toEqual([]);
  expect.soft(outcome.audit.halfApplied, 'no write half-applied').toEqual([]);
  expect.soft(outcome.ledger.mismatches, 'ledger: every stock row sums to its balance').toEqual([]);
  expect.soft(outcome.ledger.balanced).toBe(true);
  expect.soft(outcome.writes.filter((w) => acknowledged(w, 'load')).length, 'writes were acknowledged while the scenario ran').toBeGreaterThan(0);
  // One refusal of the gateway, in the contract's error envelope (its documentation: expectRefusalsDocumented).
  const sample = records.find((r) => r.target === 'gateway' && r.status === 503 && r.response !== undefined);
  if (sample?.response) expectError(sample.response, 'SERVICE_UNAVAILABLE');
}

/** One 503 of the gateway per operation in `outcome`, for `expectRefusalsDocumented`. */
export function refusalSamples(outcome: ScenarioOutcome): TrafficRecord[] {
  const byOp = new Map<string, TrafficRecord>();
  for (const r of outcome.records) if (r.target === 'gateway' && r.status === 503 && r.response !== undefined && !byOp.has(r.op)) byOp.set(r.op, r);
  return [...byOp.values()];
}

/**
 * Every 503 the partners saw must be one the contract documents: its status among the
 * operation's responses, its body that response's schema, its headers (Retry-After) declared.
 * Checked once per method and path template.
 *
 * @example
 * samples.push(...refusalSamples(outcome));
 * await expectRefusalsDocumented(samples);
 */
export async function expectRefusalsDocumented(samples: readonly TrafficRecord[]): Promise<void> {
  const seen = new Set<string>();
  const failures: string[] = [];
  for (const sample of samples) {
    const template = TEMPLATES[sample.op]!;
    if (seen.has(`${sample.method} ${template}`) || !sample.response) continue;
    seen.add(`${sample.method} ${template}`);
    try {
      await expectContract(sample.response, sample.method, template);
    } catch (error) {
      failures.push((error as Error).message.split('\n')[0]!);
    }
  }
  expect(seen.size, 'the scenarios produced 503s to check').toBeGreaterThan(0);
  expect(failures, 'every 503 a partner saw is documented in /openapi.json').toEqual([]);
}
