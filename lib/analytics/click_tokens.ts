/**
 * Click tokens: a search's results each carry `click`, a MAC of (site, query, result URL)
 * under a secret the instances share in KV. A click event counts only with the token of a
 * result the service served for that query, so nobody can plant "clicks" (and with them the
 * owner's pin suggestions) for pages the service never showed for a query.
 */
import { normalizeQuery } from "./keys.ts";
import { constantTimeEqual } from "../sites/keys.ts";
import { hmacSha256 } from "./hmac.ts";

const SECRET_KEY = ["config", "clickSecret"];
/** 128 bits of the MAC, base64url: short on the wire, far past guessing. */
const TOKEN_CHARS = 22;

export class ClickTokens {
  #secret: Promise<string> | null = null;
  /** The MAC under the secret, made once it is read. */
  #mac: ((message: Uint8Array) => Uint8Array) | null = null;

  constructor(private kv: Deno.Kv) {}

  /** The shared secret, made by the first instance that needs it (an atomic check). */
  #load(): Promise<string> {
    this.#secret ??= (async () => {
      for (let attempt = 0; attempt < 5; attempt++) {
        const entry = await this.kv.get<string>(SECRET_KEY);
        if (entry.value) return entry.value;
        const made = crypto.getRandomValues(new Uint8Array(32)).toBase64();
        const res = await this.kv.atomic().check(entry).set(SECRET_KEY, made).commit();
        if (res.ok) return made;
      }
      throw new Error("The click secret could not be read or made.");
    })();
    this.#secret.catch(() => (this.#secret = null)); // tried again on the next search
    return this.#secret;
  }

  async #macOf(): Promise<(message: Uint8Array) => Uint8Array> {
    return this.#mac ??= hmacSha256(encoder.encode(await this.#load()));
  }

  /** A signer for one search's results: the secret is read once for all of them. */
  async signer(siteId: string, query: string): Promise<(url: string) => string> {
    const mac = this.#mac ?? await this.#macOf();
    const q = normalizeQuery(query);
    return (url) => token(mac, siteId, q, url);
  }

  /** Whether `given` is the token the service gave the result `url` of `query` on this site. */
  async verify(siteId: string, query: string, url: string, given: string | undefined) {
    if (!given || given.length !== TOKEN_CHARS) return false;
    const mac = await this.#macOf();
    return constantTimeEqual(token(mac, siteId, normalizeQuery(query), url), given);
  }
}

const encoder = new TextEncoder();

function token(mac: (m: Uint8Array) => Uint8Array, siteId: string, q: string, url: string) {
  // JSON keeps the three parts apart whatever characters they hold.
  return mac(encoder.encode(JSON.stringify([siteId, q, url]))).subarray(0, 16).toBase64({
    alphabet: "base64url",
    omitPadding: true,
  });
}
