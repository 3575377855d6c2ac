/**
 * Answers as a visitor reads them, through POST /api/summarize on the real app and KV:
 * the one FAQ question asked (not its neighbours), led by the sentence that answers it,
 * the page of that sentence cited first; typos read as search corrects them; every
 * language read with search's own analysis.
 */
import assert from "node:assert/strict";
import { admin, createSite, startApp, type TestApp, type TestSite } from "../helpers.ts";
import { extractPage } from "../../lib/crawl/extract.ts";
import { contentTerms } from "../../lib/answers/analysis.ts";
import { terms, words } from "../../lib/search/engine/mod.ts";

interface Page {
  url: string;
  title: string;
  body: string;
  lang?: string;
  description?: string;
  headings?: string[];
  sections?: { heading: string; anchor: string }[];
}

async function siteWith(pages: Page[]): Promise<{ t: TestApp; site: TestSite }> {
  const t = await startApp();
  const site = await createSite(t, "basic");
  const res = await t.call(
    `/api/admin/sites/${site.id}/pages`,
    admin(site.adminKey, { pages }, "PUT"),
  );
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  assert.equal(body.counts.failed, 0, JSON.stringify(body));
  return { t, site };
}

async function ask(t: TestApp, site: TestSite, query: string) {
  const res = await t.call("/api/summarize", {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-API-Key": site.publicKey },
    body: JSON.stringify({ query }),
  });
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  return body as { answer: string; sources: { type: string; url?: string }[] };
}

const firstSentence = (answer: string) => answer.split(/(?<=[.!?])\s+(?=\p{Lu}|\d)/u)[0];
const firstUrl = (a: { sources: { url?: string }[] }) => a.sources[0]?.url?.split("#")[0];

/** A shop's FAQ: several questions per section, each a paragraph opening with its question. */
const SHOP: Page[] = [
  {
    url: "/faq",
    title: "Frequently asked questions",
    headings: ["Shipping", "Returns"],
    body: [
      "Shipping",
      "Do you ship to Canada or the United States? No. We only ship within Europe, and the shipping page lists every country we deliver to.",
      "How long does delivery take? 1–2 business days in the Netherlands, 2–3 to Belgium and Germany, 3–6 to the rest of the EU.",
      "Is there free shipping? Yes, from €35 in the Netherlands and from €50 to Belgium and Germany.",
      "Returns",
      "Can I return an opened bag? Only if it arrived damaged; otherwise unopened bags within 30 days.",
      "Who pays for return shipping? We do, when the parcel arrived damaged or wrong.",
    ].join("\n"),
  },
  {
    url: "/about",
    title: "About us",
    body:
      "We are a small roastery in Amsterdam. We started roasting in 2014 and now ship to most of Europe, including Germany, where many of our customers live.",
  },
  {
    url: "/blog/espresso",
    title: "Dialling in espresso at home",
    body:
      "A good espresso needs a fine, even grind. Start with 18 grams of coffee and aim for 36 grams in the cup within 28 seconds. If the espresso runs fast, grind finer.",
  },
];

Deno.test("answers - 'how long does shipping to germany take' leads with the Germany answer of the FAQ, not a neighbouring question", async () => {
  const { t, site } = await siteWith(SHOP);
  try {
    const a = await ask(t, site, "how long does shipping to germany take");
    const first = firstSentence(a.answer);
    assert.match(first, /2–3/, a.answer);
    assert.match(first, /Germany/, a.answer);
    assert.doesNotMatch(a.answer, /Canada|€35/, "neighbouring questions are not read out");
    assert.equal(firstUrl(a), "/faq");
  } finally {
    t.close();
  }
});

Deno.test("answers - each question of one FAQ section gets its own answer, cited to the FAQ page", async () => {
  const { t, site } = await siteWith(SHOP);
  try {
    const cases: [string, RegExp, RegExp][] = [
      ["Do you ship to Canada?", /^No\. We only ship within Europe/, /2–3|€35/],
      ["is shipping free?", /€35/, /Canada|business days/],
      ["Can I return an opened bag?", /^Only if it arrived damaged/, /We do/],
      ["who pays for return shipping", /^We do/, /opened bags/],
    ];
    for (const [q, leads, not] of cases) {
      const a = await ask(t, site, q);
      assert.match(a.answer, leads, q);
      assert.doesNotMatch(a.answer, not, q);
      assert.equal(firstUrl(a), "/faq", q);
    }
  } finally {
    t.close();
  }
});

