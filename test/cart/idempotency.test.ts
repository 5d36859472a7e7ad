import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { CartSchema } from "../../src/cart/api.ts";
import { cartFor, requestFingerprint } from "../../src/cart/cart-client.ts";
import type { Cart } from "../../src/cart/cart-object.ts";
import { fromFailure } from "../../src/http/errors.ts";
import { cartCall, issueToken, seedVariants, type SeedVariants } from "../helpers/cart.ts";

let seed: SeedVariants;
beforeAll(async () => {
  seed = await seedVariants();
});

function addWithKey(token: string, key: string, body: unknown): Promise<Response> {
  return cartCall(token, "/cart/lines", { method: "POST", body, headers: { "Idempotency-Key": key } });
}

async function quantityOf(token: string, variantId: string): Promise<number> {
  const cart = CartSchema.parse(await (await cartCall(token, "/cart")).json());
  return cart.lines.find((l) => l.variant_id === variantId)?.quantity ?? 0;
}

describe("Idempotency-Key on cart writes", () => {
  it("replays the first answer with Idempotent-Replayed: true and applies the write once", async () => {
    const { token } = await issueToken();
    const variant = seed.available[0]!;
    const body = { variant_id: variant.id, quantity: 2 };
    const first = await addWithKey(token, "retry-1", body);
    expect(first.status).toBe(200);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const firstBody = await first.text();
    const retry = await addWithKey(token, "retry-1", body);
    expect(retry.status).toBe(200);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(await retry.text()).toBe(firstBody);
    expect(await quantityOf(token, variant.id)).toBe(2);
  });

  it("treats the same body with other whitespace or key order as the same request", async () => {
    const { token } = await issueToken();
    const variant = seed.available[0]!;
    await cartCall(token, "/cart/lines", {
      method: "POST",
      body: `{"variant_id":"${variant.id}","quantity":1}`,
      headers: { "Idempotency-Key": "k" },
    });
    const again = await cartCall(token, "/cart/lines", {
      method: "POST",
      body: `{ "quantity": 1,  "variant_id": "${variant.id}" }`,
      headers: { "Idempotency-Key": "k" },
    });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await quantityOf(token, variant.id)).toBe(1);
  });

  it("replays a failure too, so a retry of a refused add stays refused", async () => {
    const { token } = await issueToken();
    const variant = seed.soldOut[0]!;
    const first = await addWithKey(token, "sold-out", { variant_id: variant.id, quantity: 1 });
    expect(first.status).toBe(404);
    const retry = await addWithKey(token, "sold-out", { variant_id: variant.id, quantity: 1 });
    expect(retry.status).toBe(404);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(await retry.json()).toMatchObject({ error: { code: "sold_out", message: "Sold out" } });
  });

  it("answers 422 idempotency_key_reused for the same key with a different body or path, and changes nothing", async () => {
    const { token } = await issueToken();
    const variant = seed.available[0]!;
    const first = await addWithKey(token, "reuse", { variant_id: variant.id, quantity: 1 });
    const lineId = CartSchema.parse(await first.json()).lines[0]!.id;
    const otherBody = await addWithKey(token, "reuse", { variant_id: variant.id, quantity: 5 });
    expect(otherBody.status).toBe(422);
    expect(await otherBody.json()).toEqual({
      error: { type: "idempotency_error", code: "idempotency_key_reused", message: expect.any(String) },
    });
    const otherPath = await cartCall(token, `/cart/lines/${lineId}`, {
      method: "PATCH",
      body: { quantity: 9 },
      headers: { "Idempotency-Key": "reuse" },
    });
    expect(otherPath.status).toBe(422);
    const otherMethod = await cartCall(token, "/cart", { method: "DELETE", headers: { "Idempotency-Key": "reuse" } });
    expect(otherMethod.status).toBe(422);
    expect(await quantityOf(token, variant.id)).toBe(1);
  });

  it("scopes keys to the token holder", async () => {
    const a = await issueToken("A");
    const b = await issueToken("B");
    const variant = seed.available[0]!;
    await addWithKey(a.token, "shared-key", { variant_id: variant.id, quantity: 1 });
    const res = await addWithKey(b.token, "shared-key", { variant_id: variant.id, quantity: 3 });
    expect(res.status).toBe(200);
    expect(res.headers.get("idempotent-replayed")).toBeNull();
    expect(await quantityOf(b.token, variant.id)).toBe(3);
    expect(await quantityOf(a.token, variant.id)).toBe(1);
  });

  it("applies a key sent by 20 concurrent requests exactly once", async () => {
    const { token } = await issueToken();
    const variant = seed.available[1]!;
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => addWithKey(token, "burst", { variant_id: variant.id, quantity: 4 })),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    const fresh = responses.filter((r) => r.status === 200 && r.headers.get("idempotent-replayed") === null);
    expect(fresh).toHaveLength(1);
    expect(await quantityOf(token, variant.id)).toBe(4);
  });

  it("answers 409 idempotency_key_in_use while the first request with the key is still running", async () => {
    const issued = await issueToken();
    const variant = seed.available[2]!;
    const stub = cartFor(env, issued.holder);
    const fingerprint = await requestFingerprint("POST", "/api/v1/cart/lines", { variant_id: variant.id, quantity: 1 });
    const input = { tokenId: issued.id, variantId: variant.id, quantity: 1, idempotency: { key: "slow", fingerprint } };
    const [first, second] = await runInDurableObject(stub, async (instance: Cart) => {
      const running = instance.addLine(input);
      const concurrent = instance.addLine(input);
      return Promise.all([running, concurrent]);
    });
    expect(first.ok).toBe(true);
    expect(second).toMatchObject({ ok: false, failure: { code: "idempotency_key_in_use" } });
    const res = await addWithKey(issued.token, "slow", { variant_id: variant.id, quantity: 1 });
    expect(res.headers.get("idempotent-replayed")).toBe("true");
    expect(await quantityOf(issued.token, variant.id)).toBe(1);
  });

  it("maps idempotency_key_in_use to 409 idempotency_error", async () => {
    const error = fromFailure({ code: "idempotency_key_in_use", message: "running" }, "https://docs");
    expect(error.status).toBe(409);
    expect(error.body).toMatchObject({ type: "idempotency_error", code: "idempotency_key_in_use" });
  });

  it("forgets keys after 24 hours", async () => {
    const issued = await issueToken();
    const variant = seed.available[0]!;
    await addWithKey(issued.token, "old", { variant_id: variant.id, quantity: 1 });
    const stub = cartFor(env, issued.holder);
    await runInDurableObject(stub, (_instance: Cart, state) => {
      state.storage.sql.exec("UPDATE idempotency_keys SET created_at = ?", Date.now() - 24 * 3600 * 1000 - 1);
    });
    const res = await addWithKey(issued.token, "old", { variant_id: variant.id, quantity: 2 });
    expect(res.status).toBe(200);
    expect(res.headers.get("idempotent-replayed")).toBeNull();
    expect(await quantityOf(issued.token, variant.id)).toBe(3);
  });

  it("replays a reply recorded before the cart crossed RPC as JSON text, byte for byte", async () => {
    const issued = await issueToken();
    const variant = seed.available[0]!;
    const body = { variant_id: variant.id, quantity: 1 };
    const first = await addWithKey(issued.token, "legacy", body);
    const cart = CartSchema.parse(await first.json());
    await runInDurableObject(cartFor(env, issued.holder), (_instance: Cart, state) => {
      // The stored form of an earlier release: the Cart object itself under `cart`.
      state.storage.sql.exec(
        "UPDATE idempotency_keys SET reply = ? WHERE key = ?",
        JSON.stringify({ ok: true, cart, replayed: false }),
        "legacy",
      );
    });
    const replay = await addWithKey(issued.token, "legacy", body);
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(await replay.text()).toBe(JSON.stringify(cart));
    expect(await quantityOf(issued.token, variant.id)).toBe(1);
  });

  it("rejects an Idempotency-Key longer than 255 characters with 400", async () => {
    const { token } = await issueToken();
    const res = await addWithKey(token, "k".repeat(256), { variant_id: seed.available[0]!.id, quantity: 1 });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: "parameter_invalid", param: "Idempotency-Key" } });
    expect((await addWithKey(token, "k".repeat(255), { variant_id: seed.available[0]!.id, quantity: 1 })).status).toBe(
      200,
    );
  });
});
