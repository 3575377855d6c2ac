/**
 * TRUSTED_PROXIES: the proxies in front of the service, as a list of CIDR blocks. A request
 * that reaches us from one of them has its client address taken from `X-Forwarded-For`: the
 * last hop that is not itself a trusted proxy (hops to its right were added by proxies we
 * trust; anything to its left the client could have written). Without the list the header is
 * never read, so no client can choose its own address for a per-address limit.
 */

/** Whether an address belongs to a trusted proxy. */
export type TrustedProxies = (address: string) => boolean;

/** An address as bytes: 4 for IPv4 (an IPv4-mapped IPv6 address too), 16 for IPv6; null if invalid. */
export function addressBytes(text: string): Uint8Array | null {
  const s = text.trim();
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (v4) {
    const parts = v4.slice(1).map(Number);
    return parts.every((n) => n <= 255) ? Uint8Array.from(parts) : null;
  }
  if (!s.includes(":") || !/^[0-9a-f:.]+$/i.test(s)) return null;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(s);
  if (mapped) return addressBytes(mapped[1]);
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const groups = (h: string) => h ? h.split(":") : [];
  const [left, right] = [groups(halves[0]), groups(halves[1] ?? "")];
  const missing = 8 - left.length - right.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const all = [...left, ...Array(halves.length === 2 ? missing : 0).fill("0"), ...right];
  if (all.some((g) => !/^[0-9a-f]{1,4}$/i.test(g))) return null;
  const bytes = new Uint8Array(16);
  all.forEach((g, i) => {
    const n = parseInt(g, 16);
    bytes[2 * i] = n >> 8;
    bytes[2 * i + 1] = n & 255;
  });
  return bytes;
}

/** Parses "10.0.0.0/8, 2001:db8::/32, 203.0.113.7"; throws an Error naming a bad entry. */
export function parseTrustedProxies(spec: string): TrustedProxies {
  const blocks = spec.split(/[\s,]+/).filter(Boolean).map((entry) => {
    const [addr, bits, extra] = entry.split("/");
    const bytes = addressBytes(addr);
    const prefix = bits === undefined ? (bytes?.length ?? 0) * 8 : Number(bits);
    if (
      !bytes || extra !== undefined || !Number.isInteger(prefix) || prefix < 0 ||
      prefix > bytes.length * 8 || (bits !== undefined && !/^\d+$/.test(bits))
    ) {
      throw new Error(
        `TRUSTED_PROXIES: ${JSON.stringify(entry)} is not an IP address or CIDR block.`,
      );
    }
    return { bytes, prefix };
  });
  return (address) => {
    const a = addressBytes(address);
    return a !== null && blocks.some((b) => a.length === b.bytes.length && within(a, b));
  };
}

function within(a: Uint8Array, b: { bytes: Uint8Array; prefix: number }): boolean {
  for (let bit = 0; bit < b.prefix; bit += 8) {
    const mask = b.prefix - bit >= 8 ? 255 : (255 << (8 - (b.prefix - bit))) & 255;
    if ((a[bit / 8] & mask) !== (b.bytes[bit / 8] & mask)) return false;
  }
  return true;
}

/** One `X-Forwarded-For` hop without a port or brackets ("[::1]:80", "1.2.3.4:5"). */
function hopAddress(hop: string): string {
  const h = hop.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(h);
  if (bracketed) return bracketed[1];
  const v4port = /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(h);
  return v4port ? v4port[1] : h;
}

/**
 * The client's address: the socket's peer, unless the peer is a trusted proxy; then the last
 * hop of `forwardedFor` that is not a trusted proxy (the peer when there is no such valid hop).
 */
export function clientAddress(
  peer: string,
  forwardedFor: string | null,
  trusted: TrustedProxies | null,
): string {
  if (!trusted || !forwardedFor || !trusted(peer)) return peer;
  const hops = forwardedFor.split(",").map(hopAddress).slice(-32); // bounded work per request
  for (let i = hops.length - 1; i >= 0; i--) {
    if (!addressBytes(hops[i])) return peer; // a proxy we trust wrote garbage: do not guess
    if (!trusted(hops[i])) return hops[i];
  }
  return peer;
}
