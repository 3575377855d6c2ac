/**
 * Ranking on a small made-up site, through the real API: real term frequencies,
 * typo corrections, anchored sections, every script, and the site name left out.
 */
import assert from "node:assert/strict";
import { extractPage } from "../../lib/crawl/extract.ts";
import { admin, createSite, search, startApp, type TestApp, type TestSite } from "../helpers.ts";

interface Item {
  url: string;
  title: string;
  body: string;
  lang?: string;
  sections?: { heading: string; anchor: string }[];
}

async function put(t: TestApp, site: TestSite, pages: Item[]) {
  const res = await t.call(`/api/admin/sites/${site.id}/pages`, {
    ...admin(site.adminKey, { pages }),
    method: "PUT",
  });
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  assert.equal(body.counts.failed, 0, JSON.stringify(body.results));
}

/** Filler prose so that no test word is in every page. */
const FILLER = [
  {
    url: "/f/1",
    title: "Installing",
    body: "Download the package and run the installer on your machine.",
  },
  {
    url: "/f/2",
    title: "Settings",
    body: "Each setting has a default value you can change later.",
  },
  { url: "/f/3", title: "Releases", body: "Release notes list what changed between versions." },
];

async function site(pages: Item[]) {
  const t = await startApp();
  const s = await createSite(t, "business");
  await put(t, s, [...FILLER, ...pages]);
  return { t, s, q: (query: string) => search(t, s.publicKey, `q=${encodeURIComponent(query)}`) };
}

const LONG = Array.from(
  { length: 40 },
  (_, i) =>
    `Section ${i}: the serializer turns objects into text, and each serializer option changes ` +
    `how fields, lists and nested values come out when you call it from a view or a task.`,
).join("\n");

Deno.test("ranking - a page that uses a word many times beats a short page that uses it once", async () => {
  const { t, q } = await site([
    { url: "/ref/serializers", title: "Reference", body: LONG },
    {
      url: "/notes/short",
      title: "A note",
      body: "A short note that mentions the serializer once.",
    },
  ]);
  try {
    const { status, body } = await q("serializer");
    assert.equal(status, 200);
    assert.deepEqual(body.results.map((r: { url: string }) => r.url), [
      "/ref/serializers",
      "/notes/short",
    ]);
    assert.equal(body.meta.corrections, undefined, "nothing was corrected");
  } finally {
    t.close();
  }
});

Deno.test("ranking - a swapped-letter typo finds its page, and meta.corrections says what it was read as", async () => {
  const { t, q } = await site([
    { url: "/ref/serializers", title: "Reference", body: LONG },
    {
      url: "/topics/views",
      title: "Views",
      body: "A view takes a request and returns a response.",
    },
  ]);
  try {
    const { body } = await q("serialzier");
    assert.equal(body.results[0].url, "/ref/serializers");
    assert.deepEqual(body.meta.corrections, [{ from: "serialzier", to: "serializer" }]);
    const marked = body.results[0].highlights.find((h: { field: string }) => h.field === "body");
    const [s, e] = marked.matches[0];
    assert.equal(marked.snippet.slice(s, e), "serializer", "the correction is highlighted");
  } finally {
    t.close();
  }
});

Deno.test("ranking - a mistyped identifier is corrected as a whole", async () => {
  const { t, q } = await site([
    {
      url: "/ref/shortcuts",
      title: "Shortcuts",
      body: "get_object_or_404(klass, **kwargs) returns the object or raises Http404.",
    },
    {
      url: "/topics/objects",
      title: "Objects",
      body: "An object has fields. Get an object by its key.",
    },
  ]);
  try {
    const { body } = await q("get_objcet_or_404");
    assert.equal(body.results[0].url, "/ref/shortcuts");
    assert.deepEqual(body.meta.corrections, [
      { from: "get_objcet_or_404", to: "get_object_or_404" },
    ]);
  } finally {
    t.close();
  }
});

