import { describe, expect, it } from "vitest";
import { CartSchema } from "../../src/cart/api.ts";
import { StockBatchResultSchema, StockDetailSchema } from "../../src/stock/results.ts";
import { api, withToken } from "./http.ts";

/**
 * Live stock over real HTTP against `npm run dev` (section 9.3). The seed tracks Heavyweight
 * Pocket Tee Navy: M has 3 left, S none. Other e2e files read the seed's answers, so this one
 * never changes whether anything is available: it asks for more than is left, and rewrites S's 0.
 */
const M_NAVY = "44102938475615";
const S_NAVY = "44102938475614";
const OPERATOR = { Authorization: "Bearer dev-operator-secret" };

function operator(path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return api(`/api/v1/operator${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { ...OPERATOR, ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function freshToken(): Promise<string> {
  const res = await operator("/tokens", { label: "e2e stock" });
  expect(res.status).toBe(201);
  return ((await res.json()) as { token: string }).token;
}

describe("live stock over real HTTP", () => {
  it("writes the seed's levels into the Stock objects and shows them to the operator", async () => {
    const res = await operator(`/stock/${M_NAVY}`);
    expect(res.status).toBe(200);
    const detail = StockDetailSchema.parse(await res.json());
    expect(detail.level).toMatchObject({ tracked: true, inventory_policy: "deny" });
    expect(detail.movements.some((m) => m.source === "publish")).toBe(true);
  });

  it("refuses an add of more than is left (409 insufficient_stock) and of a size with none left (404 sold_out)", async () => {
    const token = await freshToken();
    const left = StockDetailSchema.parse(await (await operator(`/stock/${M_NAVY}`)).json()).level.available_quantity;
    const more = await withToken(token, "/api/v1/cart/lines", {
      method: "POST",
      body: { variant_id: M_NAVY, quantity: left + 1 },
    });
    expect(more.status).toBe(409);
    expect(await more.json()).toMatchObject({
      error: { type: "invalid_request_error", code: "insufficient_stock", param: "quantity", available_quantity: left },
    });
    const none = await withToken(token, "/api/v1/cart/lines", {
      method: "POST",
      body: { variant_id: S_NAVY, quantity: 1 },
    });
    expect(none.status).toBe(404);
    expect(await none.json()).toMatchObject({ error: { code: "sold_out", message: "Sold out" } });
    const ok = await withToken(token, "/api/v1/cart/lines", {
      method: "POST",
      body: { variant_id: M_NAVY, quantity: 1 },
    });
    expect(ok.status).toBe(200);
    expect(CartSchema.parse(await ok.json()).lines[0]).toMatchObject({ available: true, in_stock: true });
  });

  it("applies an operator batch once under its Idempotency-Key, and refuses an unknown variant changing nothing", async () => {
    const key = `e2e-${crypto.randomUUID()}`;
    const first = await operator("/stock", { changes: [{ variant_id: S_NAVY, set: 0 }] }, { "Idempotency-Key": key });
    expect(first.status).toBe(200);
    expect(StockBatchResultSchema.parse(await first.json()).changes[0]).toMatchObject({ quantity: 0, applied: "now" });
    const again = await operator("/stock", { changes: [{ variant_id: S_NAVY, set: 0 }] }, { "Idempotency-Key": key });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    const unknown = await operator("/stock", { changes: [{ variant_id: "12345", set: 4 }] });
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({ error: { code: "parameter_invalid", param: "changes.0.variant_id" } });
  });
});
