import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
// The dev entry (src/dev.ts): the deployed Worker plus the local test payment page.
import app from "../../src/dev.ts";

/** The origin every in-workerd request is sent to, and the API under it. */
export const ORIGIN = "https://storefront.test";
export const API = `${ORIGIN}/api/v1`;

/** The same worker with ENVIRONMENT (and any other var) overridden, as a deployed worker would run. */
export async function fetchAs(
  environment: string,
  path: string,
  init: RequestInit = {},
  vars: Partial<Env> = {},
): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await app.fetch(
    new Request(`${ORIGIN}${path}`, init),
    { ...env, ...vars, ENVIRONMENT: environment },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}
