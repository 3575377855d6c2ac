import assert from "node:assert/strict";
import { documentUsageKey } from "../../lib/sites/documents.ts";
import { markdownText } from "../../lib/parsing/markdown.ts";
import { PLANS } from "../../lib/limits/plans.ts";
import { admin, createSite, putPages, search, startApp, type TestApp } from "../helpers.ts";
import type { TestSite } from "../helpers.ts";
import { makePdf } from "../fixtures/pdf.ts";

const WARRANTY_PDF = makePdf([
  "Zephyr kettle warranty",
  "Every Zephyr kettle carries a warranty of three years from the date of purchase.",
  "The warranty covers the heating element and the lid hinge.",
], "Warranty terms");

/** A Markdown manual long enough to be cut into several passages. */
const MANUAL_MD = [
  "# Zephyr kettle manual",
  "",
  "Read this manual before you first boil water with your Zephyr kettle.",
  "",
  "## Descaling",
  "",
  "Descale the kettle every month with **citric acid**: fill it halfway, add two spoons, " +
  "boil, wait [twenty minutes](https://example.com/timer) and rinse twice.",
  "",
  ...Array.from({ length: 6 }, (_, i) =>
    `## Care tip ${i + 1}\n\n` +
    `Tip ${i + 1}: ${"wipe the kettle base dry and keep the cord away from the hob. ".repeat(12)}`),
].join("\n");

async function upload(
  t: TestApp,
  site: TestSite,
  body: BodyInit,
  type: string,
  title?: string,
) {
  const q = title ? `?title=${encodeURIComponent(title)}` : "";
  const res = await t.call(`/api/admin/sites/${site.id}/documents${q}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${site.adminKey}`, "Content-Type": type },
    body,
  });
  return { status: res.status, body: await res.json() };
}

async function summarize(t: TestApp, site: TestSite, query: string) {
  const res = await t.call("/api/summarize", {
    method: "POST",
    headers: { "X-API-Key": site.publicKey, "Content-Type": "application/json" },
    body: JSON.stringify({ query, mode: "initial" }),
  });
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  return body;
}

Deno.test("documents - a Business site's PDF and Markdown are each cited as one document source", async () => {
  const t = await startApp();
  const site = await createSite(t, "business");
  await putPages(t, site, [{ url: "/shop", title: "Shop", body: "Buy a Zephyr kettle online." }]);
  const pdf = await upload(t, site, WARRANTY_PDF as BodyInit, "application/pdf");
  assert.equal(pdf.status, 201, JSON.stringify(pdf.body));
  assert.match(pdf.body.document.id, /^doc_[0-9A-Za-z]{16}$/);
  assert.deepEqual(
    { ...pdf.body.document, id: 0, createdAt: 0 },
    {
      id: 0,
      title: "Warranty terms",
      type: "application/pdf",
      bytes: WARRANTY_PDF.length,
      passages: 1,
      createdAt: 0,
    },
  );
  const md = await upload(t, site, MANUAL_MD, "text/markdown; charset=utf-8", "Kettle manual");
  assert.equal(md.status, 201, JSON.stringify(md.body));
  assert.equal(md.body.document.title, "Kettle manual");
  assert.ok(md.body.document.passages >= 3, `passages: ${md.body.document.passages}`);

  const docs = (answer: { sources: { type: string; documentId?: string }[] }, id: string) =>
    answer.sources.filter((s) => s.type === "document" && s.documentId === id);
  const warranty = await summarize(t, site, "How many years does the kettle warranty last?");
  assert.deepEqual(docs(warranty, pdf.body.document.id), [{
    type: "document",
    title: "Warranty terms",
    documentId: pdf.body.document.id,
  }]);
  assert.match(warranty.answer, /three years/);

  // Many passages of the manual match; it is still one source.
  const care = await summarize(t, site, "kettle descaling citric acid and care tips for the cord");
  assert.deepEqual(docs(care, md.body.document.id), [{
    type: "document",
    title: "Kettle manual",
    documentId: md.body.document.id,
  }]);
  assert.ok(care.sources.every((s: { type: string }) => s.type !== "external"));

  // Search never shows documents.
  const found = await search(t, site.publicKey, "q=warranty");
  assert.deepEqual(found.body.results, []);
  t.close();
});

