/** Server-sent events from a fetch body, parsed by `eventsource-parser` (the HTML standard's rules). */
import { createParser, type EventSourceMessage } from "eventsource-parser";

/** Each event of `body` as `{event, data}` (`event` is "message" when unnamed); comments skipped. */
export async function* sseEvents(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<{ event: string; data: string }> {
  const queue: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (e) => queue.push(e) });
  const reader = body.getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      parser.feed(done ? decoder.decode() : decoder.decode(value, { stream: true }));
      while (queue.length) {
        const e = queue.shift()!;
        yield { event: e.event || "message", data: e.data };
      }
      if (done) return;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}
