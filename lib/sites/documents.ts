/**
 * Uploaded documents (Business and Enterprise). The declared type is checked
 * against the bytes, the text extracted in the parser sandbox (unpdf for PDF, the page
 * extractor for HTML, a light line-based cleanup for Markdown) and stored like a page but apart
 * (Services.documents, the document id as its url), so summaries can retrieve it
 * and search never shows it. A small info record per document serves listing; a
 * per-site byte total, changed atomically with it, holds the plan's storage limit.
 */
import { busy, DomainError, invalid } from "../errors.ts";
import { ParseError, parserSandbox } from "../parsing/sandbox.ts";
import { newId } from "./keys.ts";
import { splitPassages } from "../answers/passages.ts";
import { PLANS } from "../limits/plans.ts";
import type { Services } from "../services.ts";
import type { Site } from "./store.ts";

/** Largest upload, per file. */
export const MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;

export type DocumentType = "application/pdf" | "text/markdown" | "text/plain" | "text/html";

export interface DocumentInfo {
  id: string;
  title: string;
  type: DocumentType;
  /** Size of the uploaded file: what counts toward the plan's storage. */
  bytes: number;
  passages: number;
  createdAt: string;
}

const TYPES: Record<string, DocumentType> = {
  "application/pdf": "application/pdf",
  "text/markdown": "text/markdown",
  "text/x-markdown": "text/markdown",
  "text/plain": "text/plain",
  "text/html": "text/html",
};

const infoKey = (site: string, id: string) => ["docinfo", site, id];
/** Bytes of all a site's documents. */
export const documentUsageKey = (site: string) => ["docbytes", site];

const mb = (n: number) => `${Math.round((n / 1024 / 1024) * 10) / 10} MB`;

/** 403 unless the site's plan includes document sources. */
export function assertDocumentsAllowed(site: Site) {
  if (!PLANS[site.plan].documents) {
    throw new DomainError(
      "PLAN_FEATURE_UNAVAILABLE",
      `Document uploads need the Business or Enterprise plan; this site is on ${site.plan}.`,
    );
  }
}

/** The supported type a Content-Type names (415 otherwise), and its charset. */
export function declaredType(contentType: string | undefined): {
  type: DocumentType;
  charset: string;
} {
  const [base, ...params] = (contentType ?? "").split(";");
  const type = TYPES[base.trim().toLowerCase()];
  if (!type) {
    throw new DomainError(
      "UNSUPPORTED_MEDIA_TYPE",
      "Send the document as application/pdf, text/markdown, text/plain or text/html.",
    );
  }
  const charset = params.map((p) => /^\s*charset\s*=\s*"?([\w.:-]+)"?\s*$/i.exec(p)?.[1])
    .find(Boolean) ?? "utf-8";
  return { type, charset };
}

/** Checks the bytes are what the type says: a PDF signature, or text without NULs. */
function decodeChecked(type: DocumentType, charset: string, bytes: Uint8Array): string | null {
  const isPdf = new TextDecoder().decode(bytes.subarray(0, 5)) === "%PDF-";
  if (type === "application/pdf") {
    if (!isPdf) {
      throw new DomainError(
        "UNSUPPORTED_MEDIA_TYPE",
        "The body was declared application/pdf but is not a PDF (it does not start with %PDF-).",
      );
    }
    return null;
  }
  if (isPdf) {
    throw new DomainError(
      "UNSUPPORTED_MEDIA_TYPE",
      `The body is a PDF but was declared ${type}. Send it as application/pdf.`,
    );
  }
  let text: string;
  try {
    text = new TextDecoder(charset, { fatal: true }).decode(bytes);
  } catch {
    throw new DomainError(
      "UNSUPPORTED_MEDIA_TYPE",
      `The body is not valid ${charset} text, as ${type} must be here. Is it a binary file?`,
    );
  }
  if (text.includes("\u0000")) {
    throw new DomainError(
      "UNSUPPORTED_MEDIA_TYPE",
      `The body holds NUL bytes, so it is not ${type}. Is it a binary file?`,
    );
  }
  return text;
}

/** A document's plain text and the title it carries, if any, read in the parser sandbox. */
export async function documentText(
  type: DocumentType,
  charset: string,
  bytes: Uint8Array,
): Promise<{ text: string; title: string }> {
  const source = decodeChecked(type, charset, bytes);
  try {
    return await parserSandbox().document(
      source === null
        ? { type: "application/pdf", bytes }
        : { type: type as Exclude<DocumentType, "application/pdf">, text: source },
    );
  } catch (err) {
    // A Worker that died is ours to fix (a 500); the others are the document's, or a retry.
    if (!(err instanceof ParseError) || err.reason === "crashed") throw err;
    if (err.reason === "busy") throw busy("Documents are being read for other sites. Retry.");
    if (err.reason === "unreadable") {
      throw invalid("body", "The PDF could not be read: it is damaged or encrypted.");
    }
    if (err.reason === "timeout") {
      throw invalid("body", `The document could not be read. ${err.message}`);
    }
    throw invalid("body", "The document could not be read: the parser failed on it.");
  }
}

