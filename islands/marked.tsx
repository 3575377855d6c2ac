/** A highlight's snippet with its match ranges in <mark>, as text (never HTML). Not an island. */
import type { Highlight } from "./api.ts";

export function Marked({ h }: { h: Pick<Highlight, "snippet" | "matches"> }) {
  const out = [];
  let at = 0;
  for (const [start, end] of h.matches ?? []) {
    if (start < at || end <= start || end > h.snippet.length) continue;
    if (start > at) out.push(h.snippet.slice(at, start));
    out.push(<mark>{h.snippet.slice(start, end)}</mark>);
    at = end;
  }
  out.push(h.snippet.slice(at));
  return <>{out}</>;
}
