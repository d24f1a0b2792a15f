// A small deterministic generator (mulberry32) for randomised tests, so that a failure names a seed that reproduces it.

/** Numbers in [0, 1), the same sequence for the same seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `bytes` cut at random places: about a third of the pieces one byte long, the others up to `maxLength`. */
export function randomChunks(bytes: Buffer, r: () => number, maxLength: number): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  while (at < bytes.length) {
    const n = r() < 0.3 ? 1 : 1 + Math.floor(r() * maxLength);
    out.push(bytes.subarray(at, at + n));
    at += n;
  }
  return out;
}
