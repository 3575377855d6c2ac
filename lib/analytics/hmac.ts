/**
 * HMAC-SHA-256 under one key, for many short messages: the key's inner and outer blocks are
 * hashed once, so a message of up to 55 bytes costs three compressions, where node:crypto's
 * createHmac spends several times that in object creation and op calls. A search signs each
 * of its results with it (click_tokens.ts) into buffers it reuses; a test compares its
 * digests with node:crypto's.
 */

const K = new Int32Array([
  0x428a2f98,
  0x71374491,
  0xb5c0fbcf,
  0xe9b5dba5,
  0x3956c25b,
  0x59f111f1,
  0x923f82a4,
  0xab1c5ed5,
  0xd807aa98,
  0x12835b01,
  0x243185be,
  0x550c7dc3,
  0x72be5d74,
  0x80deb1fe,
  0x9bdc06a7,
  0xc19bf174,
  0xe49b69c1,
  0xefbe4786,
  0x0fc19dc6,
  0x240ca1cc,
  0x2de92c6f,
  0x4a7484aa,
  0x5cb0a9dc,
  0x76f988da,
  0x983e5152,
  0xa831c66d,
  0xb00327c8,
  0xbf597fc7,
  0xc6e00bf3,
  0xd5a79147,
  0x06ca6351,
  0x14292967,
  0x27b70a85,
  0x2e1b2138,
  0x4d2c6dfc,
  0x53380d13,
  0x650a7354,
  0x766a0abb,
  0x81c2c92e,
  0x92722c85,
  0xa2bfe8a1,
  0xa81a664b,
  0xc24b8b70,
  0xc76c51a3,
  0xd192e819,
  0xd6990624,
  0xf40e3585,
  0x106aa070,
  0x19a4c116,
  0x1e376c08,
  0x2748774c,
  0x34b0bcb5,
  0x391c0cb3,
  0x4ed8aa4a,
  0x5b9cca4f,
  0x682e6ff3,
  0x748f82ee,
  0x78a5636f,
  0x84c87814,
  0x8cc70208,
  0x90befffa,
  0xa4506ceb,
  0xbef9a3f7,
  0xc67178f2,
]);
const INITIAL = new Int32Array([
  0x6a09e667,
  0xbb67ae85,
  0x3c6ef372,
  0xa54ff53a,
  0x510e527f,
  0x9b05688c,
  0x1f83d9ab,
  0x5be0cd19,
]);
// Int32 all through: V8 keeps the arithmetic in small integers (no heap numbers).
const W = new Int32Array(64);

/** One SHA-256 compression of the 64 bytes of `block` at `at` into `state`. */
function compress(state: Int32Array, block: Uint8Array, at: number) {
  for (let i = 0; i < 16; i++) {
    const j = at + 4 * i;
    W[i] = (block[j] << 24) | (block[j + 1] << 16) | (block[j + 2] << 8) | block[j + 3];
  }
  for (let i = 16; i < 64; i++) {
    const x = W[i - 15], y = W[i - 2];
    const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
    const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
    W[i] = (W[i - 16] + s0 + W[i - 7] + s1) | 0;
  }
  let a = state[0], b = state[1], c = state[2], d = state[3];
  let e = state[4], f = state[5], g = state[6], h = state[7];
  for (let i = 0; i < 64; i++) {
    const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (h + S1 + ((e & f) ^ (~e & g)) + K[i] + W[i]) | 0;
    const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  state[0] = (state[0] + a) | 0;
  state[1] = (state[1] + b) | 0;
  state[2] = (state[2] + c) | 0;
  state[3] = (state[3] + d) | 0;
  state[4] = (state[4] + e) | 0;
  state[5] = (state[5] + f) | 0;
  state[6] = (state[6] + g) | 0;
  state[7] = (state[7] + h) | 0;
}

/** A message padded to whole blocks, reused by every digest (grown for a longer one). */
let padded = new Uint8Array(256);

/**
 * SHA-256 of the first `length` bytes of `message`, continued from `state` after `done` bytes
 * (whole blocks) were hashed; its eight words are written to `out`. Nothing is allocated: a
 * search signs each of its results, and typed arrays made per digest cost more than hashing.
 */
function finish(
  state: Int32Array,
  done: number,
  message: Uint8Array,
  length: number,
  out: Int32Array,
) {
  const size = Math.ceil((length + 9) / 64) * 64;
  if (padded.length < size) padded = new Uint8Array(size);
  if (length === message.length) padded.set(message);
  else for (let i = 0; i < length; i++) padded[i] = message[i];
  padded[length] = 0x80;
  padded.fill(0, length + 1, size - 8);
  const bits = (done + length) * 8, high = Math.floor(bits / 2 ** 32), low = bits >>> 0;
  for (let i = 0; i < 4; i++) {
    padded[size - 8 + i] = (high >>> (24 - 8 * i)) & 0xff;
    padded[size - 4 + i] = (low >>> (24 - 8 * i)) & 0xff;
  }
  for (let i = 0; i < 8; i++) out[i] = state[i];
  for (let at = 0; at < size; at += 64) compress(out, padded, at);
}

/** The eight words of a digest as its 32 bytes, into `out`. */
function wordsInto(words: Int32Array, out: Uint8Array) {
  for (let i = 0; i < 8; i++) {
    const w = words[i], j = 4 * i;
    out[j] = w >>> 24;
    out[j + 1] = (w >>> 16) & 0xff;
    out[j + 2] = (w >>> 8) & 0xff;
    out[j + 3] = w & 0xff;
  }
}

/** An HMAC-SHA-256 under one key. */
export interface Mac {
  /** The MAC of `message`, as a new array of 32 bytes. */
  (message: Uint8Array): Uint8Array;
  /** The MAC of `message`'s first `length` bytes, written to `out` (32 bytes): nothing allocated. */
  into(message: Uint8Array, length: number, out: Uint8Array): void;
}

/** The HMAC-SHA-256 of messages under `key`. */
export function hmacSha256(key: Uint8Array): Mac {
  const words = new Int32Array(8), inner = new Uint8Array(32);
  let k = key;
  if (key.length > 64) {
    finish(INITIAL, 0, key, key.length, words);
    wordsInto(words, k = new Uint8Array(32));
  }
  const keyed = (pad: number) => {
    const block = new Uint8Array(64).fill(pad);
    for (let i = 0; i < k.length; i++) block[i] ^= k[i];
    const state = INITIAL.slice();
    compress(state, block, 0);
    return state;
  };
  const innerState = keyed(0x36), outerState = keyed(0x5c);
  const into = (message: Uint8Array, length: number, out: Uint8Array) => {
    finish(innerState, 64, message, length, words);
    wordsInto(words, inner);
    finish(outerState, 64, inner, 32, words);
    wordsInto(words, out);
  };
  return Object.assign((message: Uint8Array) => {
    const out = new Uint8Array(32);
    into(message, message.length, out);
    return out;
  }, { into });
}
