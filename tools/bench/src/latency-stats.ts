// Percentiles of measured delays, shared by the benchmarks that report lateness (bench:expiry,
// bench:flash-sale).

/**
 * Nearest-rank percentile of ascending values; NaN when there are none.
 *
 * @example percentile([1, 2, 3, 4], 50) // 2
 */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
