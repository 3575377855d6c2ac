import assert from "node:assert/strict";
import { retrieve } from "../../lib/answers/retrieve.ts";
import { citedSources, extractiveAnswer } from "../../lib/answers/extractive.ts";
import { admin, createSite, OPERATOR, putPages, startApp } from "../helpers.ts";

/** A small shop site: the answer to each question sits under one heading of one page. */
export const SHOP = [
  {
    url: "/help/subscriptions",
    title: "Subscriptions",
    headings: ["Changing your plan", "Can I pause my subscription?", "Cancelling"],
    body: [
      "Changing your plan",
      "You can switch between the Daily and Weekend plans from your account page at any time. The change applies from the next delivery.",
      "Can I pause my subscription?",
      "Yes. Open Account, choose Subscription and press Pause. A pause lasts one to eight weeks, and nothing is charged while it runs.",
      "Cancelling",
      "Cancel any time from the same page; the last box already paid for is still sent.",
    ].join("\n"),
  },
  {
    url: "/blog/august",
    title: "Why can I not pause my subscription in August? Notes on pausing",
    body:
      "Can I pause my subscription in August, readers ask, when we pause roasting? Pausing a subscription, pausing roasting, pausing everything: our subscription team pauses the roaster every August. Whether you pause or not, a subscription pause is a matter of taste, and we like to pause.",
  },
  {
    url: "/membership",
    title: "Membership",
    headings: ["How much is membership?", "What you get"],
    body: [
      "How much is membership?",
      "Membership costs 8 euros a month or 80 euros a year, and you can stop it at the end of any month.",
      "What you get",
      "Members get free delivery on every order and a bag of a new coffee each season.",
    ].join("\n"),
  },
  {
    url: "/news",
    title: "News",
    body:
      "Our membership of the Specialty Coffee Association was renewed this year. Much has changed since we joined, and we are proud of how much our roasting has improved.",
  },
];

async function shop() {
  const t = await startApp();
  const site = await createSite(t, "basic");
  await putPages(t, site, SHOP);
  const full = (await t.services.sites.get(site.id))!;
  return { t, site: full };
}

Deno.test("retrieve - the answer comes from the section under the matching heading, not from a page repeating the question", async () => {
  const { t, site } = await shop();
  for (
    const q of [
      "Can I pause my subscription?",
      "pause subscription",
      "How do I pause my subscription?",
    ]
  ) {
    const r = await retrieve(t.services, site, q);
    assert.equal(r.matched, true, q);
    assert.equal(r.texts[0].heading, "Can I pause my subscription?", q);
    assert.deepEqual(r.refs[0], {
      type: "page",
      title: "Subscriptions",
      url: "/help/subscriptions",
    });
    const answer = extractiveAnswer(q, r.texts);
    assert.match(answer, /press Pause/, q);
    assert.match(answer, /^Yes\. Open Account/, `${q}: the section is read from its start`);
    assert.deepEqual(citedSources(answer), [1]);
  }
  t.close();
});

Deno.test("retrieve - a question phrased as a question finds the same section as its keywords", async () => {
  const { t, site } = await shop();
  for (const q of ["How much is membership?", "membership cost", "What does membership cost?"]) {
    const r = await retrieve(t.services, site, q);
    assert.equal(r.matched, true, q);
    assert.equal(r.refs[0].type === "page" && r.refs[0].url, "/membership", q);
    assert.match(extractiveAnswer(q, r.texts), /8 euros a month/, q);
  }
  t.close();
});

Deno.test("retrieve - gibberish and questions the site does not cover match nothing", async () => {
  const { t, site } = await shop();
  for (const q of ["xqzv blorptang wuzzle?", "How do I reset my router firmware?", "what is it?"]) {
    const r = await retrieve(t.services, site, q);
    assert.equal(r.matched, false, q);
    assert.deepEqual(r.refs, []);
  }
  t.close();
});

Deno.test("retrieve - a page source points at its section's anchor when the page record has one", async () => {
  const { t, site } = await shop();
  const sections = [
    { heading: "Changing your plan", anchor: "change" },
    { heading: "Can I pause my subscription?", anchor: "pause" },
    { heading: "Cancelling", anchor: "cancel" },
  ];
  const page = { ...SHOP[0], sections };
  await t.services.pages.upsert(site.id, page, Infinity);
  // Until the page store keeps `sections` itself, put them on the stored record by hand.
  const meta = await t.services.pages.meta(site.id, page.url);
  if (meta && !("sections" in meta)) {
    await t.kv.set(["page", site.id, page.url], { ...meta, sections });
  }
  const r = await retrieve(t.services, site, "Can I pause my subscription?");
  assert.deepEqual(r.refs[0], {
    type: "page",
    title: "Subscriptions",
    url: "/help/subscriptions#pause",
  });
  assert.equal(r.texts[0].anchor, "pause");
  t.close();
});

Deno.test("retrieve - a question in the owner's synonym finds the section search finds for it", async () => {
  const { t, site } = await shop();
  const question = "Tell me about the club";
  const before = await retrieve(t.services, site, question);
  assert.ok(
    !before.refs.some((r) => r.type === "page" && r.url.startsWith("/membership")),
    JSON.stringify(before.refs),
  );
  const put = await t.call(`/api/admin/sites/${site.id}/synonyms`, {
    method: "PUT",
    headers: { authorization: `Bearer ${OPERATOR}`, "content-type": "application/json" },
    body: JSON.stringify({ synonyms: [{ word: "club", means: ["membership"] }] }),
  });
  assert.equal(put.status, 200, await put.text());
  const after = await retrieve(t.services, site, question);
  assert.equal(after.matched, true);
  assert.equal(after.refs[0].type === "page" && after.refs[0].url.split("#")[0], "/membership");
  assert.match(extractiveAnswer(after.question, after.texts), /8 euros a month/);
  t.close();
});

