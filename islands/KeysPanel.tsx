/// <reference lib="dom" />
/** The site's keys: the public key, and rotation of either key behind a confirmation step. */
import { useState } from "preact/hooks";
import { jsonBody, requestJson } from "./api.ts";
import { adminPath, CopyButton, failure, Panel, Status, type StatusValue } from "./ui.tsx";

/** Tells the embed snippet that the public key changed. */
export const PUBLIC_KEY_EVENT = "sitesearch:publickey";

type Which = "public" | "admin";

const WARN: Record<Which, string> = {
  public:
    "The current public key stops working at once: every page that embeds it must be updated.",
  admin: "The current admin key stops working at once. The new one is shown only once.",
};

export function KeysPanel(p: { siteId: string; publicKey: string }) {
  const [publicKey, setPublicKey] = useState(p.publicKey);
  const [confirming, setConfirming] = useState<Which | null>(null);
  const [fresh, setFresh] = useState<{ which: Which; key: string } | null>(null);
  const [status, setStatus] = useState<StatusValue>(null);

  const rotate = async (which: Which) => {
    setConfirming(null);
    setStatus({ kind: "busy", text: "Rotating…" });
    try {
      const r = await requestJson<{ publicKey?: string; adminKey?: string }>(
        adminPath(p.siteId, "/keys/rotate"),
        jsonBody("POST", { key: which }),
      );
      const key = (which === "public" ? r.publicKey : r.adminKey) ?? "";
      if (which === "public") {
        setPublicKey(key);
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

  return (
    <Panel id="keys" title="Keys">
      <p class="label">Public search key</p>
      <p class="keyline">
        <code data-key="public">{publicKey}</code> <CopyButton text={publicKey} />
      </p>
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
            <p>{WARN[confirming]}</p>
            <button type="button" class="button danger" onClick={() => rotate(confirming)}>
              Rotate the {confirming} key now
            </button>{" "}
            <button type="button" class="button" onClick={() => setConfirming(null)}>Cancel</button>
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
