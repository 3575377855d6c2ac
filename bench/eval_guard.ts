/**
 * The eval's guard: each set's figures are kept in bench/eval_baseline.json, and a run that
 * lowers any of them by more than TOLERANCE fails (`deno task eval` exits 1) unless it is
 * accepted with a general reason (`--accept="…"`), which then belongs in the commit message.
 * `--update` writes the run's figures as the new baseline (refused on a drop not accepted).
 */

/** How far a figure may fall from the baseline before the run fails. */
export const TOLERANCE = 0.01;

/** The baseline's home, beside this file. */
export const BASELINE_PATH = new URL("./eval_baseline.json", import.meta.url);

/** One set's figures: MRR@10 plain and typo, P@1, and the FAQ and how-to answers' F1 and cite@1. */
export type SetFigures = Partial<
  Record<"mrr" | "mrrTypo" | "p1" | "f1" | "cite1" | "howtoF1" | "howtoCite1", number>
>;
export type Figures = Record<string, SetFigures>;

export interface Drop {
  set: string;
  figure: keyof SetFigures;
  from: number;
  to: number;
}

/** The figures of `now` that fell more than `tolerance` below `baseline` (sets in both only). */
export function drops(baseline: Figures, now: Figures, tolerance = TOLERANCE): Drop[] {
  const out: Drop[] = [];
  for (const [set, figures] of Object.entries(now)) {
    const before = baseline[set];
    if (!before) continue;
    for (const [figure, to] of Object.entries(figures) as [keyof SetFigures, number][]) {
      const from = before[figure];
      // Figures are compared as printed (three decimals), so rounding never fails a run.
      if (from !== undefined && round(from) - round(to) > tolerance + 1e-9) {
        out.push({ set, figure, from, to });
      }
    }
  }
  return out;
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** The baseline with `now`'s sets replaced (sets not run keep their figures), rounded. */
export function updated(baseline: Figures, now: Figures): Figures {
  const out: Figures = { ...baseline };
  for (const [set, figures] of Object.entries(now)) {
    out[set] = Object.fromEntries(
      Object.entries(figures).map(([k, v]) => [k, round(v)]),
    ) as SetFigures;
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

/** What the guard says of a run, and whether it passes. */
export function verdict(
  found: Drop[],
  accepted: string | undefined,
): { ok: boolean; lines: string[] } {
  if (!found.length) return { ok: true, lines: ["eval guard: no set fell by more than 0.01"] };
  const lines = found.map((d) =>
    `eval guard: ${d.set} ${d.figure} fell ${d.from.toFixed(3)} → ${d.to.toFixed(3)}`
  );
  if (accepted?.trim()) {
    return { ok: true, lines: [...lines, `eval guard: accepted: ${accepted.trim()}`] };
  }
  return {
    ok: false,
    lines: [
      ...lines,
      "eval guard: a change that lowers a set by more than 0.01 is not kept, unless a general " +
      'reason is stated: run again with --accept="<reason>" and write the reason in the commit.',
    ],
  };
}

/** The baseline on disk ({} when there is none yet). */
export async function readBaseline(): Promise<Figures> {
  try {
    return JSON.parse(await Deno.readTextFile(BASELINE_PATH));
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return {};
    throw e;
  }
}
