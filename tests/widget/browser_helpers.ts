/**
 * Browser test plumbing: finding Chromium, the real app on a loopback port, and a second
 * loopback server (another origin) that plays the site owner's pages.
 */
import { createApp } from "../../app.ts";
import type { PlanName } from "../../lib/limits/plans.ts";
import { OPERATOR } from "../helpers.ts";

export const SCREENSHOTS = new URL("../.screenshots/", import.meta.url);

/**
 * Imports playwright-core. Its bundled `is-wsl` probes /proc/sys/fs/binfmt_misc/WSLInterop at
 * import time, and Deno grants reads under /proc/sys only with --allow-all, so the import
 * throws under the test task's narrower flags. With __IS_WSL_TEST__ set, is-wsl defers the
 * probe to a function that only playwright's `open()` helper (never used here) calls. The
 * variable stays set: `deno test --parallel` runs files on threads of one process, whose
 * environment they share, so restoring it could unset it under another file's import.
 */
export async function loadPlaywright(): Promise<typeof import("playwright-core")> {
  Deno.env.set("__IS_WSL_TEST__", "1");
  return await import("playwright-core");
}

/** Chromium's path: $CHROMIUM_PATH, else the usual Debian and Chrome locations; null if none. */
export function findChromium(): string | null {
  const candidates = [
    Deno.env.get("CHROMIUM_PATH"),
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/bin/google-chrome",
    "/usr/bin/google-chrome-stable",
  ];
  for (const path of candidates) {
    if (!path) continue;
    try {
      if (Deno.statSync(path).isFile) return path;
    } catch { /* not here */ }
  }
  return null;
}

/**
 * The features Playwright turns off when it launches Chromium (playwright-core's
 * `chromiumSwitches`). Chromium keeps only the last `--disable-features` it is given, so ours
 * must name these again; tests/widget/chromium_args_test.ts checks that none is lost.
 */
const PLAYWRIGHT_DISABLED_FEATURES = [
  "AimEnabled",
  "AvoidCorsURLLoaderRestartOnRedirect",
  "AvoidUnnecessaryBeforeUnloadCheckSync",
  "DestroyProfileOnBrowserClose",
  "HttpsFirstBalancedModeAutoEnable",
  "HttpsUpgrades",
  "LensOverlay",
  "MediaRouter",
  "NetworkTimeServiceQuerying",
  "OptimizationHints",
  "PaintHolding",
  "PreconnectToSearch",
  "TcpPortRandomizationWin",
  "ThirdPartyStoragePartitioning",
  "msEdgeUpdateLaunchServicesPreferredVersion",
  "msForceBrowserSignIn",
];

/**
 * Every window (and each browser context opens one) preloads the address bar's two popups as
 * WebUI pages, though a headless browser draws no address bar: 1.3 s of a renderer's CPU and
 * 0.4 s of the browser's for each context, against 0.55 s in all without them. The suite
 * opens a context per step in most browser files, on two shared cores.
 */
const UNUSED_FEATURES = ["WebUIOmniboxPopup", "WebUIOmniboxAimPopup"];

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-quic",
  `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...UNUSED_FEATURES].join(",")}`,
];

/**
 * Registers the browser suite, or says loudly why it cannot run: without Chromium the suite is
 * skipped, except under CI=true, where it fails.
 */
export function browserSuite(
  name: string,
  fn: (t: Deno.TestContext, chromium: string) => Promise<void>,
) {
  const path = findChromium();
  if (path) {
    Deno.test({ name, sanitizeOps: false, sanitizeResources: false, fn: (t) => fn(t, path) });
    return;
  }
  const why = "Chromium was not found (set CHROMIUM_PATH, or apt-get install chromium)";
  if (Deno.env.get("CI") === "true") {
    Deno.test(name, () => {
      throw new Error(`${why}; the browser tests must run under CI.`);
    });
    return;
  }
  console.warn(`\n${"!".repeat(72)}\n!!  BROWSER TESTS SKIPPED: ${why}.\n${"!".repeat(72)}\n`);
  Deno.test({ name: `${name} (SKIPPED: no Chromium)`, ignore: true, fn: () => {} });
}

export interface Server {
  origin: string;
  close: () => Promise<void>;
}

/** The real app on 127.0.0.1 with a fresh in-memory KV. */
export async function serveApp(): Promise<Server & { call: typeof fetch; kv: Deno.Kv }> {
  const kv = await Deno.openKv(":memory:");
  const { app, services } = createApp({ kv, operatorToken: OPERATOR, log: () => {} });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, app.fetch);
  const origin = `http://127.0.0.1:${server.addr.port}`;
  return {
    origin,
    kv,
    call: (input, init) => fetch(new URL(String(input), origin), init),
    close: async () => {
      await server.shutdown();
      services.analytics.discard();
      kv.close();
    },
  };
}

