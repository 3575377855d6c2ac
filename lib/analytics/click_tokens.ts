/**
 * Click tokens: a search's results each carry `click`, a MAC of (site, query, result URL)
 * under a secret the instances share in KV. A click event counts only with the token of a
 * result the service served for that query, so nobody can plant "clicks" (and with them the
 * owner's pin suggestions) for pages the service never showed for a query.
 */
import { normalizeQuery } from "./keys.ts";
import { constantTimeEqual } from "../sites/keys.ts";
import { hmacSha256, type Mac } from "./hmac.ts";

const SECRET_KEY = ["config", "clickSecret"];
/** 128 bits of the MAC, base64url: short on the wire, far past guessing. */
const TOKEN_CHARS = 22;

export class ClickTokens {
  #secret: Promise<string> | null = null;
  /** The MAC under the secret, made once it is read. */
  #mac: Mac | null = null;

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

  async #macOf(): Promise<Mac> {
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
const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
/** A token's message and MAC, reused: a search signs its results one after another. */
let message = new Uint8Array(512);
const digest = new Uint8Array(32);

function token(mac: Mac, siteId: string, q: string, url: string) {
  // JSON keeps the three parts apart whatever characters they hold.
  const text = JSON.stringify([siteId, q, url]);
  const length = utf8Into(text); // first: it may grow `message`
  mac.into(message, length, digest);
  return base64url16(digest);
}

/** `text` as UTF-8 at the start of `message` (grown when short); how many bytes it took. */
function utf8Into(text: string): number {
  if (message.length < text.length * 3) message = new Uint8Array(text.length * 3);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) return encoder.encodeInto(text, message).written;
    message[i] = c;
  }
  return text.length;
}

/** The first 16 bytes of `bytes` in base64url without padding (22 characters). */
function base64url16(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < 15; i += 3) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out += BASE64URL[n >>> 18] + BASE64URL[(n >>> 12) & 63] + BASE64URL[(n >>> 6) & 63] +
      BASE64URL[n & 63];
  }
  return out + BASE64URL[bytes[15] >>> 2] + BASE64URL[(bytes[15] & 3) << 4];
}
