/** Key formats of docs/api.md: generation, shape checks, hashing and constant-time comparison. */
import { createHash } from "node:crypto";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** `n` random base62 characters, without modulo bias. */
export function randomBase62(n: number): string {
  let out = "";
  while (out.length < n) {
    for (const b of crypto.getRandomValues(new Uint8Array(n * 2))) {
      if (b < 248 && out.length < n) out += BASE62[b % 62];
    }
  }
  return out;
}

export const newPublicKey = () => "pk_" + randomBase62(24);
export const newAdminKey = () => "sk_" + randomBase62(32);
export const newId = (prefix: string) => `${prefix}_${randomBase62(16)}`;

export const isPublicKey = (k: string) => /^pk_[0-9A-Za-z]{24}$/.test(k);
export const isAdminKey = (k: string) => /^sk_[0-9A-Za-z]{32}$/.test(k);

/** Hex SHA-256, how admin keys are stored. */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Hex SHA-256 computed at once, for the operator token checked on every admin call. */
export function sha256HexSync(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** Compares two strings in time that depends only on their lengths. */
export function constantTimeEqual(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}