Deno.test("documents - plans below Business get 403 PLAN_FEATURE_UNAVAILABLE and nothing is stored", async () => {
  const t = await startApp();
  for (const plan of ["free", "basic", "pro"] as const) {
    assert.equal(PLANS[plan].documents, false);
    const site = await createSite(t, plan);
    const res = await upload(t, site, WARRANTY_PDF as BodyInit, "application/pdf");
    assert.equal(res.status, 403);
    assert.equal(res.body.error.code, "PLAN_FEATURE_UNAVAILABLE");
    assert.match(res.body.error.message, /Business or Enterprise/);
    // Refused before the body is even looked at.
    assert.equal((await upload(t, site, "x", "image/png")).status, 403);
    const list = await t.call(`/api/admin/sites/${site.id}/documents`, admin(site.adminKey));
    assert.deepEqual((await list.json()).documents, []);
  }
  t.close();
});

Deno.test("documents - the type must be supported and agree with the bytes", async () => {
  const t = await startApp();
  const site = await createSite(t, "enterprise");
  const cases: [BodyInit, string, number, RegExp][] = [
    ["hello", "image/png", 415, /application\/pdf, text\/markdown/],
    ["hello", "application/octet-stream", 415, /application\/pdf/],
    ["plain words", "application/pdf", 415, /not a PDF/],
    [WARRANTY_PDF as BodyInit, "text/plain", 415, /is a PDF but was declared text\/plain/],
    [new Uint8Array([0x68, 0xff, 0xfe, 0x69]), "text/plain", 415, /not valid utf-8/],
    [new Uint8Array([0x68, 0x00, 0x69]), "text/markdown", 415, /NUL bytes/],
    ["", "text/plain", 400, /empty/],
    ["%PDF-1.4 then garbage", "application/pdf", 400, /could not be read/],
    ["\n\n   \n", "text/plain", 400, /no text/],
  ];
  for (const [body, type, status, message] of cases) {
    const res = await upload(t, site, body, type);
    assert.equal(res.status, status, `${type}: ${JSON.stringify(res.body)}`);
    assert.match(res.body.error.message, message);
  }
  const noType = await t.call(`/api/admin/sites/${site.id}/documents`, {
    method: "POST",
    headers: { Authorization: `Bearer ${site.adminKey}` },
    body: new Uint8Array([1, 2, 3]),
  });
  assert.equal(noType.status, 415);
  await noType.body?.cancel();
  // Latin-1 declared as such is read as such.
  const latin = await upload(
    t,
    site,
    new Uint8Array([0x63, 0x61, 0x66, 0xe9]),
    "text/plain; charset=iso-8859-1",
  );
  assert.equal(latin.status, 201);
  assert.equal(latin.body.document.title, "café");
  // HTML documents are read like pages: main text, title from <title>.
  const page = await upload(
    t,
    site,
    "<html><head><title>Returns</title></head><body><nav>Menu</nav><p>Return within 30 days.</p></body></html>",
    "text/html",
  );
  assert.equal(page.status, 201);
  assert.equal(page.body.document.title, "Returns");
  const stored = await t.services.documents.get(site.id, page.body.document.id);
  assert.equal(stored?.body, "Return within 30 days.");
  t.close();
});

