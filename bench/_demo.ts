import { createApp } from "../app.ts";
import { ensureDemoSite } from "../lib/demo/site.ts";
const kv = await Deno.openKv(":memory:");
const { app, services: s } = createApp({ kv, log: () => {}, summaryIpLimitPerMinute: 1e6 });
const demo = await ensureDemoSite(s);
const key = (demo as unknown as { publicKey: string }).publicKey;
const ask = async (body: unknown) =>
  (await app.fetch(
    new Request("http://x/api/summarize", {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-API-Key": key },
      body: JSON.stringify(body),
    }),
  )).json();
for (
  const q of Deno.args.length ? Deno.args : [
    "can I pause my subscription",
    "how much is membership",
    "How do I brew with a V60?",
    "Do you ship to Austria?",
    "What is your refund policy?",
    "asdkjh qwoeiu zxmcn",
    "How long does shipping take?",
    "Which coffee is best for espresso?",
  ]
) {
  const r = await ask({ query: q });
  console.log(
    "Q:",
    q,
    "\n  ",
    r.answer,
    "\n   sources:",
    r.sources?.map((x: { url: string }) => x.url).join(" "),
    "credits",
    r.creditsRemaining,
  );
}
kv.close();