Deno.test("retrieve - the page that explains a thing answers before the changelog bullets that mention it", async () => {
  const t = await startApp();
  const site = await createSite(t, "basic");
  const bullets = (v: string) =>
    `Fixed macros that lost their caller in nested blocks. Macros now keep their defaults. ` +
    `Macros in ${v} render faster.`;
  await putPages(t, site, [
    {
      url: "/changes",
      title: "Changes",
      headings: ["Version 2.1", "Version 2.0", "Version 1.9"],
      body: [
        "Version 2.1",
        bullets("2.1"),
        "Version 2.0",
        bullets("2.0"),
        "Version 1.9",
        bullets(
          "1.9",
        ),
      ].join("\n"),
    },
    {
      url: "/templates",
      title: "Template designer guide",
      headings: ["Variables", "Control structures"],
      body: [
        "Variables",
        "Variables are passed to the template by the application.",
        "Control structures",
        "A control structure steers a template: conditionals, loops, macros and blocks.",
      ].join("\n"),
    },
  ]);
  const full = (await t.services.sites.get(site.id))!;
  const r = await retrieve(t.services, full, "macros");
  assert.equal(r.matched, true);
  assert.equal(r.refs[0].type === "page" && r.refs[0].url.split("#")[0], "/templates");
  t.close();
});

Deno.test("retrieve - a how-to question is answered from the section named for the task, even far down a long page", async () => {
  const t = await startApp();
  const site = await createSite(t, "basic");
  const filler = (topic: string) =>
    Array.from(
      { length: 40 },
      (_, i) => `The ${topic} reference, part ${i}: options, defaults and limits of the ${topic}.`,
    ).join(" ");
  // Sixty sections of reference before the one that tells how to do the task asked about.
  const headings = Array.from({ length: 60 }, (_, i) => `Option group ${i}`);
  const body = headings.flatMap((h) => [h, filler("kiln")]);
  headings.push("Writing a glaze recipe for a kiln");
  body.push(
    "Writing a glaze recipe for a kiln",
    "Start from a base of silica, flux and alumina, weigh each part to a tenth of a gram, and fire a test tile before any glaze recipe goes on a pot.",
  );
  await putPages(t, site, [
    { url: "/kiln", title: "Kiln reference", headings, body: body.join("\n") },
    {
      url: "/glazes",
      title: "Glazes",
      body: "Glaze recipes are shared by the studio's members; a kiln fires them at cone six.",
    },
  ]);
  assert.ok(
    body.join("\n").length > 25_000,
    "the section is beyond what is read of a page at first",
  );
  const found = await retrieve(
    t.services,
    (await t.services.sites.get(site.id))!,
    "How do I write a glaze recipe for a kiln?",
  );
  assert.equal(found.matched, true);
  assert.equal(found.texts[0].heading, "Writing a glaze recipe for a kiln");
  t.close();
});

Deno.test("retrieve - a section a curation hides for the question is never read for its answer", async () => {
  const t = await startApp();
  const site = await createSite(t, "pro");
  await putPages(t, site, [
    {
      url: "/api.html",
      title: "API reference",
      headings: ["Custom filters", "Rate limits"],
      body:
        "API reference\nCustom filters\nNarrow results with custom filters: a category, a brand, a year.\n" +
        "Rate limits\nA key may send ten requests a second; custom filters count once.",
      sections: [
        { heading: "Custom filters", anchor: "custom-filters" },
        { heading: "Rate limits", anchor: "rate-limits" },
      ],
    } as Parameters<typeof putPages>[2][number],
  ]);
  const ask = async () =>
    await retrieve(t.services, (await t.services.sites.get(site.id))!, "custom filters");
  assert.equal((await ask()).texts[0].heading, "Custom filters");
  const res = await t.call(`/api/admin/sites/${site.id}/curations`, {
    ...admin(site.adminKey, {
      curations: [{ query: "custom filters", hide: ["/api.html#custom-filters"] }],
    }),
    method: "PUT",
  });
  assert.equal(res.status, 200, await res.text());
  const after = await ask();
  assert.ok(after.texts.length > 0, "the page's other sections still answer");
  assert.ok(after.texts.every((x) => x.anchor !== "custom-filters"), JSON.stringify(after.texts));
  t.close();
});

Deno.test("retrieve - a heading that is the question's words and no others answers it before a heading that only mentions them", async () => {
  const t = await startApp();
  const site = await createSite(t, "basic");
  await putPages(t, site, [
    {
      url: "/reference",
      title: "Frobnicator testing tools",
      headings: ["assertGlazed(expected, message, frobnicator, *args)"],
      body: "Frobnicator testing tools\nassertGlazed(expected, message, frobnicator, *args)\n" +
        "Asserts that calling the frobnicator with args glazes the pot; the frobnicator and its " +
        "message are checked, a frobnicator that raises fails the test, and any frobnicator " +
        "used this way is a frobnicator of the test's own.",
    },
    {
      url: "/guide",
      title: "Firing pots",
      headings: ["Using a frobnicator"],
      body: "Firing pots\nUsing a frobnicator\n" +
        "Clip it to the kiln's door before the firing, and set its dial to the cone you fire to.",
    },
  ]);
  const found = await retrieve(
    t.services,
    (await t.services.sites.get(site.id))!,
    "How do I use a frobnicator?",
  );
  assert.equal(found.texts[0].heading, "Using a frobnicator");
  t.close();
});
