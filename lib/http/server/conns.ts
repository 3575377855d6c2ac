/**
 * The open connections and who gives way when clients hoard them. Each client address (an
 * IPv6 one by its /64, which one client usually holds whole) keeps at most `maxPerPeer`: past it,
 * that address loses its oldest idle connection, else the one slowest to send its request; at
 * the global cap, the address holding the most does. Slow means sending for SLOW_MS at least
 * (one merely not read yet under load is not slow); connections the app is answering are never
 * taken. With nothing to give, a new connection is refused (past its address's cap) or waits.
 */
import { systemClock } from "../../clock.ts";

/**
 * Where a connection is: waiting for its next request after one was served (idle), sending a
 * head, sending a body, or being answered (busy: never evicted).
 */
export type Phase = "idle" | "head" | "body" | "busy";
const GIVES_WAY: Record<Phase, number> = { idle: 0, head: 1, body: 2, busy: 3 };
/** How long a request may take to arrive before it counts as slow at the global cap. */
const SLOW_MS = 300;

export interface Slot {
  conn: Deno.Conn;
  /** The client address as counted. */
  peer: string;
  phase: Phase;
  /** When the phase began: of two in one phase, the older gives way first. */
  since: number;
  /** When the head being read or the write under way must be done by; null when neither. */
  deadline: number | null;
  /** Where responses are put together, reused across the connection's exchanges (write.ts). */
  out: Uint8Array | null;
}

/** What the server counted since it started. */
export interface FrontStats {
  /** Connections accepted. */
  accepted: number;
  /** Closed to make room: idle keep-alive ones, and ones still sending their request. */
  evictedIdle: number;
  evictedSlow: number;
  /** Connections turned away with a 503: their address held only connections being answered. */
  refusedConnections: number;
  /** Requests the server answered itself with an error (malformed, too large, late). */
  refusedRequests: number;
}

/** The open connections, counted per client address. */
export class Connections {
  readonly slots = new Set<Slot>();
  readonly stats: FrontStats = {
    accepted: 0,
    evictedIdle: 0,
    evictedSlow: 0,
    refusedConnections: 0,
    refusedRequests: 0,
  };
  #byPeer = new Map<string, Set<Slot>>();
  #freed: (() => void) | null = null;
  constructor(readonly max: number, readonly maxPerPeer: number) {}

  get size(): number {
    return this.slots.size;
  }

  /**
   * Makes room for a connection from `peer` (evicting one of its own past `maxPerPeer`, or the
   * biggest holder's at the global cap) and counts it in. "peer": its address holds only busy
   * connections; "full": so does every address, for now.
   */
  admit(conn: Deno.Conn, peer: string): Slot | "peer" | "full" {
    const own = this.#byPeer.get(peer);
    if (own && own.size >= this.maxPerPeer && !this.#evictFrom(own)) return "peer";
    if (this.slots.size >= this.max && !this.#evictHoarder()) return "full";
    const slot: Slot = {
      conn,
      peer,
      phase: "head",
      since: systemClock(),
      deadline: null,
      out: null,
    };
    this.slots.add(slot);
    if (own) own.add(slot);
    else this.#byPeer.set(peer, new Set([slot]));
    this.stats.accepted++;
    return slot;
  }

  /** Moves a connection to `phase`, from now. */
  enter(slot: Slot, phase: Phase) {
    slot.phase = phase;
    slot.since = systemClock();
  }

  /** Forgets a connection (closed, or evicted); safe to call twice. */
  remove(slot: Slot) {
    if (!this.slots.delete(slot)) return;
    const own = this.#byPeer.get(slot.peer);
    own?.delete(slot);
    if (own?.size === 0) this.#byPeer.delete(slot.peer);
    this.#freed?.();
    this.#freed = null;
  }

  /** Whether some connection could be evicted to make room. */
  canMakeRoom(): boolean {
    for (const s of this.slots) if (s.phase !== "busy") return true;
    return false;
  }

  /** Resolves when a connection is removed (or `wake` is called). */
  freed(): Promise<void> {
    return new Promise((r) => this.#freed = r);
  }

  /** Wakes whoever waits on `freed` (shutdown). */
  wake() {
    this.#freed?.();
    this.#freed = null;
  }

  /** Evicts from the address holding the most connections that has one to give; false if none. */
  #evictHoarder(): boolean {
    const peers = [...this.#byPeer.values()].sort((a, b) => b.size - a.size);
    for (const own of peers) if (this.#evictFrom(own)) return true;
    return false;
  }

  /** Closes the longest-idle keep-alive connection of any address; false if none is idle. */
  evictIdle(): boolean {
    let oldest: Slot | null = null;
    for (const s of this.slots) {
      if (s.phase === "idle" && (!oldest || s.since < oldest.since)) oldest = s;
    }
    if (oldest) this.#evict(oldest);
    return oldest !== null;
  }

  /** Evicts `own`'s oldest idle connection, else its slowest sending for SLOW_MS at least. */
  #evictFrom(own: Set<Slot>): boolean {
    let victim: Slot | null = null;
    const slowSince = systemClock() - SLOW_MS;
    for (const s of own) {
      if (s.phase === "busy" || (s.phase !== "idle" && s.since > slowSince)) continue;
      const order = victim ? GIVES_WAY[s.phase] - GIVES_WAY[victim.phase] : -1;
      if (order < 0 || (order === 0 && s.since < victim!.since)) victim = s;
    }
    if (victim) this.#evict(victim);
    return victim !== null;
  }

  #evict(slot: Slot) {
    if (slot.phase === "idle") this.stats.evictedIdle++;
    else this.stats.evictedSlow++;
    this.remove(slot);
    try {
      slot.conn.close();
    } catch { /* already closed */ }
  }
}

/** The address a connection is counted under: IPv4 as it is, IPv6 by its /64. */
export function peerKey(addr: Deno.Addr): string {
  if (addr.transport !== "tcp" && addr.transport !== "udp") return "local";
  const ip = addr.hostname;
  if (!ip.includes(":")) return ip;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1];
  const [head, tail = ""] = ip.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = [
    ...left,
    ...Array(Math.max(0, 8 - left.length - right.length)).fill("0"),
    ...right,
  ];
  return groups.slice(0, 4).map((g) => parseInt(g, 16).toString(16)).join(":") + "::/64";
}