Deno.test("answers - 'expresso' is answered as 'espresso', as search corrects it", async () => {
  const { t, site } = await siteWith(SHOP);
  try {
    const res = await t.call(`/api/search?key=${site.publicKey}&q=expresso`);
    const found = await res.json();
    assert.deepEqual(found.meta.corrections, [{ from: "expresso", to: "espresso" }]);
    const a = await ask(t, site, "expresso");
    assert.match(a.answer, /espresso/i);
    assert.equal(firstUrl(a), "/blog/espresso");
  } finally {
    t.close();
  }
});

Deno.test("answers - a definition-list FAQ (dt/dd), as crawled, answers from the one definition asked", async () => {
  const html = `<!doctype html><html lang="en"><head><title>Git questions</title></head><body><main>
    <h1>Git questions</h1>
    <h2 id="config">Configuration</h2>
    <dl>
      <dt>What should I put in user.name?</dt>
      <dd><p>Put your personal name in user.name; it is used for the author of every commit.</p></dd>
      <dt>How do I configure a different editor?</dt>
      <dd><p>Set core.editor, or the GIT_EDITOR environment variable, to the editor command you prefer.</p></dd>
      <dt>What does http.postBuffer really do?</dt>
      <dd><p>It sets the largest buffer used when pushing over HTTP; raising it rarely helps.</p></dd>
    </dl></main></body></html>`;
  const page = extractPage(html, "http://127.0.0.1/gitfaq.html");
  const { t, site } = await siteWith([
    {
      url: "/gitfaq.html",
      title: page.title,
      lang: page.lang,
      body: page.text,
      sections: page.sections.map((s) => ({ heading: s.heading, anchor: s.anchor })),
    },
    {
      url: "/config.html",
      title: "git-config",
      body:
        "The editor used to edit commit messages is chosen by core.editor. Many variables can be set, such as user.name and user.email.",
    },
  ]);
  try {
    const a = await ask(t, site, "How do I configure a different editor?");
    assert.match(firstSentence(a.answer), /^Set core\.editor/, a.answer);
    assert.doesNotMatch(a.answer, /personal name|postBuffer|largest buffer/);
    assert.equal(firstUrl(a), "/gitfaq.html");
  } finally {
    t.close();
  }
});

/** A German shop whose question and page use different forms of the same words. */
const GERMAN: Page[] = [
  {
    url: "/rueckgabe",
    title: "Rückgabe und Erstattung",
    lang: "de",
    headings: ["Rücksendung", "Erstattung"],
    body: [
      "Rücksendung",
      "Eine Rücksendung ist innerhalb von 30 Tagen kostenlos, das Etikett liegt jedem Paket bei.",
      "Erstattung",
      "Wir erstatten den Kaufpreis innerhalb von fünf Werktagen nach Eingang der Ware.",
    ].join("\n"),
  },
  {
    url: "/versand",
    title: "Versand",
    lang: "de",
    body:
      "Jede Bestellung wird am Tag nach der Röstung verschickt. Der Versand ist ab 50 Euro frei.",
  },
];

Deno.test("answers - on a German site the question is stemmed as search stems it: 'Rücksendungen' finds 'Rücksendung'", async () => {
  const { t, site } = await siteWith(GERMAN);
  try {
    const q = "Sind Rücksendungen kostenlos?";
    // One analysis: the answer's terms are search's terms for the page's language.
    const searchTerms = [...words(q, "de")].flatMap((w) => terms(w, "de"));
    assert.deepEqual(contentTerms(q, "de"), searchTerms);
    assert.ok(contentTerms("Rücksendungen", "de")[0] === contentTerms("Rücksendung", "de")[0]);
    const res = await t.call(`/api/search?key=${site.publicKey}&q=${encodeURIComponent(q)}`);
    const found = await res.json();
    assert.equal(found.results[0].url.split("#")[0], "/rueckgabe");
    const a = await ask(t, site, q);
    assert.match(firstSentence(a.answer), /^Eine Rücksendung ist innerhalb von 30 Tagen kostenlos/);
    assert.doesNotMatch(a.answer, /Werktagen/, "the refund section answers another question");
    assert.equal(firstUrl(a), "/rueckgabe");
  } finally {
    t.close();
  }
});

