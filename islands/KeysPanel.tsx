/// <reference lib="dom" />
/**
 * The site's keys: the public key, and rotation of either key behind a confirmation step. The
 * public key may keep working for a grace period (docs/api.md: graceSeconds), so pages can be updated.
 */
import { useState } from "preact/hooks";
import { jsonBody, requestJson } from "./api.ts";
import { adminPath, CopyButton, failure, Panel, Status, type StatusValue } from "./ui.tsx";

/** Tells the embed snippet that the public key changed. */
export const PUBLIC_KEY_EVENT = "sitesearch:publickey";

type Which = "public" | "admin";

/** The grace periods offered, in seconds (the API takes 0 to 7 days). */
export const GRACE: [number, string][] = [
  [0, "None"],
  [3_600, "1 hour"],
  [86_400, "1 day"],
  [604_800, "7 days"],
];

/** One day, as the API's own default: pages that cache the old key have time to be updated. */
export const DEFAULT_GRACE = 86_400;

/** A moment as the owner reads it, in UTC so that the server's and the browser's text agree. */
export const when = (iso: string) =>
  new Date(iso).toISOString().slice(0, 16).replace("T", " ") + " UTC";

/** The public key before the last rotation, while it still works. */
export interface OldKey {
  key: string;
  expiresAt: string;
}

export function KeysPanel(p: { siteId: string; publicKey: string; previous: OldKey | null }) {
  const [publicKey, setPublicKey] = useState(p.publicKey);
  const [previous, setPrevious] = useState(p.previous);
  const [confirming, setConfirming] = useState<Which | null>(null);
  const [grace, setGrace] = useState(DEFAULT_GRACE);
  const [fresh, setFresh] = useState<{ which: Which; key: string } | null>(null);
  const [status, setStatus] = useState<StatusValue>(null);

  const rotate = async (which: Which) => {
    setConfirming(null);
    setStatus({ kind: "busy", text: "Rotating…" });
    try {
      const r = await requestJson<
        { publicKey?: string; adminKey?: string; previousPublicKey?: OldKey | null }
      >(
        adminPath(p.siteId, "/keys/rotate"),
        jsonBody("POST", which === "public" ? { key: which, graceSeconds: grace } : { key: which }),
      );
      const key = (which === "public" ? r.publicKey : r.adminKey) ?? "";
      if (which === "public") {
        setPublicKey(key);
        setPrevious(r.previousPublicKey ?? null);
        dispatchEvent(new CustomEvent(PUBLIC_KEY_EVENT, { detail: key }));
      } else {
        // This session was bound to the old admin key: sign in again with the new one.
        await fetch("/dashboard/session", {
          method: "POST",
          body: new URLSearchParams({ key }),
          redirect: "manual",
          credentials: "same-origin",
        });
      }
      setFresh({ which, key });
      setStatus({ kind: "ok", text: `The ${which} key was rotated.` });
    } catch (e) {
      setStatus({ kind: "error", text: failure(e) });
    }
  };

  const warn = confirming === "admin"
    ? "The current admin key stops working at once. The new one is shown only once."
    : grace
    ? `The current key keeps working until about ${
      when(new Date(Date.now() + grace * 1000).toISOString())
    }: update every page that embeds it before then.`
    : "The current public key stops working at once: every page that embeds it must be updated.";

  return (
    <Panel id="keys" title="Keys">
      <p class="label">Public search key</p>
      <p class="keyline">
        <code data-key="public">{publicKey}</code> <CopyButton text={publicKey} />
      </p>
      {previous
        ? (
          <p class="muted" data-old-key>
            The previous key <code>{previous.key}</code> keeps working until{" "}
            <time dateTime={previous.expiresAt}>{when(previous.expiresAt)}</time>.
          </p>
        )
        : null}
      {fresh
        ? (
          <div class="notice" role="alert">
            <p>
              New {fresh.which} key{fresh.which === "admin" ? " (shown only now: copy it)" : ""}:
            </p>
            <p class="keyline">
              <code data-key="fresh">{fresh.key}</code> <CopyButton text={fresh.key} />
            </p>
          </div>
        )
        : null}
      {confirming
        ? (
          <div class="confirm" role="group" aria-label={`Rotate the ${confirming} key`}>
            {confirming === "public"
              ? (
                <div class="field">
                  <label for="grace">Grace period for the current key</label>
                  <select
                    id="grace"
                    value={String(grace)}
                    onChange={(e) => setGrace(Number((e.target as HTMLSelectElement).value))}
                  >
                    {GRACE.map(([n, label]) => <option key={n} value={String(n)}>{label}</option>)}
                  </select>
                </div>
              )
              : null}
            <p data-warn>{warn}</p>
            <div class="confirm-actions">
              <button type="button" class="button danger" onClick={() => rotate(confirming)}>
                Rotate the {confirming} key now
              </button>
              <button type="button" class="button" onClick={() => setConfirming(null)}>
                Cancel
              </button>
            </div>
          </div>
        )
        : (
          <p class="actions">
            <button type="button" class="button" onClick={() => setConfirming("public")}>
              Rotate public key…
            </button>{" "}
            <button type="button" class="button" onClick={() => setConfirming("admin")}>
              Rotate admin key…
            </button>
          </p>
        )}
      <Status value={status} />
    </Panel>
  );
}
