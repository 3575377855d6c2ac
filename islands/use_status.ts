/// <reference lib="dom" />
/** A tuning tab's status line: "Saved" and the like go after a few seconds; errors stay. */
import { useEffect, useState } from "preact/hooks";
import type { StatusValue } from "./ui.tsx";

/** How long a status that reports success stays on screen. */
export const OK_STATUS_MS = 4_000;

/** The status and its setter; a success clears itself after OK_STATUS_MS. */
export function useStatus() {
  const [status, setStatus] = useState<StatusValue>(null);
  useEffect(() => {
    if (status?.kind !== "ok") return;
    const timer = setTimeout(() => setStatus(null), OK_STATUS_MS);
    return () => clearTimeout(timer);
  }, [status]);
  return [status, setStatus] as const;
}
