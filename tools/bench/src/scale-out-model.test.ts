import { describe, expect, it } from 'vitest';
import { connectionBudget, coresUsed, counted, gatewayCoresPerDatabaseCore, meanOf, perCore, pooledCpuUs, ratio, summaryLine } from './scale-out-model.js';

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
  });
});
