/** SSRF guard: which URLs the crawler may fetch, decided by the addresses their hosts resolve to. */

export type AddressClass =
  | "public"
  | "loopback"
  | "private"
  | "link_local"
  | "cgnat"
  | "unique_local"
  | "multicast"
  | "unspecified"
  | "reserved"
  | "documentation"
  | "benchmarking"
  | "broadcast";

export type CheckResult =
  | { ok: true; url: URL; addresses: string[] }
  | {
    ok: false;
    reason: "blocked_scheme" | "blocked_address" | "invalid_url" | "dns_error";
    /** For blocked_address: the kind of the first address refused. */
    blocked?: AddressClass;
  };

export interface CheckOptions {
  allowLoopback: boolean;
  /** Resolves a host name to its addresses; defaults to DNS A + AAAA. */
  resolve?: (host: string) => Promise<string[]>;
}

/** Parses a strict dotted quad (no leading zeros, no short forms) to a 32-bit number. */
function parseIPv4(s: string): number | null {
  const parts = s.split(".");
  if (parts.length !== 4) return null;
  let n = 0;
  for (const p of parts) {
    // Leading zeros are octal to some parsers and decimal to others: refuse the ambiguity.
    if (!/^(0|[1-9][0-9]{0,2})$/.test(p)) return null;
    const v = Number(p);
    if (v > 255) return null;
    n = n * 256 + v;
  }
  return n;
}

