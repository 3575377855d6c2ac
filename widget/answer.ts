/// <reference lib="dom" />
/**
 * The AI answer on the results page: a streamed summary, its sources, follow-up turns,
 * a thumbs up or down under each answer, and a plain line when no answer can be shown. Built
 * as a module of its own (static/answer.js), which results.js imports when the site has answers
 * on, so results.js stays within its size budget; the page hands it its locale and adopts its CSS.
 */
import { type AnswerSource, MAX_FEEDBACK_COMMENT_CHARS } from "../lib/wire_types.ts";
import { sendFeedback, summarize } from "./client/answers.ts";
import { ApiFailure, isAbort } from "./client/http.ts";
import type { Api } from "./client/search.ts";
import { answerFailure, t } from "./client/strings.ts";
import { safeUrl } from "./config.ts";
import { append, el, icon, on } from "./dom.ts";

export { setLocale } from "./client/strings.ts";
export { ANSWER as css } from "./styles.ts";

/** The most of an answer ever shown (spec: up to 1,600 characters). */
const MAX_CHARS = 1600;

type Source = AnswerSource;

export interface AnswerView {
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
): AnswerView {
  const ctrl = new AbortController();
  let id = "";
  let busy = false;
  const turns = el("div", { class: "turns" });
  const input = el("input", {
    type: "text",
    class: "input",
    placeholder: t("followupPlaceholder"),
    "aria-label": t("followupLabel"),
    autocomplete: "off",
    maxlength: "600",
  });
  const form = el(
    "form",
    { class: "follow", hidden: true },
    el("div", { class: "field" }, input),
    el("button", { type: "submit", class: "btn" }, t("ask")),
  );
  const note = el("p", { class: "note", hidden: true }, t("aiDisclaimer"));
  // On a phone the answer starts folded to its first lines, so results show on the first screen.
  const more = el("button", { type: "button", class: "btn ghost more", "aria-expanded": "false" });
  const node = el("div", { class: "fold" }, turns, more, form, note);
  const fold = (folded: boolean) => {
    node.classList.toggle("fold", folded);
    more.setAttribute("aria-expanded", String(!folded));
    more.textContent = t(folded ? "showMore" : "showLess");
  };
  fold(true);
  on(more, "click", () => fold(!node.classList.contains("fold")));

  const ask = async (q: string, mode: "initial" | "followup") => {
    busy = true;
    form.hidden = true;
    const text = el("p", { class: "atext busy", dir: "auto" }, t("thinking"));
    const turn = el(
      "div",
      { "aria-busy": "true" },
      mode === "followup" ? el("p", { class: "uq" }, q) : null,
      text,
    );
    turns.appendChild(turn);
    let answer = "";
    let refs: Source[] = [];
    let candidates = 0; // the pages the answer could draw on (meta), before it cites any
    let links: HTMLElement | null = null;
    try {
      const result = await summarize(
        api,
        mode === "initial" ? { query: q, mode } : { query: q, mode, conversationId: id },
        ctrl.signal,
        (meta) => {
          id = typeof meta.conversationId === "string" ? meta.conversationId : id;
          refs = Array.isArray(meta.sources) ? meta.sources : [];
          candidates = refs.length;
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
      text.classList.remove("busy");
      turn.removeAttribute("aria-busy");
      busy = false;
      // Nothing matched: the site holds no answer. One plain sentence; nothing to rate or ask on.
      const none = result.answered === false || (candidates === 0 && refs.length === 0);
      if (none) text.replaceChildren(t("noAnswer"));
      else if (typeof result.answer === "string") {
        const end = result.truncated ? " …" : "";
        text.replaceChildren(cited(result.answer.slice(0, MAX_CHARS) + end, refs, opts.baseUrl));
      }
      if (!none && id && typeof result.turn === "number") {
        turn.appendChild(thumbs(api, id, result.turn));
      }
      note.hidden = none;
      if (none && mode === "initial") more.hidden = true; // one plain line: nothing folded away
      const left = result.turnsRemaining;
      form.hidden = none || !(opts.followups && result.conversationEnabled === true && id &&
        (typeof left !== "number" || left > 0));
      if (mode === "followup" && !form.hidden) input.focus();
    } catch (err) {
      busy = false;
      if (isAbort(err)) return;
      if (err instanceof ApiFailure && err.code === "SUMMARIES_DISABLED") return opts.onFail();
      text.classList.remove("busy");
      turn.removeAttribute("aria-busy");
      text.replaceChildren(answerFailure(err));
      if (mode === "initial") more.hidden = true;
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

/**
 * "Was this helpful?" with a thumbs up and down that post to /api/feedback, then a thank-you. A
 * thumbs down first asks, optionally, what was missing; the vote counts at once, and a comment
 * sent after it replaces it with the same vote and the comment.
 */
function thumbs(api: Api, conversationId: string, turn: number): HTMLElement {
  const box = el("div", { class: "fb", tabindex: "-1", "aria-live": "polite" }, t("helpful"));
  // A lost vote is not worth an error; a comment goes once the bare vote has landed.
  const vote = (helpful: boolean, comment?: string) =>
    sendFeedback(api, { conversationId, turn, helpful, comment });
  const thanks = () => {
    box.replaceChildren(t("thanks"));
    box.focus({ preventScroll: true }); // the focused button or field is gone: focus stays here
  };
  const comment = () => {
    const voted = vote(false);
    const id = `fbc-${conversationId}-${turn}`;
    const area = el("textarea", {
      id,
      class: "fbtext",
      rows: "3",
      maxlength: String(MAX_FEEDBACK_COMMENT_CHARS),
      dir: "auto",
    });
    const skip = el("button", { type: "button", class: "btn ghost" }, t("skip"));
    const form = el(
      "form",
      { class: "fbc" },
      el("label", { for: id }, t("feedbackComment")),
      area,
      el(
        "div",
        { class: "fbact" },
        el("button", { type: "submit", class: "btn" }, t("send")),
        skip,
      ),
    );
    on(form, "submit", (e: Event) => {
      e.preventDefault();
      const text = area.value.trim();
      thanks();
      if (text) voted.then(() => vote(false, text));
    });
    on(skip, "click", thanks);
    on(area, "keydown", (e: KeyboardEvent) => {
      if (e.key === "Escape") thanks();
    });
    box.replaceChildren(form);
    area.focus();
  };
  for (const helpful of [true, false]) {
    const label = t(helpful ? "yes" : "no");
    const b = el("button", {
      type: "button",
      class: "btn ghost thumb",
      "aria-label": label,
      title: label,
    }, icon(THUMB, helpful ? "icon" : "icon down"));
    on(b, "click", () => helpful ? (thanks(), vote(true)) : comment());
    box.appendChild(b);
  }
  return box;
}

/** A thumb up (the thumb down is the same, turned by CSS). */
const THUMB =
  "M2 21h4V9H2v12Zm20-11a2 2 0 0 0-2-2h-6.3l1-4.6v-.3c0-.4-.2-.8-.4-1.1L13.2 1 6.6 7.6C6.2 8 " +
  "6 8.5 6 9v10a2 2 0 0 0 2 2h9c.8 0 1.5-.5 1.8-1.2l3-7.1c.1-.2.2-.5.2-.7v-2Z";

/** A source as a link when it is a page, else its title or label. */
function sourceLabel(s: Source, baseUrl: string): Node | string | null {
  if (s?.type === "page") {
    const href = safeUrl(String(s.url ?? ""), baseUrl);
    const label = String(s.title || s.url || t("sourcePage"));
    return href ? el("a", { href }, label) : label;
  }
  if (s?.type === "document") return String(s.title || t("sourceDocument"));
  if (s?.type === "external") return String(s.label || t("sourceExternal"));
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
  return el("div", { class: "srcs" }, el("span", {}, t("sources")), el("ul", {}, ...items));
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
            { class: "cite", href, title, "aria-label": t("sourceN", { n, title }) },
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
