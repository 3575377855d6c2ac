/**
 * Parsing what owners upload runs no code from it. The PDF parser (pdf.js inside unpdf) has no
 * code path that compiles a file's content: this contract test fails on an upgrade that brings
 * one back (pdf.js once compiled font programs with `new Function`, CVE-2024-4367). Uploads are
 * parsed in a Worker with no permissions (parse_sandbox_test.ts); the watch below has to be
 * in the isolate that runs pdf.js, so it calls the function that Worker runs, here.
 */
import assert from "node:assert/strict";
import { pdfText } from "../../lib/parsing/pdf.ts";
import { makePdf } from "../fixtures/pdf.ts";

Deno.test("tenants - parsing an uploaded PDF evaluates no code: neither eval nor the Function constructor is called", async () => {
  // Loaded before the watch: what loading a module compiles is not the file's content.
  await pdfText(makePdf(["Warm-up."]));
  const calls: string[] = [];
  const realFunction = globalThis.Function;
  const realEval = globalThis.eval;
  globalThis.Function = new Proxy(realFunction, {
    construct(target, args) {
      calls.push(`new Function(${String(args.at(-1)).slice(0, 40)})`);
      return Reflect.construct(target, args);
    },
    apply(target, self, args) {
      calls.push(`Function(${String(args.at(-1)).slice(0, 40)})`);
      return Reflect.apply(target, self, args);
    },
  });
  globalThis.eval = (code: string) => {
    calls.push(`eval(${String(code).slice(0, 40)})`);
    return realEval(code);
  };
  try {
    const pdf = makePdf(
      ["Descaling the kettle monthly keeps it quiet.", "Rinse it twice."],
      "Care",
    );
    const { text, title } = await pdfText(pdf);
    assert.match(text, /Descaling the kettle/, "the PDF's text was read");
    assert.equal(title, "Care");
  } finally {
    globalThis.Function = realFunction;
    globalThis.eval = realEval;
  }
  assert.deepEqual(calls, [], "code evaluated while parsing");
});