/** Parses an IPv6 address (brackets, zone id and a trailing dotted quad allowed) to 8 groups. */
function parseIPv6(input: string): number[] | null {
  let s = input.startsWith("[") && input.endsWith("]") ? input.slice(1, -1) : input;
  const zone = s.indexOf("%");
  if (zone >= 0) s = s.slice(0, zone);
  if (!s.includes(":")) return null;
  // A trailing dotted quad stands for the last two groups: rewrite it as hex.
  const lastColon = s.lastIndexOf(":");
  if (s.slice(lastColon + 1).includes(".")) {
    const v4 = parseIPv4(s.slice(lastColon + 1));
    if (v4 === null) return null;
    s = `${s.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const parse = (h: string) =>
    (h === "" ? [] : h.split(":")).map((g) => /^[0-9a-f]{1,4}$/i.test(g) ? parseInt(g, 16) : NaN);
  const head = parse(halves[0]);
  const tail = halves.length === 2 ? parse(halves[1]) : [];
  if ([...head, ...tail].some(Number.isNaN)) return null;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1) return missing === 0 ? head : null;
  // "::" stands for at least one zero group.
  return missing >= 1 ? [...head, ...new Array<number>(missing).fill(0), ...tail] : null;
}

/** True when the top `bits` bits of `ip` equal those of `base`. */
function inV4(ip: number, base: string, bits: number): boolean {
  const b = parseIPv4(base)!;
  const shift = 32 - bits;
  return Math.floor(ip / 2 ** shift) === Math.floor(b / 2 ** shift);
}

// Special-purpose IPv4 ranges (RFC 6890 and its updates), most specific first.
const V4_RANGES: [string, number, AddressClass][] = [
  ["255.255.255.255", 32, "broadcast"],
  ["0.0.0.0", 8, "unspecified"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "cgnat"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link_local"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "reserved"],
  ["192.0.2.0", 24, "documentation"],
  ["192.88.99.0", 24, "reserved"], // deprecated 6to4 relay anycast
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "benchmarking"],
  ["198.51.100.0", 24, "documentation"],
  ["203.0.113.0", 24, "documentation"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved"],
];

function classifyV4(ip: number): AddressClass {
  for (const [base, bits, cls] of V4_RANGES) if (inV4(ip, base, bits)) return cls;
  return "public";
}

function classifyV6(g: number[]): AddressClass {
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  const v4 = (hi: number, lo: number) => hi * 65536 + lo;
  if (zeros(0, 8)) return "unspecified";
  if (zeros(0, 7) && g[7] === 1) return "loopback";
  // Forms that carry an IPv4 address are judged by it: mapped, compatible, NAT64, 6to4.
  if (zeros(0, 5) && g[5] === 0xffff) return classifyV4(v4(g[6], g[7]));
  if (zeros(0, 6)) return classifyV4(v4(g[6], g[7]));
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return classifyV4(v4(g[6], g[7]));
  if (g[0] === 0x2002) return classifyV4(v4(g[1], g[2]));
  if ((g[0] & 0xff00) === 0xff00) return "multicast";
  if ((g[0] & 0xfe00) === 0xfc00) return "unique_local";
  if ((g[0] & 0xffc0) === 0xfe80) return "link_local";
  if (g[0] === 0x2001 && g[1] === 0x0db8) return "documentation";
  if ((g[0] & 0xfff0) === 0x3ff0) return "documentation"; // 3fff::/20, RFC 9637
  if (g[0] === 0x2001 && g[1] === 0x0002 && g[2] === 0) return "benchmarking";
  // 2001::/23 holds Teredo, ORCHID and other protocol assignments: none is a web server.
  if (g[0] === 0x2001 && g[1] < 0x0200) return "reserved";
  // Only 2000::/3 is allocated as global unicast; everything else (NAT64 local-use,
  // discard-only, site-local, …) is not something a public site lives on.
  if ((g[0] & 0xe000) !== 0x2000) return "reserved";
  return "public";
}

/** Classifies an IPv4 dotted quad or IPv6 address; anything unparsable is "reserved". */
export function classifyIp(ip: string): AddressClass {
  const v4 = parseIPv4(ip);
  if (v4 !== null) return classifyV4(v4);
  const v6 = parseIPv6(ip);
  // Unknown input fails closed: "reserved" is never allowed.
  return v6 ? classifyV6(v6) : "reserved";
}

/** True for public addresses, and for 127.0.0.0/8 and ::1 (and their mapped forms) when allowed. */
export function isAddressAllowed(ip: string, opts: { allowLoopback: boolean }): boolean {
  const cls = classifyIp(ip);
  return cls === "public" || (cls === "loopback" && opts.allowLoopback);
}

/** Normalizes a WHATWG URL hostname: brackets stripped, lowercased, trailing dots dropped. */
export function normalizeHost(hostname: string): string {
  let h = hostname.toLowerCase();
  if (h.startsWith("[") && h.endsWith("]")) h = h.slice(1, -1);
  return h.replace(/\.+$/, "");
}

/** True when the (normalized) host is an IP literal rather than a name. */
function isIpLiteral(host: string): boolean {
  return parseIPv4(host) !== null || parseIPv6(host) !== null;
}

/** Resolves A and AAAA records in parallel; fails only when neither yields an address. */
async function resolveDns(host: string): Promise<string[]> {
  const results = await Promise.allSettled([
    Deno.resolveDns(host, "A"),
    Deno.resolveDns(host, "AAAA"),
  ]);
  const addresses = results.flatMap((r) => (r.status === "fulfilled" ? r.value : []));
  if (addresses.length === 0) {
    const failed = results.find((r) => r.status === "rejected");
    throw failed ? failed.reason : new Error("no addresses");
  }
  return addresses;
}

/** Decides whether a URL may be fetched: http(s) only, no credentials, every address allowed. */
export async function checkUrl(url: string, opts: CheckOptions): Promise<CheckResult> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: "invalid_url" };
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return { ok: false, reason: "blocked_scheme" };
  }
  // Credentials in a crawled URL are either a mistake or an attempt to smuggle them somewhere.
  if (parsed.username || parsed.password) return { ok: false, reason: "invalid_url" };
  const host = normalizeHost(parsed.hostname);
  if (!host) return { ok: false, reason: "invalid_url" };

  let addresses: string[];
  if (host === "localhost" || host.endsWith(".localhost")) {
    // RFC 6761: these names are loopback, whatever a resolver might say.
    addresses = ["127.0.0.1", "::1"];
  } else if (isIpLiteral(host)) {
    addresses = [host];
  } else {
    try {
      addresses = await (opts.resolve ?? resolveDns)(host);
    } catch {
      return { ok: false, reason: "dns_error" };
    }
    if (addresses.length === 0) return { ok: false, reason: "dns_error" };
  }
  // One bad address is enough to refuse: the fetch may connect to any of them.
  const refused = addresses.find((a) => !isAddressAllowed(a, opts));
  if (refused !== undefined) {
    return { ok: false, reason: "blocked_address", blocked: classifyIp(refused) };
  }
  return { ok: true, url: parsed, addresses };
}
