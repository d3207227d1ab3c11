import { describe, expect, it } from 'vitest';
import { createProgress, eta, formatDuration } from './progress-reporter.js';

function target(isTTY: boolean, columns = 120) {
  const written: string[] = [];
  return { written, isTTY, columns, write: (text: string) => written.push(text) };
}

describe('createProgress', () => {
  it('redraws a bar with rows per second and the time left on a terminal, and clears it when done', () => {
    const out = target(true);
    let now = 0;
    const progress = createProgress('areas', out, { now: () => now });
    now = 50;
    progress.update(1000, 0.1);
    now = 2000;
    progress.update(40_000, 0.5);
    now = 32_000;
    progress.update(60_000, 0.8);
    progress.done(60_000);
    expect(out.written).toEqual([
      // Half the file in 2 s: 2 s to go.
      '\rareas [############------------]  50% 40,000 rows, 20,000 rows/s, ETA 0:02 ',
      // 80% in 32 s: 8 s to go.
      '\rareas [###################-----]  80% 60,000 rows, 1,875 rows/s, ETA 0:08 ',
      `\r${' '.repeat(75)}\r`,
    ]);
  });

  it('keeps the bar within a narrow terminal, so that it redraws in place', () => {
    const out = target(true, 40);
    let now = 0;
    const progress = createProgress('areas', out, { now: () => now });
    now = 1000;
    progress.update(10_000, 0.25);
    expect(out.written).toEqual(['\rareas [######------------------]  25% 1']);
  });

  it('writes plain lines with the time left every two seconds elsewhere', () => {
    const out = target(false);
    let now = 0;
    const progress = createProgress('products', out, { now: () => now });
    for (now = 500; now <= 4500; now += 500) progress.update(now * 10, now / 5000);
    progress.done(45_000);
    expect(out.written).toEqual([
      'products: 20000 rows (40%), 10,000 rows/s, ETA 0:03\n',
      'products: 40000 rows (80%), 10,000 rows/s, ETA 0:01\n',
    ]);
  });

  it('says the time left is unknown until some of the input is read', () => {
    const out = target(false);
    let now = 0;
    const progress = createProgress('areas', out, { now: () => now });
    now = 2000;
    progress.update(0, 0);
    now = 4000;
    progress.update(10);
    expect(out.written).toEqual(['areas: 0 rows (0%), 0 rows/s, ETA --:--\n', 'areas: 10 rows, 3 rows/s, ETA --:--\n']);
  });
});

describe('eta and formatDuration', () => {
  it.each([
    [0.25, 10_000, 'ETA 0:30'],
    [0.5, 130_000, 'ETA 2:10'],
    [0.01, 60_000, 'ETA 1:39:00'],
    [1, 5000, 'ETA 0:00'],
    [0, 5000, 'ETA --:--'],
    [undefined, 5000, 'ETA --:--'],
  ])('eta(%s, %s) is %s', (fraction, elapsed, text) => {
    expect(eta(fraction, elapsed)).toBe(text);
  });

  it('shows hours only from an hour on', () => {
    expect([formatDuration(0), formatDuration(59.6), formatDuration(3599), formatDuration(3600), formatDuration(36_061)]).toEqual(['0:00', '1:00', '59:59', '1:00:00', '10:01:01']);
  });
});
