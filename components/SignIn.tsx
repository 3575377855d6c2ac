/** The dashboard's sign-in form: a plain POST, so it works without JavaScript. */
export function SignIn({ error }: { error?: string }) {
  return (
    <section class="signin card-panel">
      <h1>Sign in to the dashboard</h1>
      <p class="muted">
        Use your site's admin key (<code>sk_…</code>, shown once when the site was created), or the
        operator token to manage all sites.
      </p>
      <form method="post" action="/dashboard/session">
        <label for="key">Admin key or operator token</label>
        <input
          id="key"
          name="key"
          type="password"
          autocomplete="current-password"
          required
          maxLength={200}
          aria-invalid={error ? "true" : undefined}
          aria-describedby={error ? "signin-error" : undefined}
        />
        {error ? <p id="signin-error" class="status error" role="alert">{error}</p> : null}
        <button type="submit" class="button primary">Sign in</button>
      </form>
    </section>
  );
}
