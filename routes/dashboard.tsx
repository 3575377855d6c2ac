/**
 * The site owner's dashboard. GET /dashboard signs in (a plain form, no JavaScript), then shows
 * the operator's list of sites or one site's first steps, usage, analytics, settings, keys,
 * content and embed snippet. A site with no pages yet opens on its first steps (crawl, try its
 * results page, embed); the islands call the admin API with the session cookie
 * (lib/http/session.ts).
 */
import { type Context, Hono } from "hono";
import type { ComponentChildren } from "preact";
import { Island } from "../components/Island.tsx";
import { pageResponse, renderPage } from "../components/render.tsx";
import { SignIn } from "../components/SignIn.tsx";
import { analyticsReport, DEFAULT_DAYS } from "../lib/analytics/report.ts";
import { crawlSettingsOf, listCrawlJobs } from "../lib/crawl/jobs.ts";
import { sitemapWatchOf } from "../lib/crawl/watch_record.ts";
import { allowOnly, type AppEnv, readBody } from "../lib/http/middleware.ts";
import { DomainError } from "../lib/errors.ts";
import { signInAttempt } from "../lib/http/sign_in_limit.ts";
import {
  assertSameOrigin,
  clearSessionCookie,
  sessionCookie,
  type SessionWho,
  setSessionCookie,
} from "../lib/http/session.ts";
import { PLAN_NAMES, PLANS } from "../lib/limits/plans.ts";
import { siteUsage } from "../lib/limits/usage.ts";
import { getAnswerPins, getCurations, getSynonyms } from "../lib/levers/owner.ts";
import { selfCheckRuns } from "../lib/answers/selfcheck.ts";
import type { Services } from "../lib/services.ts";
import { listDocuments } from "../lib/sites/documents.ts";
import { constantTimeEqual, isAdminKey, sha256HexSync } from "../lib/sites/keys.ts";
import { publicView, type Site } from "../lib/sites/store.ts";

const PATH = "/dashboard";
/** The hosted results page (routes/results_page.tsx), which takes the site's public key. */
const RESULTS_PATH = "/search-results";

// The two search counts, each explained where it is shown. Server text, kept out of the bundle.
const USAGE_NOTE =
  "“Searches this month” is what the plan's monthly quota counts: searches admitted since the 1st (UTC), where a visitor typing in the search box counts once per query, not once per keystroke. The chart and Analytics count finished searches (the queries visitors settled on), so their totals are usually a little lower.";
const ANALYTICS_NOTE =
  "“Searches” counts finished searches: the queries visitors settled on, however many letters they typed on the way. Usage's “Searches this month” counts what the plan's quota counts, so it is usually a little higher.";
const FORM_LIMIT = 4 * 1024;

/** The signed-in dashboard session and who it stands for, or null. */
export async function dashboardSession(s: Services, c: Context) {
  const found = await s.sessions.read(sessionCookie(c));
  const caller = found ? await s.sessions.caller(found.who) : null;
  return found && caller ? { ...found, caller } : null;
}

export function dashboardRoutes(s: Services, demo: boolean) {
  const app = new Hono<AppEnv>();
  const page = (title: string, body: ComponentChildren, status = 200) =>
    pageResponse(renderPage({ title: `${title} · SiteSearch`, path: PATH, body, demo }), status);

  app.get(PATH, async (c) => {
    const current = await dashboardSession(s, c);
    if (!current) return page("Sign in", <SignIn />);
    const { caller } = current;
    const wanted = c.req.query("site");
    if (caller.operator && !wanted) return page("All sites", await operatorView(s));
    const site = caller.operator ? await s.sites.get(wanted ?? "") : caller.site;
    if (!site) return page("No such site", <p class="status error">No site with that id.</p>, 404);
    return page(site.name, await siteView(s, site, caller.operator, new URL(c.req.url).origin));
  });

  app.post(`${PATH}/session`, async (c) => {
    assertSameOrigin(c);
    const form = new URLSearchParams(new TextDecoder().decode(await readBody(c, FORM_LIMIT)));
    const key = (form.get("key") ?? "").trim();
    // An address that keeps failing waits: no key or token is guessed at speed.
    const attempt = signInAttempt(c, s.signInLimit, s.trustedProxies);
    try {
      await attempt.check();
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      c.header("Retry-After", String(err.details.retryAfter ?? 60));
      return page("Sign in", <SignIn error={err.message} />, 429);
    }
    let who: SessionWho | null = null;
    if (s.operatorTokenHash && key && constantTimeEqual(sha256HexSync(key), s.operatorTokenHash)) {
      who = { operator: true, tokenHash: s.operatorTokenHash };
    } else if (isAdminKey(key)) {
      const site = await s.sites.byAdminKey(key);
      if (site) who = { operator: false, siteId: site.id, keyHash: site.adminKeyHash };
    }
    if (!who) {
      await attempt.failed();
      const message = key
        ? "That key is not valid. Use the site's admin key (sk_…), not its public key."
        : "Enter your site admin key.";
      return page("Sign in", <SignIn error={message} />, 401);
    }
    const previous = await s.sessions.read(sessionCookie(c));
    if (previous) await s.sessions.end(previous.id); // one session per browser
    setSessionCookie(c, await s.sessions.create(who), s.sessions.ttlMs);
    return c.redirect(PATH, 303);
  });

  app.post(`${PATH}/signout`, async (c) => {
    assertSameOrigin(c);
    const found = await s.sessions.read(sessionCookie(c));
    if (found) await s.sessions.end(found.id);
    clearSessionCookie(c);
    return c.redirect(PATH, 303);
  });

  allowOnly(app, PATH, ["GET"]);
  allowOnly(app, `${PATH}/session`, ["POST"]);
  allowOnly(app, `${PATH}/signout`, ["POST"]);
  return app;
}

