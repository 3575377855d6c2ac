/**
 * What the parser does with one request (parse_worker.ts runs it in a Worker with no
 * permissions; sandbox.ts in the main isolate where Workers are not used): crawled HTML and
 * uploaded documents into text, answered as a plain object (structured clone).
 */
import { type ExtractedPage, extractPage } from "../crawl/extract.ts";
import { markdownText } from "./markdown.ts";
import { pdfText, UnreadablePdf } from "./pdf.ts";

/** Where an uploaded HTML document's relative links resolve: nowhere real. */
const DOCUMENT_BASE = "https://document.invalid/";

/** An uploaded document as the worker takes it: a PDF's bytes, or the text of the others. */
export type DocumentSource =
  | { type: "application/pdf"; bytes: Uint8Array }
  | { type: "text/html" | "text/markdown" | "text/plain"; text: string };

/** What the worker is asked: a page, a document's parts, or (for tests) what it may do. */
export type ParseRequest =
  | { op: "page"; html: string; baseUrl: string }
  | ({ op: "document" } & DocumentSource)
  | { op: "probe"; url: string; path: string };

/** A document's plain text and the title it carries ("" when none). */
export interface DocumentParts {
  text: string;
  title: string;
}

/** What each attempt of `probe` met: "allowed", or the error's name (NotCapable). */
export interface ProbeResult {
  read: string;
  net: string;
  env: string;
  run: string;
  states: Record<string, string>;
}

export type ParseReply =
  | { ready: true }
  | { ok: true; value: ExtractedPage | DocumentParts | ProbeResult }
  | { ok: false; reason: "unreadable" | "failed"; message: string };

function documentParts(req: DocumentSource): Promise<DocumentParts> | DocumentParts {
  if (req.type === "application/pdf") return pdfText(req.bytes);
  if (req.type === "text/html") {
    const page = extractPage(req.text, DOCUMENT_BASE);
    return { text: page.text, title: page.title };
  }
  if (req.type === "text/markdown") return markdownText(req.text);
  const text = req.text.replace(/\r\n?/g, "\n");
  const first = text.trim().split("\n")[0].trim();
  return { text, title: first.length <= 120 ? first : "" };
}

/** Tries what a parser must never do, so a test can see each one refused. */
async function probe(url: string, path: string): Promise<ProbeResult> {
  const attempt = async (f: () => unknown) => {
    try {
      await f();
      return "allowed";
    } catch (err) {
      return (err as Error).name;
    }
  };
  const states: Record<string, string> = {};
  for (const name of ["read", "write", "net", "env", "run", "ffi", "sys", "import"] as const) {
    states[name] = (await Deno.permissions.query({ name })).state;
  }
  return {
    read: await attempt(() => Deno.readTextFile(path)),
    net: await attempt(async () => await (await fetch(url)).body?.cancel()),
    env: await attempt(() => Deno.env.get("PATH")),
    run: await attempt(() => new Deno.Command("true").output()),
    states,
  };
}

export async function handle(req: ParseRequest): Promise<ParseReply> {
  try {
    if (req.op === "page") return { ok: true, value: extractPage(req.html, req.baseUrl) };
    if (req.op === "document") return { ok: true, value: await documentParts(req) };
    return { ok: true, value: await probe(req.url, req.path) };
  } catch (err) {
    const reason = err instanceof UnreadablePdf ? "unreadable" : "failed";
    return { ok: false, reason, message: String(err) };
  }
}