Deno.test("answers - on a French site 'remboursements' finds the section saying 'remboursé', as search's French stemming does", async () => {
  const { t, site } = await siteWith([
    {
      url: "/retours",
      title: "Retours",
      lang: "fr",
      headings: ["Délais", "Remboursement"],
      body: [
        "Délais",
        "Vous avez trente jours pour nous renvoyer un paquet non ouvert.",
        "Remboursement",
        "Vous êtes remboursé sous cinq jours ouvrés, sur le moyen de paiement utilisé.",
      ].join("\n"),
    },
    {
      url: "/livraison",
      title: "Livraison",
      lang: "fr",
      body: "Les colis partent le lendemain de la torréfaction et arrivent en deux à quatre jours.",
    },
  ]);
  try {
    const a = await ask(t, site, "Remboursements sous combien de jours ?");
    assert.match(firstSentence(a.answer), /^Vous êtes remboursé sous cinq jours/, a.answer);
    assert.equal(firstUrl(a), "/retours");
  } finally {
    t.close();
  }
});

/** A page whose FAQ is drawn by a script: the questions and answers are in its JSON-LD only. */
const FAQ_LD_PAGE = `<!doctype html><html lang="en"><head><title>Help centre</title>
<script type="application/ld+json">${
  JSON.stringify({
    "@context": "https://schema.org",
    "@type": "FAQPage",
    mainEntity: [
      {
        "@type": "Question",
        name: "Can I change my delivery address?",
        acceptedAnswer: {
          "@type": "Answer",
          text: "<p>Yes, until <b>Sunday 23:59</b> before the delivery is charged.</p>",
        },
      },
      {
        "@type": "Question",
        name: "Do you deliver on Saturdays?",
        acceptedAnswer: { "@type": "Answer", text: "No, parcels travel Monday to Friday only." },
      },
    ],
  })
}</script>
<script type="application/ld+json">{ broken json</script>
</head><body><main><h1>Help centre</h1><div id="faq-app">Loading questions…</div>
<p>Our team answers e-mail within one working day.</p></main></body></html>`;

Deno.test("answers - an FAQ stated only in schema.org FAQPage JSON-LD answers its questions, broken JSON-LD beside it", async () => {
  const page = extractPage(FAQ_LD_PAGE, "http://127.0.0.1/help");
  const { t, site } = await siteWith([
    {
      url: "/help",
      title: page.title,
      lang: page.lang,
      body: page.text,
      sections: page.sections.map((s) => ({ heading: s.heading, anchor: s.anchor })),
    },
    {
      url: "/delivery",
      title: "Delivery",
      body: "Every delivery is sent by post. Your delivery address is on the order confirmation.",
    },
  ]);
  try {
    const a = await ask(t, site, "can I change the delivery address");
    assert.match(firstSentence(a.answer), /^Yes, until Sunday 23:59/, a.answer);
    assert.doesNotMatch(a.answer, /Saturday|Monday to Friday/);
    assert.equal(firstUrl(a), "/help");
  } finally {
    t.close();
  }
});

Deno.test("answers - FAQPage questions the page text already holds are not added twice", () => {
  const html = FAQ_LD_PAGE.replace(
    "Loading questions…",
    "<h2>Do you deliver on Saturdays?</h2><p>No, parcels travel Monday to Friday only.</p>",
  );
  const page = extractPage(html, "http://127.0.0.1/help");
  assert.equal(page.text.split("Do you deliver on Saturdays?").length, 2, page.text);
  assert.equal(page.text.split("Can I change my delivery address?").length, 2, page.text);
});

Deno.test("answers - a name the site states ('Content Delivery Network (CDN)') finds the section that only uses the other name", async () => {
  const { t, site } = await siteWith([
    {
      url: "/glossary",
      title: "Glossary",
      body:
        "Our pages are served through a Content Delivery Network (CDN), which keeps copies of them close to visitors. A CDN is seldom empty for long.",
    },
    {
      url: "/help/caching",
      title: "Caching",
      headings: ["Emptying the content delivery network", "Browser caches"],
      body: [
        "Emptying the content delivery network",
        "Open Settings, choose Performance and press Purge all. The content delivery network fetches every page again within five minutes.",
        "Browser caches",
        "Visitors may still see an old page until their browser cache expires, usually within an hour.",
      ].join("\n"),
    },
  ]);
  try {
    const a = await ask(t, site, "How do I empty the CDN?");
    assert.match(firstSentence(a.answer), /^Open Settings, choose Performance and press Purge all/);
    assert.equal(firstUrl(a), "/help/caching");
  } finally {
    t.close();
  }
});
