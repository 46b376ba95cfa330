// Minimal synchronous SHA-256 (FIPS 180-4) so the engine stays pure and bundles for the browser.

const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

const INITIAL = new Int32Array([
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
]);

const W = new Int32Array(64);

const rotr = (x: number, n: number): number => (x >>> n) | (x << (32 - n));

/** Runs the compression function on W[0..15] (the block), updating the eight state words in place. */
function compress(h: Int32Array): void {
  for (let i = 16; i < 64; i++) {
    const w15 = W[i - 15]!;
    const w2 = W[i - 2]!;
    const s0 = rotr(w15, 7) ^ rotr(w15, 18) ^ (w15 >>> 3);
    const s1 = rotr(w2, 17) ^ rotr(w2, 19) ^ (w2 >>> 10);
    W[i] = (W[i - 16]! + s0 + W[i - 7]! + s1) | 0;
  }
  let a = h[0]!;
  let b = h[1]!;
  let c = h[2]!;
  let d = h[3]!;
  let e = h[4]!;
  let f = h[5]!;
  let g = h[6]!;
  let hh = h[7]!;
  for (let i = 0; i < 64; i++) {
    const s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
    const ch = (e & f) ^ (~e & g);
    const t1 = (hh + s1 + ch + K[i]! + W[i]!) | 0;
    const s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
    const maj = (a & b) ^ (a & c) ^ (b & c);
    const t2 = (s0 + maj) | 0;
    hh = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  h[0] = (h[0]! + a) | 0;
  h[1] = (h[1]! + b) | 0;
  h[2] = (h[2]! + c) | 0;
  h[3] = (h[3]! + d) | 0;
  h[4] = (h[4]! + e) | 0;
  h[5] = (h[5]! + f) | 0;
  h[6] = (h[6]! + g) | 0;
  h[7] = (h[7]! + hh) | 0;
}

const state = new Int32Array(8);

/** SHA-256 digest of bytes as eight signed 32-bit words (big-endian word order). Reuses one result buffer. */
export function sha256Words(bytes: Uint8Array): Int32Array {
  const len = bytes.length;
  const blocks = (len + 9 + 63) >> 6;
  state.set(INITIAL);
  for (let blk = 0; blk < blocks; blk++) {
    for (let i = 0; i < 16; i++) {
      let word = 0;
      for (let k = 0; k < 4; k++) {
        const pos = blk * 64 + i * 4 + k;
        let byte = 0;
        if (pos < len) byte = bytes[pos]!;
        else if (pos === len) byte = 0x80;
        word = (word << 8) | byte;
      }
      W[i] = word;
    }
    if (blk === blocks - 1) {
      W[14] = Math.floor((len * 8) / 0x1_0000_0000);
      W[15] = (len * 8) | 0;
    }
    compress(state);
  }
  return state;
}

const encoder = new TextEncoder();

/**
 * SHA-256 of a UTF-8 string; returns the shared state buffer (copy it if you keep it). Single-block ASCII input
 * (the usual "<label>\n<job name>") is packed straight from char codes.
 */
export function sha256OfString(text: string): Int32Array {
  const len = text.length;
  if (len > 55) return sha256Words(encoder.encode(text));
  let word = 0;
  let wi = 0;
  for (let i = 0; i < 64; i++) {
    let byte: number;
    if (i < len) {
      byte = text.charCodeAt(i);
      if (byte > 0x7f) return sha256Words(encoder.encode(text));
    } else byte = i === len ? 0x80 : 0;
    word = (word << 8) | byte;
    if ((i & 3) === 3) {
      W[wi++] = word;
      word = 0;
    }
  }
  W[15] = len * 8;
  state.set(INITIAL);
  compress(state);
  return state;
}

/** Lower-case hex of the SHA-256 digest of a UTF-8 string. */
export function sha256Hex(text: string): string {
  let out = '';
  for (const w of sha256OfString(text)) out += (w >>> 0).toString(16).padStart(8, '0');
  return out;
}