export interface Site {
  id: string;
  publicKey: string;
  adminKey: string;
}

/** A site created and filled through the admin API, with optional settings and limits. */
export async function makeSite(
  call: typeof fetch,
  o: {
    plan: PlanName;
    pages: { url: string; title: string; body: string; description?: string }[];
    settings?: Record<string, unknown>;
  },
): Promise<Site> {
  const auth = (token: string) => ({
    Authorization: `Bearer ${token}`,
    "Content-Type": "application/json",
  });
  const json = async (res: Response, want: number) => {
    const body = await res.json();
    if (res.status !== want) throw new Error(`${res.url}: ${res.status} ${JSON.stringify(body)}`);
    return body;
  };
  const created = await json(
    await call("/api/admin/sites", {
      method: "POST",
      headers: auth(OPERATOR),
      body: JSON.stringify({ name: "Browser test", plan: o.plan }),
    }),
    201,
  );
  const site = { id: created.site.id, publicKey: created.publicKey, adminKey: created.adminKey };
  const put = await json(
    await call(`/api/admin/sites/${site.id}/pages`, {
      method: "PUT",
      headers: auth(site.adminKey),
      body: JSON.stringify({ pages: o.pages }),
    }),
    200,
  );
  if (put.counts.failed) throw new Error(`pages refused: ${JSON.stringify(put.results)}`);
  if (o.settings) {
    await json(
      await call(`/api/admin/sites/${site.id}`, {
        method: "PATCH",
        headers: auth(OPERATOR),
        body: JSON.stringify(o.settings),
      }),
      200,
    );
  }
  return site;
}

export interface HostPage {
  /** Extra `<head>` markup (the script tags, a hostile stylesheet). */
  head: string;
  body: string;
  /** A Content-Security-Policy header for the page. */
  csp?: string;
  /** The page's `<html lang>` (English when not given). */
  lang?: string;
}

/**
 * A site owner's server on another loopback port (so another origin): serves the pages it is
 * given, a landing page for any other path, and collects CSP reports.
 */
export function serveHost(): Server & {
  pages: Map<string, HostPage>;
  cspReports: unknown[];
} {
  const pages = new Map<string, HostPage>();
  const cspReports: unknown[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const url = new URL(req.url);
    if (url.pathname === "/csp-report") {
      cspReports.push(await req.text());
      return new Response(null, { status: 204 });
    }
    if (url.pathname === "/favicon.ico") return new Response(null, { status: 404 });
    const page = pages.get(url.pathname) ?? {
      head: "",
      body: `<h1 id="landed">Landed on ${escape(url.pathname)}</h1>`,
    };
    const headers: Record<string, string> = { "Content-Type": "text/html; charset=utf-8" };
    if (page.csp) headers["Content-Security-Policy"] = page.csp;
    return new Response(
      `<!doctype html><html lang="${
        escape(page.lang ?? "en")
      }"><head><meta charset="utf-8"><title>Host page</title>${page.head}</head><body>${page.body}</body></html>`,
      { headers },
    );
  });
  return {
    origin: `http://127.0.0.1:${server.addr.port}`,
    pages,
    cspReports,
    close: () => server.shutdown(),
  };
}

export const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The widget.js tag a site owner pastes. */
export function widgetTag(api: string, key: string, attrs: Record<string, string> = {}): string {
  const extra = Object.entries(attrs).map(([k, v]) => ` ${k}="${escape(v)}"`).join("");
  return `<script async src="${api}/widget.js" data-key="${key}"${extra}></script>`;
}

/** The results.js tag a site owner pastes on the results page. */
export function resultsTag(api: string, key: string, attrs: Record<string, string> = {}): string {
  const extra = Object.entries(attrs).map(([k, v]) => ` ${k}="${escape(v)}"`).join("");
  return `<script defer src="${api}/results.js" data-key="${key}"${extra}></script>`;
}

/** Where the scripts draw: the search bar, its options, and the results page's list. */
export const BAR = "[data-sitesearch=bar]";
export const OPTION = `${BAR} [role=option]`;
export const RESULTS = "[data-sitesearch=results]";

/** The dashboard's session cookie for `key`, signed in as the browser's form would send it. */
export async function sessionCookie(
  call: (path: string, init?: RequestInit) => Promise<Response>,
  origin: string,
  key: string,
): Promise<string> {
  const res = await call("/dashboard/session", {
    method: "POST",
    headers: { Origin: origin, "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ key }),
    redirect: "manual",
  });
  await res.body?.cancel();
  return /sitesearch_session=([^;]+)/.exec(res.headers.get("set-cookie") ?? "")![1];
}
