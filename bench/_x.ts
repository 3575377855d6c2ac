import { extractPage } from "../lib/crawl/extract.ts";
const f = Deno.args[0];
const p = extractPage(await Deno.readTextFile(f), "http://127.0.0.1" + f.replace(/^.*\/html/, ""));
console.log(p.title, "|", p.lang);
console.log(p.text.slice(0, 600));
console.log("...", p.text.slice(-300));
console.log(
  p.sections.slice(0, 12).map((s) => `${s.anchor} :: ${s.heading}`).join("\n"),
  p.sections.length,
);
