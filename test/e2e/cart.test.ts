import { beforeAll, describe, expect, it } from "vitest";
import { CartSchema } from "../../src/cart/api.ts";
import { ErrorResponseSchema } from "../../src/http/errors.ts";
import { api, AVAILABLE_VARIANT, SOLD_OUT_VARIANT, TOKEN_A, TOKEN_B, withToken } from "./http.ts";

// Only this file writes to the carts of the dev tokens, so its steps can count on their state.
describe("cart over real HTTP with the dev tokens", () => {
  beforeAll(async () => {
    for (const token of [TOKEN_A, TOKEN_B])
      expect((await withToken(token, "/api/v1/cart", { method: "DELETE" })).status).toBe(200);
  });

  it("adds an available variant (200), refuses a sold-out one (404 Sold out) and reads the cart back", async () => {
    const added = await withToken(TOKEN_A, "/api/v1/cart/lines", {
      method: "POST",
      body: { variant_id: AVAILABLE_VARIANT, quantity: 2 },
    });
    expect(added.status).toBe(200);
    expect(added.headers.get("cache-control")).toBe("no-store");
    const cart = CartSchema.parse(await added.json());
    expect(cart.lines).toHaveLength(1);
    expect(cart.subtotal).toEqual({ amount: "56.00", currency: "USD" });

    const refused = await withToken(TOKEN_A, "/api/v1/cart/lines", {
      method: "POST",
      body: { variant_id: `gid://shopify/ProductVariant/${SOLD_OUT_VARIANT}`, quantity: 1 },
    });
    expect(refused.status).toBe(404);
    expect(ErrorResponseSchema.parse(await refused.json()).error).toMatchObject({
      code: "sold_out",
      message: "Sold out",
    });

    const read = CartSchema.parse(await (await withToken(TOKEN_A, "/api/v1/cart")).json());
    expect(read.lines.map((l) => [l.variant_id, l.quantity])).toEqual([[AVAILABLE_VARIANT, 2]]);
  });

  it("replays a retried write with the same Idempotency-Key instead of adding twice", async () => {
    const init = {
      method: "POST",
      headers: { "Idempotency-Key": "e2e-retry-1" },
      body: { variant_id: "44102938475680", quantity: 1 },
    };
    const first = await withToken(TOKEN_A, "/api/v1/cart/lines", init);
    const retry = await withToken(TOKEN_A, "/api/v1/cart/lines", init);
    expect(retry.status).toBe(200);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(await retry.json()).toEqual(await first.json());
  });

  it("changes and removes a line", async () => {
    const cart = CartSchema.parse(await (await withToken(TOKEN_A, "/api/v1/cart")).json());
    const line = cart.lines.find((l) => l.variant_id === AVAILABLE_VARIANT);
    const patched = CartSchema.parse(
      await (
        await withToken(TOKEN_A, `/api/v1/cart/lines/${line?.id}`, { method: "PATCH", body: { quantity: 5 } })
      ).json(),
    );
    expect(patched.lines.find((l) => l.id === line?.id)?.quantity).toBe(5);
    const removed = CartSchema.parse(
      await (await withToken(TOKEN_A, `/api/v1/cart/lines/${line?.id}`, { method: "DELETE" })).json(),
    );
    expect(removed.lines.some((l) => l.id === line?.id)).toBe(false);
  });

  it("keeps each token holder to its own cart", async () => {
    const a = CartSchema.parse(await (await withToken(TOKEN_A, "/api/v1/cart")).json());
    const b = CartSchema.parse(await (await withToken(TOKEN_B, "/api/v1/cart")).json());
    expect(a.lines.length).toBeGreaterThan(0);
    expect(b.lines).toEqual([]);
    expect(b.id).not.toBe(a.id);
    const foreign = await withToken(TOKEN_B, `/api/v1/cart/lines/${a.lines[0]?.id}`, { method: "DELETE" });
    expect(foreign.status).toBe(404);
  });
});

describe("authentication over real HTTP", () => {
  it("answers 401 with the Bearer challenge and docs_url without a token", async () => {
    const res = await api("/api/v1/cart");
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer realm="storefront"/);
    const body = ErrorResponseSchema.parse(await res.json());
    expect(body.error.type).toBe("authentication_error");
    expect(body.error.docs_url).toBeTruthy();
  });

  it("answers 401 invalid_token for an unknown token", async () => {
    const res = await withToken("sf_dev_NotAToken_Z9", "/api/v1/cart");
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });

  it("never takes a token from the query string", async () => {
    const res = await api(`/api/v1/cart?access_token=${TOKEN_A}`);
    expect([400, 401]).toContain(res.status);
  });

  it("accepts the scheme word in any case", async () => {
    const res = await api("/api/v1/cart", { headers: { Authorization: `bearer ${TOKEN_B}` } });
    expect(res.status).toBe(200);
  });

  it("no longer reserves checkout (401 without a token, never 501 with one) and keeps login reserved (always 501)", async () => {
    expect((await api("/api/v1/checkouts", { method: "POST" })).status).toBe(401);
    const checkout = await withToken(TOKEN_B, "/api/v1/checkouts", { method: "POST" });
    // Contract 9.4: a checkout (201), or the cart's own reason it cannot be one (400 cart_empty, 409).
    expect([201, 400, 409]).toContain(checkout.status);
    if (checkout.status === 201) {
      const { id } = (await checkout.json()) as { id: string };
      expect((await withToken(TOKEN_B, `/api/v1/checkouts/${id}`, { method: "DELETE" })).status).toBe(200);
    } else {
      expect(ErrorResponseSchema.parse(await checkout.json()).error.type).toBe("invalid_request_error");
    }
    const login = await api("/api/v1/auth/login", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ vibes: TOKEN_A, linkedin_premium: true }),
    });
    expect(login.status).toBe(501);
    expect(ErrorResponseSchema.parse(await login.json()).error).toMatchObject({
      type: "not_implemented",
      retry: false,
    });
  });
});

/** What `npm run dev` passes as OPERATOR_SECRET (src/cli/dev.ts). */
const DEV_OPERATOR_SECRET = "dev-operator-secret";

function operator(path: string, init: { method?: string; body?: unknown } = {}): Promise<Response> {
  return api(`/api/v1/operator${path}`, {
    method: init.method ?? "GET",
    headers: { Authorization: `Bearer ${DEV_OPERATOR_SECRET}`, "Content-Type": "application/json" },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
}

describe("token lifecycle over real HTTP", () => {
  it("refuses a revoked token on the very next cart request", async () => {
    const issued = await operator("/tokens", { method: "POST", body: { label: "e2e revocation" } });
    expect(issued.status).toBe(201);
    const { id, token } = (await issued.json()) as { id: string; token: string };
    expect(
      (
        await withToken(token, "/api/v1/cart/lines", {
          method: "POST",
          body: { variant_id: AVAILABLE_VARIANT, quantity: 1 },
        })
      ).status,
    ).toBe(200);

    expect((await operator(`/tokens/${id}/revoke`, { method: "POST" })).status).toBe(200);
    const refused = await withToken(token, "/api/v1/cart");
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });

  it("keeps customer tokens off the operator surface", async () => {
    const res = await withToken(TOKEN_A, "/api/v1/operator/tokens");
    expect(res.status).toBe(401);
    expect(ErrorResponseSchema.parse(await res.json()).error.type).toBe("authentication_error");
  });
});
