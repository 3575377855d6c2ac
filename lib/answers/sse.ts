/** Server-sent events: encoding, keep-alive pings, and a stream that aborts its work on cancel. */

/** Response headers of an event stream (no `Connection`: it is forbidden in HTTP/2). */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  "Content-Type": "text/event-stream; charset=utf-8",
  "Cache-Control": "no-cache",
  "X-Accel-Buffering": "no", // keeps nginx-style proxies from buffering the stream
};

/** One event with JSON data on a single `data:` line. */
export function encodeEvent(event: string, data: unknown): string {
  // JSON.stringify escapes CR and LF inside strings, so the data stays one line; the name
  // is ours, but a stray line break in it would forge fields, so drop any.
  const name = event.replace(/[\r\n]/g, "");
  return `event: ${name}\ndata: ${JSON.stringify(data ?? null)}\n\n`;
}

/** A comment line that keeps proxies and browsers from timing out a silent stream. */
export function pingComment(): string {
  return ": ping\n\n";
}

/** Sends one event; false when the stream is closed (the client went away) and nothing was sent. */
export type SendEvent = (event: string, data: unknown) => boolean;

/** A byte stream of the events `run` sends; pings while silent, aborts `run`'s signal on cancel. */
export function sseStream(
  run: (send: SendEvent, signal: AbortSignal) => Promise<void>,
  opts: { pingMs?: number } = {},
): ReadableStream<Uint8Array> {
  const pingMs = opts.pingMs ?? 15_000;
  const aborter = new AbortController();
  const encoder = new TextEncoder();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let open = true;

  const stop = () => {
    open = false;
    clearTimeout(timer);
  };

  return new ReadableStream<Uint8Array>({
    start(controller) {
      const write = (chunk: string) => {
        if (!open) return false;
        controller.enqueue(encoder.encode(chunk));
        armPing();
        return true;
      };
      // Re-armed on every write: a ping goes out only after pingMs of silence.
      const armPing = () => {
        clearTimeout(timer);
        timer = setTimeout(() => void write(pingComment()), pingMs);
      };
      armPing();
      // Not awaited: start() must return so the consumer can read while run is working.
      (async () => {
        try {
          await run((event, data) => write(encodeEvent(event, data)), aborter.signal);
        } catch (err) {
          // The caller should have turned failures into an `error` event; still end the stream.
          if (open) console.error("sseStream: run threw", err);
        } finally {
          if (open) {
            stop();
            controller.close();
          }
        }
      })();
    },
    cancel() {
      stop();
      // Always an AbortError, whatever the runtime's reason: callers test for one kind only.
      aborter.abort(new DOMException("The client went away", "AbortError"));
    },
  });
}
