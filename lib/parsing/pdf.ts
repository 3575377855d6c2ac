/**
 * A PDF's text and title, by pdf.js (inside unpdf). Runs inside the parser worker
 * (parse_worker.ts), which holds no permissions.
 */

/** Thrown for a PDF that pdf.js cannot open or read: damaged or encrypted. */
export class UnreadablePdf extends Error {}

/** The text of every page, pages apart by a blank line, and the document's Title, if any. */
export async function pdfText(bytes: Uint8Array): Promise<{ text: string; title: string }> {
  // Loaded on the first PDF: 10 MB of memory that most never need.
  const { extractText, getDocumentProxy } = await import("unpdf");
  try {
    // pdf.js takes over (detaches) the buffer it is given: a copy keeps the caller's.
    const pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
    try {
      const { text } = await extractText(pdf, { mergePages: false });
      const meta = await pdf.getMetadata().catch(() => null);
      const info = meta?.info as { Title?: unknown } | undefined;
      const title = typeof info?.Title === "string" ? info.Title.trim() : "";
      return { text: text.map((t) => t.trim()).filter(Boolean).join("\n\n"), title };
    } finally {
      await pdf.loadingTask.destroy();
    }
  } catch (err) {
    throw new UnreadablePdf(String(err));
  }
}
