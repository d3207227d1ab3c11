// Reproducible randomness for the crash suite: the plan of writes and the kill moments come from
// one printed seed, so a failing run can be replayed with CRASH_SEED=<seed>.

/** A small deterministic generator (mulberry32) and the few draws the crash suite needs. */
export interface SeededRandom {
  readonly seed: number;
  /** Uniform in [0, 1). */
  next(): number;
  /** An integer in [min, max], both included. */
  int(min: number, max: number): number;
  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T;
  /** `count` distinct elements of `items`, in random order. */
  sample<T>(items: readonly T[], count: number): T[];
}

/**
 * @example
 * const random = seededRandom(crashSeed());
 * const delayMs = random.int(0, 40);
 */
export function seededRandom(seed: number): SeededRandom {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  return {
    seed,
    next,
    int,
    pick<T>(items: readonly T[]): T {
      if (items.length === 0) throw new Error('pick from an empty list');
      return items[int(0, items.length - 1)]!;
    },
    sample<T>(items: readonly T[], count: number): T[] {
      const pool = [...items];
      const chosen: T[] = [];
      while (chosen.length < count && pool.length > 0) chosen.push(pool.splice(int(0, pool.length - 1), 1)[0]!);
      return chosen;
    },
  };
}

/**
 * The seed of the generator numbered `stream` of a run: each party that draws (an order by its
 * index, the killer) gets its own, so what one draws does not depend on how many draws others made
 * before it, and a replay gives each party the same numbers whatever the timing.
 *
 * @example
 * const forOrder = (index: number) => seededRandom(streamSeed(seed, index + 1));
 * const killer = seededRandom(streamSeed(seed, 0));
 */
export function streamSeed(seed: number, stream: number): number {
  // The 32-bit finalizer of MurmurHash3 over the seed mixed with the stream number.
  let h = (seed ^ Math.imul(stream + 1, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * The seed of this run: CRASH_SEED when set (to replay a failure), else a fresh one.
 *
 * @example
 * const seed = crashSeed(); // CRASH_SEED=1234 npx vitest run src/crash
 */
export function crashSeed(): number {
  const given = process.env.CRASH_SEED;
  if (given !== undefined && given.trim() !== '') {
    const seed = Number(given);
    if (!Number.isSafeInteger(seed) || seed < 0) throw new Error(`CRASH_SEED must be a non-negative integer, got "${given}"`);
    return seed;
  }
  return Math.floor(Math.random() * 2 ** 31);
}
