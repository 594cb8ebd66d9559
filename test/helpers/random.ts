/**
 * A seeded generator (linear congruential): the same sequence on every run, so a randomized test
 * that fails once fails again. Numbers in [0, 1), like Math.random.
 */
export function seededRandom(seed: number): () => number {
  let state = seed
  return () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
}

/** Whole numbers in [0, n) from `seededRandom(seed)`. */
export function seededIntegers(seed: number): (n: number) => number {
  const next = seededRandom(seed)
  return (n) => Math.floor(next() * n)
}
