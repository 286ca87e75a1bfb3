/** A PRNG (mulberry32) returning uniform numbers in [0, 1); see rng.mjs. */
export function rng(seed: number): () => number;
