import { inject } from "vitest";

/** The dev tokens `npm run dev` seeds into local state. */
export const TOKEN_A = "sf_dev_LocalToken_A1";
export const TOKEN_B = "sf_dev_LocalToken_B2";

/** An available seed variant (Essential Crew Tee - Black, M) and a sold-out one (Example T-Shirt). */
export const AVAILABLE_VARIANT = "44102938475602";
export const SOLD_OUT_VARIANT = "44102938475688";

/** Calls the e2e dev server over real HTTP. */
export function api(path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${inject("e2eBaseUrl")}${path}`, { redirect: "manual", ...init });
}

/** Calls a cart endpoint with a dev token; an object body is sent as JSON. */
export function withToken(token: string, path: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set("Authorization", `Bearer ${token}`);
  let body: string | undefined;
  if (init.body !== undefined) {
    body = typeof init.body === "string" ? init.body : JSON.stringify(init.body);
    if (!headers.has("Content-Type")) headers.set("Content-Type", "application/json");
  }
  return api(path, { method: init.method ?? "GET", headers, ...(body !== undefined ? { body } : {}) });
}
