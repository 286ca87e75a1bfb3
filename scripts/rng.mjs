// mulberry32: a small deterministic PRNG, shared by the fuzzer (scripts/fuzz.mjs) and the tests
// (test/helpers/data.ts) so that a seed means the same sequence in both.

/**
 * A PRNG (mulberry32) returning uniform numbers in [0, 1).
 * @param {number} seed 32-bit seed
 * @returns {() => number}
 */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
