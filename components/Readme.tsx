/** The README as a page (the API reference link): headings, paragraphs, lists, tables and code. */
import type { ComponentChildren } from "preact";

/** Inline `code` spans as <code>, the rest as text. */
function inline(text: string): ComponentChildren[] {
  return text.split(/(`[^`]+`)/).map((part, i) =>
    part.length > 1 && part.startsWith("`") && part.endsWith("`")
      ? <code key={i}>{part.slice(1, -1)}</code>
      : part
  );
}

const cells = (row: string) => row.trim().replace(/^\||\|$/g, "").split("|").map((c) => c.trim());
const special = (line: string) => /^(```|#{1,4} |\||[-*] )/.test(line);

/** Blocks of a Markdown text, line by line. */
function blocks(markdown: string): ComponentChildren[] {
  const lines = markdown.split("\n");
  const out: ComponentChildren[] = [];
  for (let i = 0; i < lines.length;) {
    const line = lines[i];
    const take = (until: (l: string) => boolean) => {
      const got: string[] = [];
      while (i < lines.length && !until(lines[i])) got.push(lines[i++]);
      return got;
    };
    if (line.startsWith("```")) {
      i++;
      const code = take((l) => l.startsWith("```"));
      i++;
      out.push(<pre class="code"><code>{code.join("\n")}</code></pre>);
    } else if (/^#{1,4} /.test(line)) {
      const [, hashes, text] = /^(#+) (.*)$/.exec(line)!;
      out.push(
        hashes.length === 1
          ? <h1>{text}</h1>
          : hashes.length === 2
          ? <h2>{text}</h2>
          : <h3>{text}</h3>,
      );
      i++;
    } else if (line.startsWith("|")) {
      const rows = take((l) => !l.startsWith("|")).filter((r) => !/^\|[\s:|-]+\|?$/.test(r.trim()));
      out.push(
        <div class="table-wrap">
          <table class="table">
            <thead>
              <tr>{cells(rows[0]).map((c, k) => <th key={k} scope="col">{inline(c)}</th>)}</tr>
            </thead>
            <tbody>
              {rows.slice(1).map((r, k) => (
                <tr key={k}>{cells(r).map((c, j) => <td key={j}>{inline(c)}</td>)}</tr>
              ))}
            </tbody>
          </table>
        </div>,
      );
    } else if (/^[-*] /.test(line)) {
      const items = take((l) => !l.trim() || (!/^[-*] /.test(l) && !/^\s/.test(l)))
        .join("\n").split(/\n(?=[-*] )/);
      out.push(<ul>{items.map((item, k) => <li key={k}>{inline(item.slice(2))}</li>)}</ul>);
    } else if (!line.trim()) i++;
    else {
      out.push(<p>{inline([line, ...(i++, take((l) => !l.trim() || special(l)))].join(" "))}</p>);
    }
  }
  return out;
}

export function Readme({ markdown }: { markdown: string }) {
  return <article class="prose">{blocks(markdown)}</article>;
}
