import { describe, expect, it } from 'vitest';
import { type RunFigures, connectionBudget, coresUsed, counted, gatewayCoresPerDatabaseCore, meanOf, mergeRuns, pacedRate, perCore, perServed, pooledCpuUs, ratio, runOrder, summaryLine } from './scale-out-model.js';

describe('scale-out capacity model', () => {
  it('pools CPU per request over runs by their requests, not as a mean of the runs', () => {
    // 1,000 requests at 400 us and 3,000 at 800 us: 3.2 s of CPU over 4,000 requests.
    expect(pooledCpuUs([{ requests: 1000, cpuUs: 400 }, { requests: 3000, cpuUs: 800 }])).toBe(700);
    expect(pooledCpuUs([{ requests: 1000, cpuUs: 400 }, { requests: 10, cpuUs: null }])).toBeNull();
    expect(pooledCpuUs([{ requests: 0, cpuUs: 400 }])).toBeNull();
    expect(pooledCpuUs([])).toBeNull();
  });

  it('turns CPU per request into requests per second per core, and cores used at a rate', () => {
    expect(perCore(500)).toBe(2000);
    expect(perCore(1250)).toBe(800);
    expect(perCore(null)).toBeNull();
    expect(perCore(0)).toBeNull();
    expect(coresUsed(500, 3000)).toBe(1.5);
    expect(coresUsed(null, 3000)).toBeNull();
  });

  it('says how many gateway cores one PostgreSQL core keeps busy', () => {
    // The gateway spends 900 us on a request PostgreSQL serves in 300 us: three gateway cores per database core.
    expect(gatewayCoresPerDatabaseCore(900, 300)).toBe(3);
    expect(gatewayCoresPerDatabaseCore(900, null)).toBeNull();
  });

  it('compares against the 1-process figure and averages only the figures that exist', () => {
    expect(ratio(1080, 1000)).toBeCloseTo(1.08);
    expect(ratio(1080, null)).toBeNull();
    expect(ratio(1080, 0)).toBeNull();
    expect(meanOf([1, 1.1, null, 1.2])).toBeCloseTo(1.1);
    expect(meanOf([null])).toBeNull();
  });

  it('shares the connection budget left after the reserve and the other processes', () => {
    expect(connectionBudget({ maxConnections: 100, reserved: 3, others: 20, processes: 3, poolSize: 10 })).toEqual({ available: 77, perProcess: 25, processesAtPool: 7 });
    expect(connectionBudget({ maxConnections: 100, reserved: 3, others: 20, processes: 8, poolSize: 10 }).perProcess).toBe(9);
    expect(connectionBudget({ maxConnections: 10, reserved: 3, others: 20, processes: 1, poolSize: 10 })).toEqual({ available: 0, perProcess: 0, processesAtPool: 0 });
  });

  it('counts the hits Redis took, including counters of a window that began during the run', () => {
    const before = new Map([['p:1:60000', 40], ['p:2:60000', 5]]);
    const after = new Map([['p:1:60000', 90], ['p:2:60000', 5], ['p:1:120000', 7]]);
    expect(counted(before, after)).toBe(57);
  });

  it('ends on the line the issue asks for', () => {
    const ratios = new Map<number, number | null>([[1, 1], [2, 1.034], [3, 1.0861]]);
    expect(summaryLine(ratios, 42.4)).toBe('scale-out: gateway CPU/request 2p/1p = 1.03, 3p/1p = 1.09; redis adds 42 us/request');
    expect(summaryLine(new Map([[1, 1]]), null)).toBe('scale-out: gateway CPU/request n/a; redis adds n/a');
    expect(summaryLine(ratios, 25, { share: 0.4, ratios: new Map([[1, 1], [2, 0.98], [3, null]]) })).toBe(
      "scale-out: gateway CPU/request 2p/1p = 1.03, 3p/1p = 1.09; paced at 40 % of 1p's req/s per process: 2p/1p = 0.98, 3p/1p = n/a; redis adds 25 us/request",
    );
  });

  it('paces a run at a share of what one process served flat out, in whole requests per second', () => {
    expect(pacedRate(2400, 0.4)).toBe(960);
    expect(pacedRate(1234.6, 0.5)).toBe(617);
    expect(pacedRate(1, 0.1)).toBe(1);
    expect(pacedRate(null, 0.4)).toBeNull();
    expect(pacedRate(0, 0.4)).toBeNull();
    expect(pacedRate(2400, 0)).toBeNull();
    expect(pacedRate(2400, 1.5)).toBeNull();
  });
});

describe('merging the rounds of one configuration', () => {
  const run = (over: Partial<RunFigures>): RunFigures => ({ requestsPerSecond: 100, p50: 10, p99: 50, non2xx: 0, errors: 0, statusCodes: { 200: 500 }, requests: 500, sent: 500, cpuUs: 1000, dbCpuUs: 400, ...over });

  it('sums the counts, averages the rates, keeps the worst p99 and pools CPU by the requests sent', () => {
    const merged = mergeRuns([
      run({}),
      run({ requestsPerSecond: 300, p50: 20, p99: 90, non2xx: 2, statusCodes: { 200: 1500, 422: 2 }, requests: 1500, sent: 1502, cpuUs: 2000, dbCpuUs: null }),
    ]);
    expect(merged).toMatchObject({ requestsPerSecond: 200, p50: 15, p99: 90, non2xx: 2, errors: 0, statusCodes: { 200: 2000, 422: 2 }, requests: 2000, sent: 2002, dbCpuUs: null });
    expect(merged.cpuUs).toBeCloseTo((500 * 1000 + 1502 * 2000) / 2002);
    expect(() => mergeRuns([])).toThrow(/no runs/);
  });

  it('recounts a paced run over the requests served: the same CPU spread over fewer or more requests', () => {
    // autocannon at a fixed rate reported 1353 sent where the gateways served 1162.
    const recounted = perServed(run({ sent: 1353, cpuUs: 1000, dbCpuUs: null }), 1162);
    expect(recounted.sent).toBe(1162);
    expect(recounted.cpuUs).toBeCloseTo((1000 * 1353) / 1162);
    expect(recounted.dbCpuUs).toBeNull();
    expect(recounted.requestsPerSecond).toBe(100);
    expect(perServed(run({}), 0).cpuUs).toBeNull();
    expect(perServed(run({ sent: 0 }), 10).cpuUs).toBeNull();
  });

  it('runs the process counts forward, then backward, so drift falls on every count alike', () => {
    expect(runOrder([1, 2, 3], 2)).toEqual([1, 2, 3, 3, 2, 1]);
    expect(runOrder([1, 2, 3], 3)).toEqual([1, 2, 3, 3, 2, 1, 1, 2, 3]);
    expect(runOrder([1, 3], 1)).toEqual([1, 3]);
    // bench:inventory's rounds: the two sides alternate the same way.
    expect(runOrder(['gateway', 'bare'], 2)).toEqual(['gateway', 'bare', 'bare', 'gateway']);
  });
});
