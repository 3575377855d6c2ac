/**
 * Whether this process runs on Deno Deploy (or is started as Deploy starts it: DENO_DEPLOY=true,
 * as tests/deploy does). False without permission to read the environment: Deploy grants it.
 */
export function onDeploy(): boolean {
  try {
    return Deno.env.get("DENO_DEPLOY") === "true" ||
      Deno.env.get("DENO_DEPLOYMENT_ID") !== undefined;
  } catch {
    return false;
  }
}
