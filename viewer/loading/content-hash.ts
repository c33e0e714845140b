/**
 * Identity of a file's bytes, for recent traces: two files with the same
 * name, size and device are told apart by content. Runs in the decode
 * worker, which already holds the bytes (the page never waits on it).
 */

/**
 * "sha256:<hex>" from WebCrypto, which only secure contexts (https,
 * localhost) have; elsewhere a 64-bit hash of our own ("mix64:<hex>"), not
 * cryptographic but as good for telling files apart.
 */
export async function contentHash(bytes: Uint8Array): Promise<string> {
  const subtle = globalThis.crypto?.subtle;
  if (subtle !== undefined) {
    try {
      return `sha256:${hex(new Uint8Array(await subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>)))}`;
    } catch {
      // Some browsers refuse very large inputs: fall through to our own hash.
    }
  }
  return mixHash64(bytes);
}

function hex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}

/** Two independent 32-bit murmur3-style lanes over the bytes' 32-bit words, then the tail and the length. */
export function mixHash64(bytes: Uint8Array): string {
  const wordCount = bytes.length >>> 2;
  const words = bytes.byteOffset % 4 === 0 ? new Uint32Array(bytes.buffer, bytes.byteOffset, wordCount) : new Uint32Array(bytes.slice(0, wordCount * 4).buffer);
  let h1 = 0x9747b28c;
  let h2 = 0x2c1b3c6d;
  for (let i = 0; i < wordCount; i++) {
    const w = words[i] as number;
    let k = Math.imul(w, 0xcc9e2d51);
    k = Math.imul((k << 15) | (k >>> 17), 0x1b873593);
    h1 ^= k;
    h1 = (Math.imul((h1 << 13) | (h1 >>> 19), 5) + 0xe6546b64) | 0;
    let j = Math.imul(w ^ i, 0x85ebca6b);
    j = Math.imul((j << 13) | (j >>> 19), 0xc2b2ae35);
    h2 ^= j;
    h2 = (Math.imul((h2 << 17) | (h2 >>> 15), 9) + 0x165667b1) | 0;
  }
  let tail = 0;
  for (let i = wordCount * 4; i < bytes.length; i++) tail = (tail << 8) | (bytes[i] as number);
  h1 = fmix(h1 ^ Math.imul(tail, 0xcc9e2d51) ^ bytes.length);
  h2 = fmix(h2 ^ Math.imul(tail, 0x85ebca6b) ^ Math.floor(bytes.length / 2 ** 32));
  return `mix64:${(h1 >>> 0).toString(16).padStart(8, '0')}${(h2 >>> 0).toString(16).padStart(8, '0')}`;
}

/** murmur3's finalizer: every input bit reaches every output bit. */
function fmix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}
