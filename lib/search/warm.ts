/**
 * The search path run on a small index of its own when a process starts, so that V8 has
 * compiled decoding, ranking, correcting and highlighting before a visitor's first search
 * (after a restart that search also reads and decodes the site's snapshot: every millisecond
 * of code compiled on its path shows). Nothing of it is kept.
 */
import { decodeSiteDb, encodeSiteDb } from "./persistence/snapshot_codec.ts";
import { searchDb } from "./presentation/results.ts";
import { addDoc, createSiteDb, headingsText } from "./store/site_db.ts";

const TOPICS = ["shipping", "returns", "accounts", "payments", "settings", "privacy"];

/** A page of the warm-up site: a title, a lead and two sections, as the crawler stores them. */
function page(topic: string, i: number) {
  const sections = [
    { heading: `How ${topic} works`, anchor: `how-${topic}` },
    { heading: `Changing your ${topic} options`, anchor: `change-${topic}` },
  ];
  const lines = [
    `${topic} explained: what the service does with your ${topic} and when.`,
    sections[0].heading,
    `Every ${topic} request is checked, stored and answered within two working days.`,
    sections[1].heading,
    `Open the ${topic} page of your account, change the options and save them.`,
  ];
  return {
    id: `/help/${topic}-${i}`,
    title: `${topic[0].toUpperCase()}${topic.slice(1)} guide ${i}`,
    description: `All about ${topic}.`,
    headings: headingsText(sections),
    body: lines.join("\n"),
    sections,
    lang: "en",
  };
}

/**
 * Runs `rounds` × 3 searches (whole words, a prefix being typed, a typo) on a snapshot of a small
 * index; returns the fewest results one of them found (each should find some: results shown and
 * highlighted are part of the path).
 */
export function warmSearch(rounds = 30): number {
  const built = createSiteDb();
  TOPICS.forEach((t, i) => [0, 1, 2].forEach((n) => addDoc(built, page(t, i * 3 + n))));
  const db = decodeSiteDb(encodeSiteDb(built).slice());
  let fewest = Infinity;
  for (let r = 0; r < rounds; r++) {
    const topic = TOPICS[r % TOPICS.length];
    for (
      const q of [
        `${topic} options`,
        topic.slice(0, 4),
        `${topic.slice(0, -2)}${topic.at(-1)}${topic.at(-2)} `,
      ]
    ) {
      fewest = Math.min(fewest, searchDb(db, q, 1, 10).found);
    }
  }
  return fewest;
}
