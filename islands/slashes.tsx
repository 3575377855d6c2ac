/**
 * Text that wraps after a "/" or at its own spaces, and nowhere else: URLs, paths and code in
 * narrow columns break between their parts, never mid-word (nor at a hyphen). A part wider than
 * the whole line is the one exception: it breaks inside itself rather than overflow. Not an island.
 */
import type { ComponentChild } from "preact";

/** `text` with each run between slashes and spaces kept whole (`.seg`), a <wbr> after each slash. */
export function Slashed({ text }: { text: string }) {
  const out: ComponentChild[] = [];
  text.split(/(\s+)/).forEach((token, i) => {
    if (i % 2 === 1 || !token) return void out.push(token); // whitespace wraps as it is
    token.split(/(?<=\/)/).forEach((part, j) => {
      if (j > 0) out.push(<wbr />);
      out.push(<span class="seg">{part}</span>);
    });
  });
  return <>{out}</>;
}
