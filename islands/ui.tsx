/// <reference lib="dom" />
/** Small pieces the dashboard's islands share: a panel, a status line, a copy button. Not islands. */
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { HttpError } from "./api.ts";

/** The admin API path of a site. */
export const adminPath = (siteId: string, rest = "") =>
  `/api/admin/sites/${encodeURIComponent(siteId)}${rest}`;

export function Panel(
  { id, title, wide, children, actions }: {
    id: string;
    title: string;
    wide?: boolean;
    children: ComponentChildren;
    actions?: ComponentChildren;
  },
) {
  return (
    <section class={wide ? "panel wide" : "panel"} aria-labelledby={`${id}-title`} id={id}>
      <div class="panel-head">
        <h2 id={`${id}-title`}>{title}</h2>
        {actions}
      </div>
      {children}
    </section>
  );
}

export type StatusValue = { kind: "ok" | "error" | "busy"; text: string } | null;

/** A status line read out by screen readers: saved, failed, working. */
export function Status({ value }: { value: StatusValue }) {
  return (
    <p class={`status ${value?.kind ?? ""}`} role="status" aria-live="polite">
      {value ? (value.kind === "ok" ? "✓ " : "") + value.text : ""}
    </p>
  );
}

/** The message of a failed call. */
export const failure = (e: unknown) =>
  e instanceof HttpError ? e.message : "Something went wrong. Try again.";

/** A button that copies `text` and says so. */
export function CopyButton(
  { text, label = "Copy", onCopied }: { text: string; label?: string; onCopied?: () => void },
) {
  const [done, setDone] = useState<string | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setDone("Copied");
      onCopied?.();
    } catch {
      setDone("Select and copy it by hand");
    }
    setTimeout(() => setDone(null), 2000);
  };
  return (
    <button type="button" class="button small" onClick={copy}>
      {done ?? label}
    </button>
  );
}

/** A number with thousands separators (the same on the server and in the browser). */
export const fmt = (n: number) => String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
