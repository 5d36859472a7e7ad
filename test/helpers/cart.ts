import { env, exports } from "cloudflare:workers";
import { expect } from "vitest";
import { type Cart, CartSchema } from "../../src/cart/api.ts";
import type { IssuedToken } from "../../src/auth/api.ts";
import { CatalogStore, type VariantRecord } from "../../src/catalog/store.ts";
import { bearerInit } from "./bearer.ts";
import { publishSeedCatalog, seedCatalog } from "./catalog.ts";

/** Shared set-up for the cart, token, auth and CORS tests: real worker, real KV, real DOs. */
export { ORIGIN as BASE } from "./worker.ts";
import { ORIGIN as BASE } from "./worker.ts";
export const OPERATOR_SECRET = "test-operator-secret";

export function call(path: string, init: RequestInit = {}): Promise<Response> {
  return exports.default.fetch(`${BASE}${path}`, init);
}

/** Calls the operator surface with the test operator secret. */
export function operator(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set("Authorization", `Bearer ${OPERATOR_SECRET}`);
  if (init.body !== undefined) headers.set("Content-Type", "application/json");
  return call(`/api/v1/operator${path}`, { ...init, headers });
}

/** Issues a fresh token (a fresh holder, so a fresh cart and a fresh rate-limit bucket). */
export async function issueToken(label = "test"): Promise<IssuedToken> {
  const res = await operator("/tokens", { method: "POST", body: JSON.stringify({ label }) });
  if (res.status !== 201) throw new Error(`issue failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as IssuedToken;
}

/** Calls a cart endpoint with `token`; a JSON `body` gets the JSON content type. */
export function cartCall(
  token: string,
  path: string,
  init: Omit<RequestInit, "body"> & { body?: unknown } = {},
): Promise<Response> {
  return call(`/api/v1${path}`, bearerInit(token, init));
}

export interface SeedVariants {
  version: string;
  /**
   * Available variants whose stock is not tracked, in seed order, as the catalog adapter returns
   * them: any number of units can be added (the tracked ones, 3 left, are test/stock's).
   */
  available: VariantRecord[];
  /** Sold-out variants (the variant or its product). */
  soldOut: VariantRecord[];
}

/** Publishes the seed catalog (idempotent) and reads its variants through the real adapter. */
export async function seedVariants(): Promise<SeedVariants> {
  const version = await publishSeedCatalog();
  const ids = seedCatalog().products.flatMap((p) => p.variants.map((v) => v.id));
  const found = await new CatalogStore(env.CATALOG).getVariants(version, ids);
  const all = ids.map((id) => found.get(id)).filter((v): v is VariantRecord => v !== undefined);
  return {
    version,
    available: all.filter((v) => v.available && !v.tracked),
    soldOut: all.filter((v) => !v.available),
  };
}

/** The Cart a cart response carries; any status but 200 fails the test. */
/** POST /cart/lines for `variantId`, with an Idempotency-Key when one is given. */
export function addLine(token: string, variantId: string, quantity: number, key?: string): Promise<Response> {
  return cartCall(token, "/cart/lines", {
    method: "POST",
    body: { variant_id: variantId, quantity },
    ...(key ? { headers: { "Idempotency-Key": key } } : {}),
  });
}

export async function cartFrom(res: Response): Promise<Cart> {
  expect(res.status).toBe(200);
  return CartSchema.parse(await res.json());
}

/** The token holder's cart, as `GET /cart` answers it. */
export async function readCart(token: string): Promise<Cart> {
  return cartFrom(await cartCall(token, "/cart"));
}
