import { describe, expect, it } from 'vitest';
import { createProgress } from './progress-reporter.js';

function target(isTTY: boolean) {
  const written: string[] = [];
  return { written, isTTY, columns: 40, write: (text: string) => written.push(text) };
}

describe('createProgress', () => {
  it('redraws a bar with rows per second on a terminal, and clears it when done', () => {
    const out = target(true);
    let now = 0;
    const progress = createProgress('areas', out, { now: () => now });
    now = 50;
    progress.update(1000, 0.1);
    now = 2000;
    progress.update(40_000, 0.5);
    progress.done(40_000);
    expect(out.written).toHaveLength(2);
    expect(out.written[0]).toBe('\rareas [############------------]  50% 40,000 rows, 20,000 rows/s ');
    expect(out.written[1]).toMatch(/^\r {40}\r$/);
  });

  it('writes plain lines every two seconds elsewhere', () => {
    const out = target(false);
    let now = 0;
    const progress = createProgress('products', out, { now: () => now });
    for (now = 500; now <= 4500; now += 500) progress.update(now * 10, now / 5000);
    progress.done(45_000);
    expect(out.written).toEqual(['products: 20000 rows (40%), 10,000 rows/s\n', 'products: 40000 rows (80%), 10,000 rows/s\n']);
  });
});