Deno.test("ranking - an anchored definition term ranks its page, and the result's url carries the anchor", async () => {
  const html = `<html><head><title>Gizmo API</title></head><body><main>
    <h1 id="gizmo-api">Gizmo API</h1><p>Gizmos are small parts of a machine.</p>
    <dl><dt id="acme.Gizmo.wobble">Gizmo.wobble(amount)</dt>
    <dd><p>Shakes the part by the given amount.</p></dd></dl>
    <h2 id="examples">Examples</h2><p>Machines use parts every day.</p></main></body></html>`;
  const page = extractPage(html, "http://127.0.0.1/ref/gizmo.html");
  const { t, q } = await site([
    {
      url: "/ref/gizmo.html",
      title: page.title,
      body: page.text,
      sections: page.sections.filter((x) => x.heading).map(({ heading, anchor }) => ({
        heading,
        anchor,
      })),
    },
    {
      url: "/topics/parts",
      title: "Parts",
      body: "Parts of a machine: gears, springs and gizmos.",
    },
  ]);
  try {
    const { body } = await q("wobble");
    const [first] = body.results;
    assert.equal(first.url, "/ref/gizmo.html#acme.Gizmo.wobble");
    assert.equal(first.sections[0].title, "Gizmo.wobble(amount)");
    assert.equal(first.sections[0].url, "/ref/gizmo.html#acme.Gizmo.wobble");
    assert.match(first.sections[0].snippet, /Shakes the part/);
    assert.ok(first.sections.length <= 3);
    const parts = (await q("machine")).body.results;
    assert.equal(parts.filter((r: { url: string }) => r.url.startsWith("/ref/gizmo")).length, 1);
  } finally {
    t.close();
  }
});

Deno.test("ranking - a heading that matches far into a long page, past the text read first, gives the result its anchor and section", async () => {
  // ~30,000 characters of prose before the heading, some of them beyond Latin-1 (“quotes”).
  const prose = (n: number) =>
    Array.from({ length: n }, (_, i) => `Paragraph ${i} tells how “gears” turn and mesh.`)
      .join("\n");
  const sections = [
    { heading: "Overview", anchor: "overview" },
    { heading: "Calibrating the flux capacitor", anchor: "calibrating-flux" },
    { heading: "Storage", anchor: "storage" },
  ];
  const body = [
    "Overview",
    prose(650),
    "Calibrating the flux capacitor",
    "Turn the dial until the needle rests at twelve.",
    "Storage",
    prose(40),
  ].join("\n");
  const { t, q } = await site([
    { url: "/manual/machine.html", title: "Machine manual", body, sections },
  ]);
  try {
    const [first] = (await q("flux capacitor")).body.results;
    assert.equal(first.url, "/manual/machine.html#calibrating-flux");
    assert.equal(first.sections[0].title, "Calibrating the flux capacitor");
    assert.match(first.sections[0].snippet, /needle rests at twelve/);
    const gears = (await q("gears")).body.results[0];
    assert.equal(gears.url, "/manual/machine.html", "a word of the text, not of a heading");
  } finally {
    t.close();
  }
});

const SCRIPTS = [
  {
    lang: "ru",
    title: "Столица",
    body: "Москва — столица России и крупнейший город страны.",
    q: "Москвы",
    word: "Москва",
  },
  {
    lang: "el",
    title: "Πόλεις",
    body: "Η Αθήνα είναι η πρωτεύουσα της Ελλάδας.",
    q: "Αθηνα",
    word: "Αθήνα",
  },
  { lang: "he", title: "ערים", body: "ירושלים היא עיר עתיקה מאוד.", q: "ירושלים", word: "ירושלים" },
  {
    lang: "ar",
    title: "مدن",
    body: "القاهرة هي عاصمة مصر وأكبر مدنها.",
    q: "القاهرة",
    word: "القاهرة",
  },
  {
    lang: "ja",
    title: "都市",
    body: "東京は日本の首都です。人口が多い。",
    q: "東京",
    word: "東京",
  },
  { lang: "zh", title: "城市", body: "北京是中国的首都，历史悠久。", q: "北京", word: "北京" },
  {
    lang: "de",
    title: "Wege",
    body: "Die Straße führt über die alte Brücke am Fluss.",
    q: "brucke",
    word: "Brücke",
  },
];

Deno.test("ranking - a word of its own finds a Russian, Greek, Hebrew, Arabic, Japanese, Chinese and German page first, highlighted as written", async () => {
  const { t, q } = await site(
    SCRIPTS.map((p) => ({ url: `/${p.lang}`, title: p.title, body: p.body, lang: p.lang })),
  );
  try {
    for (const p of SCRIPTS) {
      const { body } = await q(p.q);
      assert.equal(body.results[0]?.url, `/${p.lang}`, `${p.lang}: ${JSON.stringify(body)}`);
      const marked = body.results[0].highlights.find((h: { field: string }) => h.field === "body");
      assert.ok(marked, `${p.lang}: the body is highlighted`);
      const words = marked.matches.map(([s, e]: [number, number]) => marked.snippet.slice(s, e));
      assert.ok(words.includes(p.word), `${p.lang}: ${JSON.stringify(words)} marks ${p.word}`);
    }
    // German words hold together at ü and ß.
    const ue = (await q("führt")).body.results[0];
    assert.equal(ue.url, "/de");
  } finally {
    t.close();
  }
});

