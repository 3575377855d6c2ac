/// <reference lib="dom" />
/**
 * The AI answer on the results page: a streamed summary, its sources, follow-up turns,
 * a thumbs up or down under each answer, and a plain line when no answer can be shown.
 */
import { type Api, ApiFailure, call, isAbort } from "./api.ts";
import { safeUrl } from "./config.ts";
import { append, el, on } from "./dom.ts";

/** The most of an answer ever shown (spec: up to 1,600 characters). */
const MAX_CHARS = 1600;

interface Source {
  type?: string;
  title?: string;
  url?: string;
  label?: string;
}

interface Meta {
  conversationId?: string;
  turn?: number;
  conversationEnabled?: boolean;
  turnsRemaining?: number;
  sources?: Source[];
}

interface Done {
  answer?: string;
  truncated?: boolean;
  /** The sources the answer cites, numbered as it cites them (final; `meta` lists candidates). */
  sources?: Source[];
}

/** What the visitor reads when an answer cannot be shown; the results below stay. */
function unavailable(err: unknown): string {
  const code = err instanceof ApiFailure ? err.code : "";
  if (code === "AI_CREDITS_EXHAUSTED") {
    return "AI answers are paused for this site this month. The search results below are not affected.";
  }
  if (code === "SUMMARY_RATE_LIMIT_EXCEEDED") {
    return "Too many AI answers were asked for from here just now. Please try again in a minute.";
  }
  return "The AI answer could not be loaded right now. The search results below are complete.";
}

/** Server-sent events from a response body, parsed as the HTML standard describes. */
export async function* sseEvents(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<{ event: string; data: string }> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buf = "", event = "", data: string[] = [];
  try {
    for (;;) {
      const { value, done } = await reader.read();
      buf += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let at: number;
      while ((at = buf.search(/\r\n|\r|\n/)) >= 0) {
        if (!done && buf[at] === "\r" && at === buf.length - 1) break; // maybe half of \r\n
        const line = buf.slice(0, at);
        buf = buf.slice(at + (buf.startsWith("\r\n", at) ? 2 : 1));
        if (line === "") {
          if (data.length) yield { event: event || "message", data: data.join("\n") };
          event = "";
          data = [];
        } else if (line[0] !== ":") {
          const colon = line.indexOf(":");
          const field = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? "" : line.slice(colon + (line[colon + 1] === " " ? 2 : 1));
          if (field === "event") event = value;
          else if (field === "data") data.push(value);
        }
      }
      if (done) return;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

/** POST /api/summarize with stream: true; calls back as `meta` and text arrive. */
async function summarize(
  api: Api,
  body: Record<string, unknown>,
  signal: AbortSignal,
  onMeta: (m: Meta) => void,
  onText: (t: string) => void,
): Promise<Meta & Done> {
  const res = await call(new URL("/api/summarize", api.origin).href, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      "X-API-Key": api.key,
      Accept: "text/event-stream",
    },
    body: JSON.stringify({ ...body, stream: true }),
    signal,
    credentials: "omit",
  });
  if (!res.ok || !res.body) {
    const failure = await res.json().catch(() => null);
    throw new ApiFailure(res.status, String(failure?.error?.code ?? "SUMMARY_FAILED"));
  }
  if (!/event-stream/.test(res.headers.get("content-type") ?? "")) {
    const whole = await res.json(); // a server that answered without streaming
    onMeta(whole);
    return whole;
  }
  let meta: Meta | null = null;
  let deltas = false;
  for await (const { event, data } of sseEvents(res.body)) {
    const payload = JSON.parse(data);
    if (event === "meta") onMeta(meta = payload);
    else if (event === "delta" || (event === "text" && !deltas)) {
      deltas ||= event === "delta"; // `text` repeats each delta for older clients
      if (typeof payload?.text === "string") onText(payload.text);
    } else if (event === "done") {
      if (!meta) break;
      return { ...meta, ...payload };
    } else if (event === "error") {
      throw new ApiFailure(payload?.status ?? 500, payload?.code ?? "STREAM_ERROR");
    }
  }
  throw new ApiFailure(500, "STREAM_INCOMPLETE");
}

export interface Conversation {
  node: HTMLElement;
  /** True while an answer is still arriving. */
  busy: () => boolean;
  abort: () => void;
}

/**
 * One question's answer and its follow-ups. A failure shows a plain line in the box; `onFail`
 * runs only when the site has AI answers turned off, so the page hides the box.
 */
export function conversation(
  api: Api,
  query: string,
  opts: { baseUrl: string; followups: boolean; onFail: () => void },
): Conversation {
  const ctrl = new AbortController();
  let id = "";
  let busy = false;
  const turns = el("div", {});
  const input = el("input", {
    type: "text",
    class: "input",
    placeholder: "Ask a follow-up question…",
    "aria-label": "Ask a follow-up question",
    autocomplete: "off",
    maxlength: "600",
  });
  const form = el(
    "form",
    { class: "follow", hidden: true },
    el("div", { class: "field" }, input),
    el("button", { type: "submit", class: "btn" }, "Ask"),
  );
  const node = el(
    "div",
    {},
    turns,
    form,
    el("p", { class: "note" }, "AI answers can be wrong. Check the linked pages."),
  );

  const ask = async (q: string, mode: "initial" | "followup") => {
    busy = true;
    form.hidden = true;
    const text = el("p", { class: "atext busy" });
    const turn = el(
      "div",
      { "aria-busy": "true" },
      mode === "followup" ? el("p", { class: "uq" }, q) : null,
      text,
    );
    turns.appendChild(turn);
    let answer = "";
    let refs: Source[] = [];
    let links: HTMLElement | null = null;
    try {
      const result = await summarize(
        api,
        mode === "initial" ? { query: q, mode } : { query: q, mode, conversationId: id },
        ctrl.signal,
        (meta) => {
          id = typeof meta.conversationId === "string" ? meta.conversationId : id;
          refs = Array.isArray(meta.sources) ? meta.sources : [];
          links = sources(refs, opts.baseUrl);
          if (links) turn.appendChild(links);
        },
        (piece) => {
          answer += piece;
          text.replaceChildren(cited(answer.slice(0, MAX_CHARS), refs, opts.baseUrl));
        },
      );
      if (Array.isArray(result.sources)) { // the final list: exactly what the answer cites
        refs = result.sources;
        const fresh = sources(refs, opts.baseUrl);
        (links as HTMLElement | null)?.remove(); // set by the meta callback
        if ((links = fresh)) turn.appendChild(fresh);
      }
      if (typeof result.answer === "string") {
        const end = result.truncated ? " …" : "";
        text.replaceChildren(cited(result.answer.slice(0, MAX_CHARS) + end, refs, opts.baseUrl));
      }
      if (id && typeof result.turn === "number") turn.appendChild(thumbs(api, id, result.turn));
      text.classList.remove("busy");
      turn.removeAttribute("aria-busy");
      busy = false;
      const left = result.turnsRemaining;
      form.hidden = !(opts.followups && result.conversationEnabled === true && id &&
        (typeof left !== "number" || left > 0));
      if (mode === "followup" && !form.hidden) input.focus();
    } catch (err) {
      busy = false;
      if (isAbort(err)) return;
      if (err instanceof ApiFailure && err.code === "SUMMARIES_DISABLED") return opts.onFail();
      text.classList.remove("busy");
      turn.removeAttribute("aria-busy");
      text.replaceChildren(unavailable(err));
      form.hidden = mode === "initial" || !opts.followups;
    }
  };
  on(form, "submit", (e: Event) => {
    e.preventDefault();
    const q = input.value.trim();
    if (!q || busy) return;
    input.value = "";
    ask(q, "followup");
  });
  ask(query, "initial");
  return { node, busy: () => busy, abort: () => ctrl.abort() };
}

/** "Was this helpful?" with a thumbs up and down that post to /api/feedback, then a thank-you. */
function thumbs(api: Api, conversationId: string, turn: number): HTMLElement {
  const box = el("div", { class: "fb" }, "Was this answer helpful?");
  const vote = (helpful: boolean) => {
    box.replaceChildren("Thanks for the feedback.");
    call(new URL("/api/feedback", api.origin).href, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-API-Key": api.key },
      body: JSON.stringify({ conversationId, turn, helpful }),
      credentials: "omit",
    }).then((r) => r.body?.cancel()).catch(() => {}); // a lost vote is not worth an error
  };
  for (
    const [helpful, mark, label] of [[true, "\u{1F44D}", "Helpful"], [
      false,
      "\u{1F44E}",
      "Not helpful",
    ]] as const
  ) {
    const b = el("button", {
      type: "button",
      class: "btn ghost",
      "aria-label": label,
      title: label,
    }, mark);
    on(b, "click", () => vote(helpful));
    box.appendChild(b);
  }
  return box;
}

