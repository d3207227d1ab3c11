// Percentiles of measured delays and timed calls, shared by the benchmarks (bench:expiry,
// bench:flash-sale, bench:history, bench:verify).

/**
 * Nearest-rank percentile of ascending values; NaN when there are none.
 *
 * @example percentile([1, 2, 3, 4], 50) // 2
 */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/**
 * Milliseconds of `times` calls of `run`, one after another, in ascending order, after `warmUps`
 * calls that are not counted.
 *
 * @example const samples = await timedCalls(() => verifyStock(db, tenantId), 200); percentile(samples, 50);
 */
export async function timedCalls(run: () => Promise<unknown>, times: number, warmUps = 0): Promise<number[]> {
  for (let i = 0; i < warmUps; i += 1) await run();
  const samples: number[] = [];
  for (let i = 0; i < times; i += 1) {
    const started = performance.now();
    await run();
    samples.push(performance.now() - started);
  }
  return samples.sort((a, b) => a - b);
}
