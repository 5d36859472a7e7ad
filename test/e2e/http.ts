import { inject } from "vitest";
import { bearerInit } from "../helpers/bearer.ts";

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
export function withToken(
  token: string,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<Response> {
  return api(path, bearerInit(token, { method: "GET", ...init }));
}
