// Crash safety of Idempotency-Key writes (docs/idempotency.md#crash-safety): the stored response commits in the
// transaction of the work, so after a kill -9 at any moment a retry with the same key either
// replays what committed or does the work for the first time, never twice. Shown two ways:
// random kills of the gateway under a keyed write load (both dialects), counting records and
// ledger rows per key afterwards; and the exact window between the work and its stored response,
// held open with row locks, then killed (PostgreSQL), plus a claim taken over after its lease.
//
// The run's seed is printed; CRASH_SEED=<seed> replays the same plan of writes and kill moments
// (the interleaving with the processes is still up to the machine).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildService } from '../harness/child-service.js';
import { e2eDialects } from '../harness/e2e-database.js';
import { expectError } from '../harness/error-envelope.js';
import { showOutputOnFailure } from '../harness/failure-output.js';
import { gatewayClient } from '../harness/gateway-client.js';
import { createProducts, recordOpening, stockAt } from '../harness/inventory-fixtures.js';
import { expectLedgerBalanced, stopAfterLedgerCheck } from '../harness/ledger-check.js';
import { type OnboardedPartner, onboardPartner } from '../harness/partner-onboarding.js';
import { pollUntil } from '../harness/poll-until.js';
import { type ServiceStack, startStack } from '../harness/service-stack.js';
import { type EffectReader, openEffectReader } from './effect-count.js';
import { type GatewayRotation, gatewayRotation } from './gateway-rotation.js';
import { type KeyedRequest, sendKeyed } from './keyed-request.js';
import { type KeyedWrite, type LoadCatalogue, ADJUSTMENTS, planKeyedWrites, planKills, requestForWrite, runUnderKills, settle, tallyOf } from './keyed-write-load.js';
import { type ActivityWatch, holdRowLock, watchActivity } from './postgres-locks.js';
import { crashSeed, seededRandom } from './seeded-random.js';

const dialects = await e2eDialects();
const seed = crashSeed();
console.log(`[crash] seed ${seed} (replay with CRASH_SEED=${seed})`);

