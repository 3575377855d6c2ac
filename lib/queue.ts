/**
 * One KV queue listener per KV connection, dispatching messages by their `kind`: Deno KV
 * allows a single listenQueue per connection, and several parts of the app use the queue.
 */

export interface QueueMessage {
  kind: string;
}

type Handler = (msg: QueueMessage) => Promise<void>;

const listeners = new WeakMap<Deno.Kv, Map<string, Handler>>();

/** Routes queue messages of `kind` on `kv` to `handler` (the listener starts with the first). */
export function onQueue<T extends QueueMessage>(
  kv: Deno.Kv,
  kind: string,
  handler: (msg: T) => Promise<void>,
) {
  let handlers = listeners.get(kv);
  if (!handlers) {
    listeners.set(kv, handlers = new Map());
    const known = handlers;
    kv.listenQueue(async (msg: unknown) => {
      const kind = (msg as QueueMessage | null)?.kind;
      const h = typeof kind === "string" ? known.get(kind) : undefined;
      if (h) await h(msg as QueueMessage);
    }).catch(() => {}); // the KV closed
  }
  handlers.set(kind, handler as Handler);
}
