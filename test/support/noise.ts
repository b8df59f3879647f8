/**
 * Raw RGB noise from a xorshift generator: the same seed gives the same pixels, and noise compresses badly, so a JPEG
 * of it is as large as its dimensions make it (tests and benchmarks that need big, valid, distinct images).
 */
export function noiseRgb(width: number, height: number, seed = 0): { raw: Buffer; info: { raw: { width: number; height: number; channels: 3 } } } {
  const raw = Buffer.alloc(width * height * 3);
  let x = 2463534242 ^ seed;
  for (let p = 0; p < raw.length; p++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    raw[p] = x & 0xff;
  }
  return { raw, info: { raw: { width, height, channels: 3 } } };
}