const OPENING_GOOD = 1000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(dialects)('[%s] Idempotency-Key writes under kill -9 of the gateway', (dialect) => {
  const LEASE_MS = 3000;
  const GATEWAY_ENV = { IDEMPOTENCY_CLAIM_LEASE_MS: String(LEASE_MS), REQUEST_DEADLINE_MS: '2000' };
  const WRITES = 300;
  const KILLS = 4;
  let stack: ServiceStack | undefined;
  let rotation: GatewayRotation | undefined;
  let reader: EffectReader | undefined;
  let partner: OnboardedPartner;
  let catalogue: LoadCatalogue;

  showOutputOnFailure(() => [...(rotation?.all() ?? [stack?.gateway]), stack?.internalApi], 40);

  beforeAll(async () => {
    stack = await startStack(dialect, { gatewayEnv: GATEWAY_ENV });
    partner = await onboardPartner(stack.internal, gatewayClient(stack.gateway.url), { label: 'Crash', tier: 'large', locations: 2 });
    const tenant = partner.tenants[0]!;
    const products = await createProducts(stack.internal, tenant.id, 8, 'CRASH');
    for (const product of products) await recordOpening(stack.internal, tenant.id, tenant.locationIds[0]!, product.id, { good: String(OPENING_GOOD) }, `OPEN-${product.id}`);
    catalogue = { apiKey: partner.key, tenant: tenant.id, locationIds: [tenant.locationIds[0]!, tenant.locationIds[1]!], productIds: products.map((p) => p.id) };
    reader = openEffectReader(stack.database.url);
  });

  afterAll(async () => {
    await reader?.close();
    await stopAfterLedgerCheck(stack);
  });

  it(`${WRITES} keyed writes from 8 clients, ${KILLS} kills at random moments, every unanswered write retried with its key: exactly one effect per key`, async () => {
    const random = seededRandom(seed);
    const writes = planKeyedWrites(random, catalogue, WRITES, `${dialect}-${seed}`);
    const kills = planKills(random, WRITES, KILLS);
    console.log(`[crash] ${dialect} kill plan ${JSON.stringify(kills)}`);
    const live = stack!;
    rotation = await gatewayRotation(live.gateway, () => live.startGateway({ env: GATEWAY_ENV }));
    const options = { catalogue, rotation, answerWithinMs: 15_000 };

    await runUnderKills(writes, kills, { ...options, concurrency: 8 });
    await settle(writes, { ...options, leaseMs: LEASE_MS, concurrency: 4, timeoutMs: 60_000 });

    // Every write now has its definitive answer, and it is the success the plan expects.
    const wrongAnswers = writes
      .filter((w) => w.answer?.status !== (w.kind === 'approve' ? 200 : 201))
      .map((w) => `${w.key}: ${w.answer?.status} ${w.answer?.text.slice(0, 300)}`);
    expect(wrongAnswers, 'every write answered with its success').toEqual([]);

    const { adjustments, transfers, ledger } = await reader!.effects(catalogue.tenant);
    const creates = writes.filter((w) => w.kind === 'adjustment');
    const transferCreates = writes.filter((w) => w.kind === 'transfer');
    const approves = writes.filter((w) => w.kind === 'approve');

    // Exactly one record per create key, and it is the one the key's answer names.
    const adjustmentsByMarker = groupBy(adjustments, (a) => a.reason);
    const transfersByMarker = groupBy(transfers, (t) => t.referenceNumber);
    const doubledCreates = [...creates, ...transferCreates].filter((w) => ((w.kind === 'adjustment' ? adjustmentsByMarker : transfersByMarker).get(w.marker!)?.length ?? 0) > 1);
    const missing = [...creates, ...transferCreates].filter((w) => ((w.kind === 'adjustment' ? adjustmentsByMarker : transfersByMarker).get(w.marker!)?.length ?? 0) === 0);
    const idMismatch = creates
      .filter((w) => adjustmentsByMarker.get(w.marker!)?.[0]?.number !== w.documentId)
      .concat(transferCreates.filter((w) => transfersByMarker.get(w.marker!)?.[0]?.number !== w.documentId));
    const markers = new Set([...creates, ...transferCreates].map((w) => w.marker));
    const strangers = [...adjustments.map((a) => a.reason), ...transfers.map((t) => t.referenceNumber)].filter((m) => !markers.has(m));

    // Exactly one ledger row per line from each approval, none from an adjustment nobody approved.
    const ledgerByAdjustment = groupBy(ledger, (l) => l.causeId);
    const approvedNumbers = new Set(approves.map((w) => w.target!.documentId));
    const doubledApprovals = approves.filter((w) => (ledgerByAdjustment.get(w.target!.documentId!)?.length ?? 0) > (w.target!.body.items as unknown[]).length);
    const badApprovals = approves
      .map((w) => {
        const adjustment = adjustmentsByMarker.get(w.target!.marker!)?.[0];
        const rows = ledgerByAdjustment.get(w.target!.documentId!) ?? [];
        const expected = (w.target!.body.items as { product_id: string }[]).map((i) => Number(i.product_id)).sort((a, b) => a - b);
        const sign = w.target!.body.type === 'increase' ? 1 : -1;
        const problems = [
          adjustment?.status === 'approved' ? null : `status ${adjustment?.status}`,
          sameList(rows.map((r) => r.productId).sort((a, b) => a - b), expected) ? null : `ledger products ${rows.map((r) => r.productId).join(',')} for lines ${expected.join(',')}`,
          rows.every((r) => r.bucket === w.target!.body.stock_source && Math.sign(r.delta) === sign) ? null : `ledger rows ${JSON.stringify(rows)}`,
        ].filter((p) => p !== null);
        return problems.length === 0 ? null : `${w.key} (${w.target!.documentId}): ${problems.join('; ')}`;
      })
      .filter((p) => p !== null);
    const unapprovedWithEffects = adjustments.filter((a) => !approvedNumbers.has(a.number) && (a.status !== 'pending' || ledgerByAdjustment.has(a.number))).map((a) => `${a.number} ${a.status}`);

    const tally = { ...tallyOf(seed, writes, rotation), dialect, created: adjustments.length + transfers.length, doubled: doubledCreates.length + doubledApprovals.length };
    console.log(`[crash] ${dialect} ${JSON.stringify(tally)}`);

    expect(doubledCreates.map((w) => w.key), 'create keys with more than one record').toEqual([]);
    expect(doubledApprovals.map((w) => w.key), 'approve keys with more than one ledger row per line').toEqual([]);
    expect(missing.map((w) => w.key), 'create keys answered 201 without a committed record').toEqual([]);
    expect(idMismatch.map((w) => `${w.key}: answered ${w.documentId}`), "each key's answer names its record").toEqual([]);
    expect(strangers, 'records no key asked for').toEqual([]);
    expect(badApprovals, 'approvals applied once, line by line').toEqual([]);
    expect(unapprovedWithEffects, 'adjustments nobody approved are pending, without ledger rows').toEqual([]);
    expect(adjustments).toHaveLength(creates.length);
    expect(transfers).toHaveLength(transferCreates.length);

    // The stock is the opening plus exactly the approved lines, and the ledger sums to it.
    const expected = expectedStock(approves, catalogue.productIds);
    const gw = gatewayClient((await rotation.current()).url);
    for (const productId of catalogue.productIds) {
      const figures = await stockAt(gw, { key: partner.key, tenant: catalogue.tenant }, catalogue.locationIds[0], productId);
      expect({ productId, good: figures.good, damaged: figures.damaged, reserved: figures.reserved }).toEqual({ productId, ...expected.get(productId)!, reserved: 0 });
    }
    await expectLedgerBalanced(live);

    // Each key now replays its answer (same status, same id), whichever process answered first.
    const replays = await inParallel(writes, 8, async (write) => {
      const outcome = await sendKeyed((await rotation!.current()).url, requestForWrite(write, catalogue), 15_000);
      if (outcome.kind !== 'answered' || !outcome.replayed || outcome.res.status !== write.answer!.status) return `${write.key}: ${JSON.stringify(outcome).slice(0, 300)}`;
      if (write.kind !== 'approve' && String(outcome.res.body.data[write.kind === 'transfer' ? 'transfer' : 'adjustment'].id) !== write.documentId) return `${write.key}: replayed another id`;
      return null;
    });
    expect(replays.filter((r) => r !== null), 'every key replays its first answer').toEqual([]);

    // The run really crashed requests mid-flight, and nothing failed that timing cannot explain.
    expect(tally.kills).toBe(KILLS);
    expect(tally.lostWithGateway, 'requests lost with a killed gateway').toBeGreaterThan(0);
    expect(tally.serverErrors, 'answers 5xx other than 503').toBe(0);
    expect(tally.hangs, 'requests a live gateway never answered').toBe(0);
    expect(tally.lostOnLiveGateway, 'connections lost on a gateway nobody killed').toBe(0);
    expect(tally.doubled).toBe(0);
  }, 240_000);
});