/**
 * Stores a document: checked, extracted, counted against the plan's storage. Nothing
 * is kept when any step fails.
 */
export async function addDocument(
  s: Services,
  site: Site,
  input: { bytes: Uint8Array; contentType: string | undefined; title?: string },
): Promise<DocumentInfo> {
  assertDocumentsAllowed(site);
  const { type, charset } = declaredType(input.contentType);
  if (input.bytes.length === 0) throw invalid("body", "The document is empty.");
  const limit = PLANS[site.plan].maxDocumentBytes;
  await checkStorage(s, site, input.bytes.length, limit); // before the costly part
  const { text, title } = await documentText(type, charset, input.bytes);
  if (!text.trim()) {
    throw invalid("body", "The document has no text to index (a scanned PDF needs OCR first).");
  }
  const info: DocumentInfo = {
    id: newId("doc"),
    title: (input.title ?? title).trim().slice(0, 500) || "Untitled document",
    type,
    bytes: input.bytes.length,
    passages: splitPassages(text).length,
    createdAt: new Date(s.clock()).toISOString(),
  };
  await s.documents.upsert(site.id, {
    url: info.id,
    title: info.title,
    description: "",
    body: text,
  }, Infinity);
  // The byte total and the listing change together, or not at all.
  for (let attempt = 0;; attempt++) {
    const usage = await s.kv.get<number>(documentUsageKey(site.id));
    const used = usage.value ?? 0;
    const over = used + info.bytes > limit;
    const ok = !over && (await s.kv.atomic().check(usage)
      .set(documentUsageKey(site.id), used + info.bytes)
      .set(infoKey(site.id, info.id), info)
      .commit()).ok;
    if (ok) break;
    if (over || attempt >= 50) {
      await s.documents.remove(site.id, info.id);
      if (over) throw storageFull(site, used, info.bytes, limit);
      throw busy("The site's documents are busy. Retry.");
    }
  }
  await s.documentIndexes.refresh(site.id);
  return info;
}

async function checkStorage(s: Services, site: Site, bytes: number, limit: number) {
  const used = (await s.kv.get<number>(documentUsageKey(site.id))).value ?? 0;
  if (used + bytes > limit) throw storageFull(site, used, bytes, limit);
}

function storageFull(site: Site, used: number, bytes: number, limit: number): DomainError {
  return new DomainError(
    "PLAN_FEATURE_UNAVAILABLE",
    `This document (${mb(bytes)}) would bring the site's documents to ${mb(used + bytes)}, ` +
      `over the ${site.plan} plan's ${mb(limit)}. Delete documents or upgrade.`,
    { param: "storage" },
  );
}

/** A page of document records, with the site's storage use. */
export async function listDocuments(
  s: Services,
  site: Site,
  opts: { cursor?: string; limit: number },
) {
  const iter = s.kv.list<DocumentInfo>({ prefix: ["docinfo", site.id] }, opts);
  const documents: DocumentInfo[] = [];
  for await (const e of iter) documents.push(e.value);
  const used = (await s.kv.get<number>(documentUsageKey(site.id))).value ?? 0;
  return {
    documents,
    cursor: documents.length === opts.limit ? iter.cursor : null,
    storage: { bytes: used, limit: PLANS[site.plan].maxDocumentBytes },
  };
}

export async function getDocument(s: Services, siteId: string, id: string) {
  return (await s.kv.get<DocumentInfo>(infoKey(siteId, id))).value;
}

/** Removes a document and its passages; false when there was none. */
export async function deleteDocument(s: Services, siteId: string, id: string): Promise<boolean> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const [info, usage] = await s.kv.getMany<[DocumentInfo, number]>([
      infoKey(siteId, id),
      documentUsageKey(siteId),
    ]);
    if (!info.value) return false;
    const left = Math.max(0, (usage.value ?? 0) - info.value.bytes);
    const res = await s.kv.atomic().check(info, usage)
      .delete(info.key)
      .set(documentUsageKey(siteId), left)
      .commit();
    if (!res.ok) continue;
    await s.documents.remove(siteId, id);
    await s.documentIndexes.refresh(siteId);
    return true;
  }
  throw busy("The site's documents are busy. Retry.");
}
