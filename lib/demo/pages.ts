/**
 * The demo site's pages: Markdown files under `./pages/`, one a page, read once at start.
 * Lumen Coffee Roasters is made up; every name, price and policy is fiction, written to
 * agree across pages (one fact, one answer). Each file has front matter (`url`, `title`,
 * `description`) and a body of plain Markdown: paragraphs, `## ` section headings and `- `
 * lists. The page body keeps one block a paragraph (headings on their own line, one line
 * per list item); any other markup-looking text is shown as text.
 */

export interface DemoPage {
  url: string;
  title: string;
  description: string;
  body: string;
}

export const DEMO_SITE_NAME = "Lumen Coffee Roasters";

const PAGES_DIR = new URL("./pages/", import.meta.url);

/** Reads one page file: `---` front matter of `key: value` lines, then the body. */
export function parseDemoPage(text: string, file: string): DemoPage {
  const m = /^---\n([\s\S]*?)\n---\n\n?([\s\S]*)$/.exec(text.replaceAll("\r\n", "\n"));
  if (!m) throw new Error(`${file}: no front matter`);
  const meta = new Map<string, string>();
  for (const line of m[1].split("\n")) {
    const at = line.indexOf(":");
    if (at < 1) continue;
    const value = line.slice(at + 1).trim();
    // A value with ": " in it is written as a JSON string, as YAML allows.
    meta.set(line.slice(0, at).trim(), value.startsWith('"') ? JSON.parse(value) : value);
  }
  const field = (name: string) => {
    const value = meta.get(name);
    if (!value) throw new Error(`${file}: front matter has no ${name}`);
    return value;
  };
  return {
    url: field("url"),
    title: field("title"),
    description: field("description"),
    body: plainBody(m[2]),
  };
}

/** Markdown blocks to the plain body: wrapped lines joined, `## ` dropped, one line per item. */
function plainBody(markdown: string): string {
  return markdown.trim().split(/\n\s*\n/).map((block) => {
    const lines = block.split("\n").map((line) => line.trim());
    if (!lines[0].startsWith("- ")) return lines.join(" ").replace(/^#{1,6} /, "");
    const items: string[] = [];
    for (const line of lines) {
      if (line.startsWith("- ")) items.push(line);
      else items[items.length - 1] += " " + line;
    }
    return items.join("\n");
  }).join("\n\n");
}

function readDir(dir: URL): DemoPage[] {
  const pages: DemoPage[] = [];
  for (const entry of Deno.readDirSync(dir)) {
    if (entry.isDirectory) pages.push(...readDir(new URL(`${entry.name}/`, dir)));
    else if (entry.name.endsWith(".md")) {
      const file = new URL(entry.name, dir);
      pages.push(parseDemoPage(Deno.readTextFileSync(file), file.pathname));
    }
  }
  return pages;
}

/** Every demo page, in URL order (the demo's navigation lists them so). */
export const DEMO_PAGES: DemoPage[] = readDir(PAGES_DIR).sort((a, b) =>
  a.url < b.url ? -1 : a.url > b.url ? 1 : 0
);
