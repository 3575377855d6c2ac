/** The README as a page (the API reference link): headings, paragraphs, lists and code blocks. */
import type { ComponentChildren } from "preact";

/** Inline `code` spans as <code>, the rest as text. */
function inline(text: string): ComponentChildren[] {
  return text.split(/(`[^`]+`)/).map((part) =>
    part.startsWith("`") && part.endsWith("`") && part.length > 1
      ? <code key={part}>{part.slice(1, -1)}</code>
      : part
  );
}

export function Readme({ markdown }: { markdown: string }) {
  const out: ComponentChildren[] = [];
  const blocks = markdown.split(/\n(?=```)|(?<=```)\n/);
  for (const block of blocks) {
    if (block.startsWith("```")) {
      out.push(
        <pre class="code"><code>{block.replace(/^```\w*\n?/, "").replace(/```$/, "")}</code></pre>,
      );
      continue;
    }
    for (const para of block.split(/\n{2,}/)) {
      const p = para.trim();
      if (!p) continue;
      const heading = /^(#{1,4})\s+(.*)$/.exec(p);
      if (heading) {
        const level = Math.min(heading[1].length + 1, 4);
        out.push(
          level === 2
            ? <h2>{heading[2]}</h2>
            : level === 3
            ? <h3>{heading[2]}</h3>
            : <h4>{heading[2]}</h4>,
        );
      } else if (p.startsWith("|")) {
        out.push(<pre class="code">{p}</pre>);
      } else if (/^[-*] /.test(p)) {
        out.push(
          <ul>{p.split(/\n(?=[-*] )/).map((li) => <li key={li}>{inline(li.slice(2))}</li>)}</ul>,
        );
      } else out.push(<p>{inline(p)}</p>);
    }
  }
  return <article class="prose">{out}</article>;
}
