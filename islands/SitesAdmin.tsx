/// <reference lib="dom" />
/** The operator's view: every site, create one, set its plan and limits, delete it. */
import { useState } from "preact/hooks";
import { jsonBody, requestJson } from "./api.ts";
import { adminPath, CopyButton, failure, Panel, Status, type StatusValue } from "./ui.tsx";

interface Limits {
  searchesPerMinute?: number | null;
  searchesPerMonth?: number | null;
  aiCreditsPerMonth?: number | null;
  maxPerPage?: number | null;
}

interface SiteRow {
  id: string;
  name: string;
  plan: string;
  domain: string | null;
  createdAt: string;
  limits: Limits;
}

const LIMITS: [keyof Limits, string][] = [
  ["searchesPerMinute", "Searches / minute"],
  ["searchesPerMonth", "Searches / month"],
  ["aiCreditsPerMonth", "AI credits / month"],
  ["maxPerPage", "Max per page"],
];

function SiteItem(
  { site, plans, onChange, onDelete }: {
    site: SiteRow;
    plans: string[];
    onChange: (s: SiteRow) => void;
    onDelete: () => void;
  },
) {
  const [limits, setLimits] = useState<Record<string, string>>(
    Object.fromEntries(
      LIMITS.map(([k]) => [k, site.limits[k] == null ? "" : String(site.limits[k])]),
    ),
  );
  const [confirm, setConfirm] = useState(false);
  const [status, setStatus] = useState<StatusValue>(null);
  const patch = async (body: Record<string, unknown>, what: string) => {
    setStatus({ kind: "busy", text: "Saving…" });
    try {
      const r = await requestJson<{ site: SiteRow }>(adminPath(site.id), jsonBody("PATCH", body));
      onChange(r.site);
      setStatus({ kind: "ok", text: `Saved ${what}.` });
    } catch (e) {
      setStatus({ kind: "error", text: failure(e) });
    }
  };
  const saveLimits = (e: Event) => {
    e.preventDefault();
    const body: Record<string, number | null> = {};
    for (const [k] of LIMITS) body[k] = limits[k].trim() === "" ? null : Number(limits[k]);
    patch({ limits: body }, "limits");
  };
  const remove = async () => {
    setConfirm(false);
    try {
      await requestJson(adminPath(site.id), { method: "DELETE" });
      onDelete();
    } catch (e) {
      setStatus({ kind: "error", text: failure(e) });
    }
  };
  const id = (k: string) => `${site.id}-${k}`;
  return (
    <li class="site-item">
      <div class="site-head">
        <a href={`/dashboard?site=${encodeURIComponent(site.id)}`}>
          <strong>{site.name}</strong>
        </a>
        <span class="muted">{site.id}{site.domain ? ` · ${site.domain}` : ""}</span>
      </div>
      <form class="limits" onSubmit={saveLimits}>
        <div class="field">
          <label for={id("plan")}>Plan</label>
          <select
            id={id("plan")}
            value={site.plan}
            onChange={(e) => patch({ plan: (e.target as HTMLSelectElement).value }, "plan")}
          >
            {plans.map((p) => <option key={p} value={p}>{p}</option>)}
          </select>
        </div>
        {LIMITS.map(([k, label]) => (
          <div class="field">
            <label for={id(k)}>{label}</label>
            <input
              id={id(k)}
              inputMode="numeric"
              pattern="[0-9]*"
              placeholder="plan"
              value={limits[k]}
              onInput={(e) => setLimits({ ...limits, [k]: (e.target as HTMLInputElement).value })}
            />
          </div>
        ))}
        <div class="field end">
          <button type="submit" class="button">Save limits</button>
        </div>
      </form>
      <div class="row-actions">
        {confirm
          ? (
            <div class="confirm-inline">
              <span>Delete {site.name} and all its data?</span>
              {/* One group, so the two answers wrap together and never apart. */}
              <span class="confirm-actions">
                <button type="button" class="button small danger" onClick={remove}>
                  Delete site
                </button>
                <button type="button" class="button small" onClick={() => setConfirm(false)}>
                  Keep
                </button>
              </span>
            </div>
          )
          : (
            <button type="button" class="button small" onClick={() => setConfirm(true)}>
              Delete…
            </button>
          )}
      </div>
      <Status value={status} />
    </li>
  );
}

export function SitesAdmin(p: { plans: string[]; sites: SiteRow[] }) {
  const [sites, setSites] = useState(p.sites);
  const [name, setName] = useState("");
  const [plan, setPlan] = useState(p.plans[0] ?? "free");
  const [domain, setDomain] = useState("");
  const [created, setCreated] = useState<
    { name: string; publicKey: string; adminKey: string } | null
  >(null);
  const [status, setStatus] = useState<StatusValue>(null);
  const create = async (e: Event) => {
    e.preventDefault();
    setStatus({ kind: "busy", text: "Creating…" });
    try {
      const body: Record<string, string> = { name: name.trim(), plan };
      if (domain.trim()) body.domain = domain.trim();
      const r = await requestJson<{ site: SiteRow; publicKey: string; adminKey: string }>(
        "/api/admin/sites",
        jsonBody("POST", body),
      );
      setSites([...sites, r.site]);
      setCreated({ name: r.site.name, publicKey: r.publicKey, adminKey: r.adminKey });
      setName("");
      setDomain("");
      setStatus({ kind: "ok", text: `Created ${r.site.name}.` });
    } catch (err) {
      setStatus({ kind: "error", text: failure(err) });
    }
  };
  return (
    <>
      <Panel id="create" title="Create a site" wide>
        <form class="inline create" onSubmit={create}>
          <div class="field">
            <label for="new-name">Name</label>
            <input
              id="new-name"
              required
              maxLength={200}
              value={name}
              onInput={(e) => setName((e.target as HTMLInputElement).value)}
            />
          </div>
          <div class="field">
            <label for="new-plan">Plan</label>
            <select
              id="new-plan"
              value={plan}
              onChange={(e) => setPlan((e.target as HTMLSelectElement).value)}
            >
              {p.plans.map((x) => <option key={x} value={x}>{x}</option>)}
            </select>
          </div>
          <div class="field">
            <label for="new-domain">Domain (optional)</label>
            <input
              id="new-domain"
              placeholder="www.example.com"
              value={domain}
              onInput={(e) => setDomain((e.target as HTMLInputElement).value)}
            />
          </div>
          <div class="field end">
            <button type="submit" class="button primary">Create site</button>
          </div>
        </form>
        <Status value={status} />
        {created
          ? (
            <div class="notice" role="alert">
              <p>Keys of {created.name}. The admin key is shown only now: copy it.</p>
              <p class="keyline">
                Public: <code data-key="new-public">{created.publicKey}</code>{" "}
                <CopyButton text={created.publicKey} />
              </p>
              <p class="keyline">
                Admin: <code data-key="new-admin">{created.adminKey}</code>{" "}
                <CopyButton text={created.adminKey} />
              </p>
            </div>
          )
          : null}
      </Panel>
      <Panel id="sites" title={`Sites (${sites.length})`} wide>
        <ul class="sites">
          {sites.map((site) => (
            <SiteItem
              key={site.id}
              site={site}
              plans={p.plans}
              onChange={(next) =>
                setSites(sites.map((x) => (x.id === next.id ? { ...x, ...next } : x)))}
              onDelete={() => setSites(sites.filter((x) => x.id !== site.id))}
            />
          ))}
          {sites.length === 0 ? <li class="muted">No sites yet.</li> : null}
        </ul>
      </Panel>
    </>
  );
}