Deno.test("documents - a file over 10 MB gets 413 and a site over its plan's storage gets a clear 403", async () => {
  const t = await startApp();
  const site = await createSite(t, "business");
  const big = new Uint8Array(10 * 1024 * 1024 + 1).fill(0x61);
  const res = await upload(t, site, big, "text/plain");
  assert.equal(res.status, 413);
  assert.equal(res.body.error.code, "PAYLOAD_TOO_LARGE");

  // A site whose documents already fill all but 100 bytes of its 200 MB.
  const limit = PLANS.business.maxDocumentBytes;
  await t.kv.set(documentUsageKey(site.id), limit - 100);
  const over = await upload(t, site, "x".repeat(101), "text/plain");
  assert.equal(over.status, 403);
  assert.equal(over.body.error.code, "PLAN_FEATURE_UNAVAILABLE");
  assert.equal(over.body.error.param, "storage");
  assert.match(over.body.error.message, /over the business plan's 200 MB/);
  const fits = await upload(t, site, "x".repeat(100), "text/plain");
  assert.equal(fits.status, 201);
  const list = await (await t.call(`/api/admin/sites/${site.id}/documents`, admin(site.adminKey)))
    .json();
  assert.equal(list.documents.length, 1);
  assert.deepEqual(list.storage, { bytes: limit, limit });
  t.close();
});

Deno.test("documents - listed, read and deleted with their passages; summaries stop citing them", async () => {
  const t = await startApp();
  const site = await createSite(t, "business");
  const a = (await upload(t, site, WARRANTY_PDF as BodyInit, "application/pdf")).body.document;
  const b = (await upload(t, site, MANUAL_MD, "text/markdown")).body.document;
  const listRes = await t.call(`/api/admin/sites/${site.id}/documents`, admin(site.adminKey));
  const list = await listRes.json();
  assert.deepEqual(list.documents.map((d: { id: string }) => d.id).sort(), [a.id, b.id].sort());
  assert.equal(list.storage.bytes, a.bytes + b.bytes);
  const one = await t.call(`/api/admin/sites/${site.id}/documents/${a.id}`, admin(site.adminKey));
  assert.deepEqual((await one.json()).document, a);

  const del = await t.call(`/api/admin/sites/${site.id}/documents/${a.id}`, {
    ...admin(site.adminKey),
    method: "DELETE",
  });
  assert.equal(del.status, 200);
  assert.deepEqual(await del.json(), { deleted: a.id });
  assert.equal(await t.services.documents.get(site.id, a.id), null);
  const again = await t.call(`/api/admin/sites/${site.id}/documents/${a.id}`, {
    ...admin(site.adminKey),
    method: "DELETE",
  });
  assert.equal(again.status, 404);
  await again.body?.cancel();
  const answer = await summarize(t, site, "How many years does the kettle warranty last?");
  assert.ok(!JSON.stringify(answer.sources).includes(a.id));
  const after = await (await t.call(`/api/admin/sites/${site.id}/documents`, admin(site.adminKey)))
    .json();
  assert.deepEqual(after.documents.map((d: { id: string }) => d.id), [b.id]);
  assert.equal(after.storage.bytes, b.bytes);

  const put = await t.call(`/api/admin/sites/${site.id}/documents`, {
    ...admin(site.adminKey),
    method: "PUT",
  });
  assert.equal(put.status, 405);
  assert.equal(put.headers.get("allow"), "GET, POST, OPTIONS");
  await put.body?.cancel();
  t.close();
});

Deno.test("documents - Markdown becomes plain text with headings on their own", () => {
  const { text, title } = markdownText(
    "---\nlayout: doc\n---\nIntro *line* with `code`\n\nSetext title\n===\n\n" +
      "- [x] done item\n1. first [link](http://x)\n> quoted ![alt text](i.png)\n\n" +
      "| a | b |\n|---|---|\n| 1 | 2 |\n\n```js\nconst x = 1;\n```\n[ref]: http://x\n",
  );
  assert.equal(title, "Setext title");
  assert.equal(
    text,
    "Intro line with code\n\nSetext title\n\ndone item\nfirst link\nquoted alt text\n\n" +
      "a · b\n1 · 2\n\nconst x = 1;",
  );
});