/** A source as a link when it is a page, else its title or label. */
function sourceLabel(s: Source, baseUrl: string): Node | string | null {
  if (s?.type === "page") {
    const href = safeUrl(String(s.url ?? ""), baseUrl);
    const label = String(s.title || s.url || "Page");
    return href ? el("a", { href }, label) : label;
  }
  if (s?.type === "document") return String(s.title || "Document");
  if (s?.type === "external") return String(s.label || "General AI knowledge");
  return null;
}

/** The sources line, numbered as the answer cites them ([1] is the first). */
function sources(list: Source[], baseUrl: string): HTMLElement | null {
  const items = list.map((s, i) => {
    const label = sourceLabel(s, baseUrl);
    const n = s?.type === "external" ? null : el("span", { class: "n" }, String(i + 1));
    return label === null ? null : el("li", {}, n, label);
  });
  if (!items.some((i) => i)) return null;
  return el("div", { class: "srcs" }, el("span", {}, "Sources"), el("ul", {}, ...items));
}

/** Answer text with its [n] citations as small links to the cited pages; text nodes only. */
function cited(text: string, list: Source[], baseUrl: string): DocumentFragment {
  const out = document.createDocumentFragment();
  let at = 0;
  for (const m of text.matchAll(/\[(\d{1,2}(?:\s*,\s*\d{1,2})*)\]/g)) {
    const nums = m[1].split(",").map((n) => Number(n.trim()));
    if (!nums.every((n) => n >= 1 && n <= list.length)) continue;
    append(out, [text.slice(at, m.index).replace(/\s+$/, "")]);
    for (const n of nums) {
      const s = list[n - 1];
      const href = s.type === "page" ? safeUrl(String(s.url ?? ""), baseUrl) : null;
      const title = String(s.title || s.label || "");
      out.appendChild(
        href
          ? el(
            "a",
            { class: "cite", href, title, "aria-label": `Source ${n}: ${title}` },
            String(n),
          )
          : el("span", { class: "cite", title }, String(n)),
      );
    }
    at = m.index + m[0].length;
  }
  append(out, [text.slice(at)]);
  return out;
}