function SignOut({ operator }: { operator: boolean }) {
  return (
    <form method="post" action={`${PATH}/signout`} class="signout">
      <span class="muted">
        {operator ? "Signed in as the operator" : "Signed in with the admin key"}
      </span>
      <button type="submit" class="button small">Sign out</button>
    </form>
  );
}

async function operatorView(s: Services) {
  const ids = await s.sites.listIds();
  const sites = (await Promise.all(ids.map((id) => s.sites.get(id)))).filter((x): x is Site => !!x);
  return (
    <>
      <div class="dash-head">
        <h1>All sites</h1>
        <SignOut operator />
      </div>
      <Island
        name="SitesAdmin"
        props={{
          plans: PLAN_NAMES,
          sites: sites.map((x) => ({
            id: x.id,
            name: x.name,
            plan: x.plan,
            domain: x.domain,
            createdAt: x.createdAt,
            limits: x.limits,
          })),
        }}
      />
    </>
  );
}

async function siteView(s: Services, site: Site, operator: boolean, origin: string) {
  const documentsAllowed = PLANS[site.plan].documents;
  await s.analytics.flush();
  const dayOfMonth = new Date(s.clock()).getUTCDate();
  const [
    usage,
    report,
    month,
    pages,
    documents,
    crawls,
    crawlSettings,
    synonyms,
    curations,
    answers,
    runs,
    watch,
  ] = await Promise.all([
    siteUsage(s, site),
    analyticsReport(s.kv, s.clock, site.id, DEFAULT_DAYS),
    analyticsReport(s.kv, s.clock, site.id, dayOfMonth),
    s.pages.list(site.id, { limit: 100 }),
    documentsAllowed ? listDocuments(s, site, { limit: 100 }) : null,
    listCrawlJobs(s, site.id, 1),
    crawlSettingsOf(s, site),
    getSynonyms(s, site),
    getCurations(s, site),
    getAnswerPins(s, site),
    selfCheckRuns(s, site),
    sitemapWatchOf(s, site),
  ]);
  const view = publicView(site, s.clock());
  const documentCount = documents?.documents.length ?? 0;
  // Empty: the first steps lead and hold the crawl form and the code (each once on the page).
  const firstRun = usage.pages.count === 0 && documentCount === 0;
  const embed = { siteId: site.id, origin, publicKey: site.publicKey };
  const steps = (
    <Island
      name="FirstRun"
      props={{
        ...embed,
        resultsPage: site.settings.resultsPage,
        resultsPath: RESULTS_PATH,
        pages: usage.pages.count + documentCount,
        searched: usage.month.used > 0 || report.days.some((d) => d.searches > 0),
        open: firstRun,
        crawl: firstRun ? { last: crawls[0] ?? null, settings: crawlSettings } : null,
        documentsAllowed,
      }}
    />
  );
  const content = (
    <Island
      name="ContentPanel"
      props={{
        siteId: site.id,
        pages: pages.pages.map((p) => ({ url: p.url, title: p.title, updatedAt: p.updatedAt })),
        cursor: pages.cursor,
        total: usage.pages.count,
        documentsAllowed,
        documents: documents?.documents.map((d) => ({
          id: d.id,
          title: d.title,
          type: d.type,
          bytes: d.bytes,
        })) ??
          [],
        lastCrawl: crawls[0] ?? null,
        crawlSettings,
        watch,
        crawlHere: !firstRun,
      }}
    />
  );
  return (
    <>
      <div class="dash-head">
        <div>
          <h1>{site.name}</h1>
          <p class="muted">
            <span class="badge">{site.plan}</span> {site.id}
            {operator
              ? (
                <>
                  {" · "}
                  <a href={PATH}>All sites</a>
                </>
              )
              : null}
          </p>
        </div>
        <SignOut operator={operator} />
      </div>
      <div class="dash-grid">
        {steps}
        {firstRun ? content : null}
        <Island
          name="UsageMeters"
          props={{ siteId: site.id, usage, days: month.days, note: USAGE_NOTE }}
        />
        <Island
          name="AnalyticsPanel"
          props={{ siteId: site.id, report, days: DEFAULT_DAYS, note: ANALYTICS_NOTE }}
        />
        <Island
          name="SettingsForm"
          props={{
            siteId: site.id,
            settings: view.settings,
            followupsOnPlan: PLANS[site.plan].followups,
          }}
        />
        <Island
          name="KeysPanel"
          props={{
            siteId: site.id,
            publicKey: site.publicKey,
            previous: view.previousPublicKey,
          }}
        />
        {firstRun ? null : content}
        {firstRun ? null : (
          <Island
            name="FreshnessPanel"
            props={{ siteId: site.id, siteOrigin: URL.parse(crawlSettings.url)?.origin ?? null }}
          />
        )}
        <Island
          name="LeversPanel"
          props={{
            siteId: site.id,
            ...synonyms,
            ...curations,
            answers: answers.answers,
            runs,
          }}
        />
        {firstRun ? null : (
          <Island
            name="EmbedSnippet"
            props={{ ...embed, resultsPage: site.settings.resultsPage }}
          />
        )}
      </div>
    </>
  );
}
