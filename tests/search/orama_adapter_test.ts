/**
 * The contract with Orama's internals that lib/search/orama_adapter.ts relies on. An
 * Orama upgrade that changes any of it fails here, by name, before search goes wrong.
 */
import assert from "node:assert/strict";
import {
  countDocs,
  createIndex,
  type Field,
  insertDoc,
  internalId,
  lookup,
  removeDoc,
  storedDoc,
} from "../../lib/search/orama_adapter.ts";

type D = { id: string; title: string; description: string; headings: string; body: string };
const doc = (id: string, body: string, title = "T"): D => ({
  id,
  title,
  description: "",
  headings: "",
  body,
});

function index() {
  const calls: { text: string; language: string; field: Field }[] = [];
  const ix = createIndex<D>((text, language, field) => {
    calls.push({ text, language, field });
    return [...new Set(text.toLowerCase().split(/\s+/).filter(Boolean))];
  });
  return { ix, calls };
}

Deno.test("orama adapter - our tokenizer gets every field's text with the document's language, on insert and remove", () => {
  const { ix, calls } = index();
  insertDoc(ix, doc("/a", "alpha beta"), "de");
  assert.deepEqual(
    calls.map((c) => [c.field, c.language]).sort(),
    [["body", "de"], ["description", "de"], ["headings", "de"], ["title", "de"]],
  );
  assert.ok(calls.some((c) => c.field === "body" && c.text === "alpha beta"));
  calls.length = 0;
  removeDoc(ix, "/a", "de");
  assert.ok(calls.some((c) => c.field === "body" && c.language === "de"), "remove tokenizes again");
});

Deno.test("orama adapter - internal ids, stored documents (the very object) and the count", () => {
  const { ix } = index();
  const a = doc("/a", "alpha");
  const id = insertDoc(ix, a, "en");
  assert.equal(typeof id, "number");
  assert.equal(internalId(ix, "/a"), id);
  assert.equal(internalId(ix, "/missing"), undefined);
  assert.equal(storedDoc(ix, id), a, "the inserted object is what Orama keeps");
  insertDoc(ix, doc("/b", "beta"), "en");
  assert.equal(countDocs(ix), 2);
});

Deno.test("orama adapter - exact and prefix lookups return each word's documents; removal takes them out", () => {
  const { ix } = index();
  const a = insertDoc(ix, doc("/a", "formset form"), "en");
  const b = insertDoc(ix, doc("/b", "form formula"), "en");
  assert.deepEqual(Object.keys(lookup(ix, "body", "form", false)), ["form"]);
  assert.deepEqual(lookup(ix, "body", "form", false).form.sort(), [a, b].sort());
  const prefix = lookup(ix, "body", "form", true);
  assert.deepEqual(Object.keys(prefix).sort(), ["form", "formset", "formula"]);
  assert.deepEqual(prefix.formset, [a]);
  assert.deepEqual(lookup(ix, "body", "nothing", false), {});
  assert.deepEqual(lookup(ix, "title", "t", false).t.sort(), [a, b].sort(), "per field");
  removeDoc(ix, "/a", "en");
  assert.deepEqual(lookup(ix, "body", "form", false).form, [b]);
  assert.ok(!lookup(ix, "body", "formset", false).formset?.length, "gone with its document");
  assert.equal(countDocs(ix), 1);
});

Deno.test("orama adapter - Orama keeps no scoring statistics of its own (ranking keeps real ones)", () => {
  const { ix } = index();
  insertDoc(ix, doc("/a", "word word word other"), "en");
  const data = ix.orama.data.index as unknown as {
    frequencies: Record<string, Record<number, unknown>>;
    tokenOccurrences: Record<string, Record<string, number>>;
  };
  assert.deepEqual(data.frequencies.body, {});
  assert.deepEqual(data.tokenOccurrences.body, {});
});