Deno.test("ranking - titles drop the site name most pages share, and keep it where nothing else is left", async () => {
  const { t, s, q } = await site([
    { url: "/a", title: "Alpha gears — Acme 2.0 documentation", body: "Alpha gears mesh." },
    { url: "/b", title: "Beta springs — Acme 2.0 documentation", body: "Beta springs bounce." },
    { url: "/c", title: "Gamma levers — Acme 2.0 documentation", body: "Gamma levers lift." },
    { url: "/d", title: "Delta cams — Acme 2.0 documentation", body: "Delta cams turn." },
    { url: "/", title: "Acme 2.0 documentation", body: "Welcome: gears, springs, levers, cams." },
  ]);
  try {
    const titles = async (query: string) =>
      (await q(query)).body.results.map((r: { title: string }) => r.title);
    assert.deepEqual(await titles("springs"), ["Beta springs", "Acme 2.0 documentation"]);
    // Pages added once the index exists are read the same way.
    await put(t, s, [
      { url: "/e", title: "Epsilon wheels — Acme 2.0 documentation", body: "Epsilon wheels roll." },
    ]);
    assert.deepEqual(await titles("wheels"), ["Epsilon wheels"]);
    assert.deepEqual(
      await titles("documentation"),
      ["Acme 2.0 documentation"].concat(
        (await titles("documentation")).slice(1),
      ),
    );
  } finally {
    t.close();
  }
});

Deno.test("ranking - a page sent with title and body only has its heading-like lines weigh as headings", async () => {
  const mention = "Deployments often set MAX_WIDGETS together with other limits in a release.";
  const { t, q } = await site([
    {
      url: "/ref/limits",
      title: "Limits",
      body: "Limits\nEvery limit the service reads.\nMAX_WIDGETS\nHow many widgets a page holds. " +
        "The default is ten.\n" + "Other limits are described below. ".repeat(200),
    },
    { url: "/news/1", title: "Release 1", body: mention },
    { url: "/news/2", title: "Release 2", body: mention + " " + mention },
  ]);
  try {
    const { body } = await q("MAX_WIDGETS");
    assert.equal(body.results[0].url, "/ref/limits");
    assert.equal(body.results[0].sections[0]?.title, "MAX_WIDGETS");
  } finally {
    t.close();
  }
});

Deno.test("ranking - a page without a language is read in the language most of the site's pages declare", async () => {
  const t = await startApp();
  const s = await createSite(t, "business");
  try {
    await put(t, s, [
      { url: "/a", title: "Häuser", body: "Die Häuser stehen am Fluss.", lang: "de" },
      { url: "/b", title: "Brücken", body: "Die Brücken sind alt.", lang: "de-AT" },
      { url: "/c", title: "Straßen", body: "Die Straßen sind breit." },
    ]);
    const [doc] = await t.services.indexes.top(s.id, { query: "Straßen", limit: 1 });
    assert.equal(doc.id, "/c");
    assert.equal(doc.lang, "de", "German stemming and stop words for it");
    const { body } = await search(t, s.publicKey, "q=Stra%C3%9Fe%20");
    assert.equal(body.results[0]?.url, "/c", "the German stem matches");
  } finally {
    t.close();
  }
});

Deno.test("ranking - a result's description made from its text follows every change of that text", async () => {
  const { t, s, q } = await site([
    { url: "/guide", title: "Guide", body: "Gadgets are configured in the first paragraph." },
  ]);
  try {
    const first = await q("gadgets");
    assert.equal(
      first.body.results[0].description,
      "Gadgets are configured in the first paragraph.",
    );
    // Each query asked again is new to the result cache, so the text is presented again.
    for (const [i, body] of ["Gadgets now start here.", "Gadgets moved again."].entries()) {
      await put(t, s, [{ url: "/guide", title: "Guide", body }]);
      const { body: res } = await q(`gadgets ${"x".repeat(i + 1)}`);
      assert.equal(res.results[0].url, "/guide");
      assert.equal(res.results[0].description, body);
    }
  } finally {
    t.close();
  }
});
