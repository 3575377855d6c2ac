import { disposeSets, evalSets } from "./eval_sets.ts";
const [name, n] = [Deno.args[0], Number(Deno.args[1] ?? 40)];
for (const s of await evalSets([name])) {
  const js = JSON.parse(await Deno.readTextFile(s.plain)).judgments;
  const run = JSON.parse(await Deno.readTextFile(`/tmp/qruns/${name}_judgments.json`));
  let shown = 0;
  const ranks: Record<string, number> = {};
  for (const j of js) {
    const r: string[] = run[j.id] ?? [];
    const at = r.findIndex((u) => j.relevant.includes(u.split("#")[0]));
    const key = at < 0 ? "miss" : at === 0 ? "1" : at < 3 ? "2-3" : "4-10";
    ranks[key] = (ranks[key] ?? 0) + 1;
    if (at !== 0 && shown++ < n) {
      console.log(`${at < 0 ? "MISS" : "@" + (at + 1)} ${JSON.stringify(j.query)} want ${j.relevant.join(",")} got ${r.slice(0, 3).join(" ")}`);
    }
  }
  console.log(ranks);
}
await disposeSets();
