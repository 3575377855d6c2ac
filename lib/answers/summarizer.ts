/** The summarizer contract shared by the language-model and the built-in extractive answerers. */

/** One retrieved passage as the answerer sees it; `n` is the 1-based number it is cited by. */
export interface SourceText {
  n: number;
  title: string;
  text: string;
  /** The section's heading and anchor, when the text is one section of a page. */
  heading?: string;
  anchor?: string;
  /** What the page says it is about (its description), when it says. */
  about?: string;
  /** The language of the page (search's code: "en", "de"…), for reading it as search does. */
  lang?: string;
  /** Relevance against the best passage (1); absent: ranked by order only. */
  score?: number;
}

/** An earlier turn of the conversation. */
export interface Turn {
  role: "user" | "assistant";
  content: string;
}

/** Everything an answerer needs for one question. */
export interface SummarizeInput {
  question: string;
  /** Earlier turns of the conversation, oldest first. */
  history: Turn[];
  /** Best passages first. */
  sources: SourceText[];
  /** The site allows general knowledge beside its own pages. */
  externalKnowledge: boolean;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
}

/** Produces an answer as a stream of text deltas; rejects with the signal's reason when aborted. */
export interface Summarizer {
  name: string;
  stream(input: SummarizeInput): AsyncIterable<string>;
  /** The whole answer at once, for answerers that need no server (known before any credit). */
  compose?(input: Omit<SummarizeInput, "signal">): string;
}

/** The model server failed; `beforeFirstToken` tells whether any text had been streamed yet. */
export class UpstreamError extends Error {
  readonly beforeFirstToken: boolean;
  /** HTTP status of the model server's answer, when it sent one. */
  readonly status?: number;
  constructor(
    message: string,
    opts: { beforeFirstToken: boolean; status?: number; cause?: unknown },
  ) {
    super(message, { cause: opts.cause });
    this.name = "UpstreamError";
    this.beforeFirstToken = opts.beforeFirstToken;
    this.status = opts.status;
  }
}

/** Longest answer shown (spec: "AI response length as displayed: up to 1,600 characters"). */
export const MAX_ANSWER_CHARS = 1600;

/** Cuts text longer than `max` at a word boundary and marks the cut with "…" (within `max`). */
export function truncateAnswer(
  text: string,
  max = MAX_ANSWER_CHARS,
): { answer: string; truncated: boolean } {
  if (text.length <= max) return { answer: text, truncated: false };
  const room = max - 1; // one code unit for the ellipsis
  let cut = -1;
  for (let i = room; i > 0; i--) {
    if (/\s/.test(text[i])) {
      cut = i;
      break;
    }
  }
  // A single giant "word" (a URL, say): cut hard rather than lose most of the answer.
  if (cut < room / 2) cut = room;
  // Never split a surrogate pair.
  if (cut > 0 && /[\uD800-\uDBFF]/.test(text[cut - 1])) cut--;
  const head = text.slice(0, cut).replace(/[\s,;:\-–—]+$/u, "");
  return { answer: head + "…", truncated: true };
}