// SQLite has no row locks that a second connection could hold to stop a transaction between two
// of its statements (a writer locks the whole file, claim included), so the forced window is
// shown on PostgreSQL only; the random kills above cover SQLite.
describe.each(dialects.filter((d) => d === 'postgres'))('[%s] the window between the work and its stored response', (dialect) => {
  const LEASE_MS = 20_000;
  const GATEWAY_ENV = { REQUEST_DEADLINE_MS: '8000', IDEMPOTENCY_CLAIM_LEASE_MS: String(LEASE_MS), DB_STATEMENT_TIMEOUT_MS: '8000' };
  /** How long a duplicate waits for a running claim before it is told "still in progress" (the gateway's fixed wait). */
  const DUPLICATE_WAIT_MS = 5000;
  let stack: ServiceStack | undefined;
  let reader: EffectReader | undefined;
  let watch: ActivityWatch | undefined;
  const extra: ChildService[] = [];
  let partner: OnboardedPartner;
  let tenantId: string;
  let locationId: number;
  let productId: number;

  showOutputOnFailure(() => [stack?.gateway, ...extra, stack?.internalApi], 60);

  beforeAll(async () => {
    stack = await startStack(dialect, { gatewayEnv: GATEWAY_ENV });
    partner = await onboardPartner(stack.internal, gatewayClient(stack.gateway.url), { label: 'Window', tier: 'large' });
    tenantId = partner.tenants[0]!.id;
    locationId = partner.tenants[0]!.locationIds[0]!;
    const [product] = await createProducts(stack.internal, tenantId, 1, 'WINDOW');
    productId = product!.id;
    await recordOpening(stack.internal, tenantId, locationId, productId, { good: '50' }, 'OPEN-WINDOW');
    // The tenant's ADJ sequence row exists from here on, so a test can lock it.
    const warmUp = await sendKeyed(stack.gateway.url, createRequest('warm-up'), 15_000);
    expect(warmUp.kind === 'answered' && warmUp.res.status, JSON.stringify(warmUp).slice(0, 300)).toBe(201);
    reader = openEffectReader(stack.database.url);
    watch = await watchActivity(stack.database.url);
  });

  afterAll(async () => {
    await watch?.close();
    await reader?.close();
    await stopAfterLedgerCheck(stack);
  });

  function createRequest(marker: string, key = `window-${randomUUID()}`): KeyedRequest {
    return {
      method: 'POST',
      path: ADJUSTMENTS,
      template: ADJUSTMENTS,
      apiKey: partner.key,
      tenant: tenantId,
      idempotencyKey: key,
      body: { location_id: locationId, type: 'increase', stock_source: 'good', reason: marker, items: [{ product_id: String(productId), quantity: 2, unit_cost: 1 }] },
    };
  }

  const lockSequence = () =>
    holdRowLock(stack!.database.url, 'sequence', `select last_value from document_sequences where tenant_id = $1 and prefix = 'ADJ' for update`, [tenantId]);

  const claimOf = (key: string) =>
    pollUntil(`the in_progress claim of ${key}`, 10_000, async () => {
      const record = await reader!.idempotencyRecord(partner.id, key);
      return record?.state === 'in_progress' ? record : undefined;
    });

  /** The gateway's backend waiting on a row lock while running the statement `pattern` matches. */
  const waitingOn = (gateway: ChildService, pattern: RegExp, what: string) =>
    pollUntil(`${gateway.name} ${gateway.pid} waits on a lock in ${what}`, 5000, async () =>
      (await watch!.gatewayBackends(gateway.pid)).find((b) => b.waitEventType === 'Lock' && pattern.test(b.query)),
    );

  const created = (outcome: Awaited<ReturnType<typeof sendKeyed>>): string => {
    expect(outcome.kind, JSON.stringify(outcome).slice(0, 400)).toBe('answered');
    if (outcome.kind !== 'answered') throw new Error('unreachable');
    expect(outcome.res.status, outcome.res.text).toBe(201);
    return String(outcome.res.body.data.adjustment.id);
  };

  it('work done, response not yet stored, kill -9: nothing committed; a retry after the claim lease creates exactly one adjustment', async () => {
    const marker = `forced window ${randomUUID()}`;
    const request = createRequest(marker);
    const victim = stack!.gateway;

    // Stop the create at its sequence number, after its claim committed.
    const sequence = await lockSequence();
    expect(sequence.rows, 'the ADJ sequence row to hold').toHaveLength(1);
    const lost = sendKeyed(victim.url, request, 60_000);
    const claim = await claimOf(request.idempotencyKey);
    await waitingOn(victim, /document_sequences/i, 'the sequence upsert');

    // Let the work run, but hold the claim row so storing the response (its UPDATE) must wait.
    const claimRow = await holdRowLock(stack!.database.url, 'claim', 'select state, claim_token from idempotency_records where partner_id = $1 and key = $2 for update', [
      partner.id,
      request.idempotencyKey,
    ]);
    expect(claimRow.rows).toEqual([{ state: 'in_progress', claim_token: claim.claimToken }]);
    await sequence.release();
    const storing = await waitingOn(victim, /^update "idempotency_records"/i, 'storing the response');
    expect(storing.query).toMatch(/"claim_token" = \$\d/);
    // Its transaction has already written the adjustment and its lines (uncommitted, so invisible to others).
    expect(await watch!.tablesLockedBy(storing.pid)).toEqual(expect.arrayContaining(['adjustments', 'adjustment_items', 'document_sequences']));
    expect(await reader!.adjustmentsWithReason(tenantId, marker)).toEqual([]);

    // The adjustment is written in the gateway's open transaction; kill the process right there.
    const exit = await victim.kill('SIGKILL');
    expect(exit.signal).toBe('SIGKILL');
    const outcome = await lost;
    expect(outcome.kind, 'the killed request got no answer').toBe('unanswered');
    await claimRow.release();
    await pollUntil(`the killed gateway's backends are gone`, 15_000, async () => ((await watch!.gatewayBackends(victim.pid)).length === 0 ? true : undefined));

    expect(await reader!.adjustmentsWithReason(tenantId, marker), 'the work did not commit without its stored response').toEqual([]);
    expect(await reader!.idempotencyRecord(partner.id, request.idempotencyKey)).toMatchObject({ state: 'in_progress', claimToken: claim.claimToken });

    // A new gateway on the same database: inside the lease the key is still held...
    const successor = await stack!.startGateway({ env: GATEWAY_ENV });
    extra.push(successor);
    const sentAt = Date.now();
    expect(sentAt + DUPLICATE_WAIT_MS + 2000, 'the early retry has time to be told "still in progress" before the lease ends').toBeLessThan(claim.claimedAt + LEASE_MS);
    const early = await sendKeyed(successor.url, request, 30_000);
    expect(early.kind === 'later' && early.reason, JSON.stringify(early).slice(0, 400)).toBe('in_progress');
    if (early.kind === 'later') expectError(early.res, 'IDEMPOTENCY_KEY_REUSED', 'Idempotency-Key');
    expect(await reader!.adjustmentsWithReason(tenantId, marker)).toEqual([]);

    // ...after it, the retry does the work for the first time.
    await sleep(Math.max(0, claim.claimedAt + LEASE_MS + 250 - Date.now()));
    const retry = await sendKeyed(successor.url, request, 30_000);
    const id = created(retry);
    expect(retry.kind === 'answered' && retry.replayed, 'the first completed attempt is not a replay').toBe(false);
    const rows = await reader!.adjustmentsWithReason(tenantId, marker);
    expect(rows.map((r) => r.number)).toEqual([id]);
    expect(await reader!.idempotencyRecord(partner.id, request.idempotencyKey)).toMatchObject({ state: 'complete', claimToken: null, statusCode: 201 });

    const replay = await sendKeyed(successor.url, request, 30_000);
    expect(created(replay)).toBe(id);
    expect(replay.kind === 'answered' && replay.replayed, 'Idempotent-Replayed: true').toBe(true);
    expect(await reader!.adjustmentsWithReason(tenantId, marker)).toHaveLength(1);
    await expectLedgerBalanced(stack!);
  }, 120_000);

  it("a claim taken over after its lease cannot complete: the old request's work rolls back and the new one commits once", async () => {
    // The old gateway would wait far longer than the new one's lease; the new one takes over.
    const slow = await stack!.startGateway({ name: 'gateway-slow', env: { REQUEST_DEADLINE_MS: '30000', IDEMPOTENCY_CLAIM_LEASE_MS: '31000', DB_STATEMENT_TIMEOUT_MS: '30000' } });
    extra.push(slow);
    const QUICK_LEASE_MS = 4500;
    const quick = await stack!.startGateway({ name: 'gateway-quick', env: { REQUEST_DEADLINE_MS: '4000', IDEMPOTENCY_CLAIM_LEASE_MS: String(QUICK_LEASE_MS) } });
    extra.push(quick);
    const marker = `stale claim ${randomUUID()}`;
    const request = createRequest(marker);

    const sequence = await lockSequence();
    const old = sendKeyed(slow.url, request, 60_000);
    const claim = await claimOf(request.idempotencyKey);
    await waitingOn(slow, /document_sequences/i, 'the sequence upsert');

    await sleep(Math.max(0, claim.claimedAt + QUICK_LEASE_MS + 250 - Date.now()));
    const newer = sendKeyed(quick.url, request, 60_000);
    const takenOver = await pollUntil('the claim taken over by the quick gateway', 5000, async () => {
      const record = await reader!.idempotencyRecord(partner.id, request.idempotencyKey);
      return record !== undefined && record.claimToken !== claim.claimToken ? record : undefined;
    });
    expect(takenOver).toMatchObject({ state: 'in_progress' });
    expect(takenOver.claimedAt).toBeGreaterThan(claim.claimedAt);
    await sequence.release();

    const [oldOutcome, newOutcome] = await Promise.all([old, newer]);
    // The old request did its work but no longer held the key: nothing of it committed.
    expect(oldOutcome.kind === 'later' && oldOutcome.reason, JSON.stringify(oldOutcome).slice(0, 400)).toBe('unavailable');
    if (oldOutcome.kind === 'later') {
      expectError(oldOutcome.res, 'SERVICE_UNAVAILABLE', 'Idempotency-Key');
      expect(oldOutcome.res.body.error.message).toMatch(/another request took over/);
    }
    const id = created(newOutcome);
    expect((await reader!.adjustmentsWithReason(tenantId, marker)).map((r) => r.number)).toEqual([id]);
    expect(await reader!.idempotencyRecord(partner.id, request.idempotencyKey)).toMatchObject({ state: 'complete', statusCode: 201 });

    // Asked again where it first went, the key replays the new request's result.
    const replay = await sendKeyed(slow.url, request, 30_000);
    expect(created(replay)).toBe(id);
    expect(replay.kind === 'answered' && replay.replayed).toBe(true);
    await expectLedgerBalanced(stack!);
  }, 120_000);
});

function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    groups.set(key, [...(groups.get(key) ?? []), item]);
  }
  return groups;
}

function sameList(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/** Opening stock plus every approved line, per product at the adjustments' location. */
function expectedStock(approves: readonly KeyedWrite[], productIds: readonly number[]): Map<number, { good: number; damaged: number }> {
  const stock = new Map(productIds.map((id) => [id, { good: OPENING_GOOD, damaged: 0 }]));
  for (const approve of approves) {
    const body = approve.target!.body as { type: string; stock_source: 'good' | 'damaged'; items: { product_id: string; quantity: number }[] };
    for (const item of body.items) stock.get(Number(item.product_id))![body.stock_source] += body.type === 'increase' ? item.quantity : -item.quantity;
  }
  return stock;
}

async function inParallel<T, R>(items: readonly T[], concurrency: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (;;) {
        const index = next;
        const item = items[index];
        if (item === undefined) return;
        next += 1;
        results[index] = await work(item);
      }
    }),
  );
  return results;
}
