import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { CartSchema, MAX_LINES } from "../../src/cart/api.ts";
import { cartFor } from "../../src/cart/cart-client.ts";
import type { Cart } from "../../src/cart/cart-object.ts";
import { MIGRATIONS, migrate, migrateFrom } from "../../src/cart/migrations.ts";
import { addLine, cartCall, issueToken, operator, readCart, seedVariants, type SeedVariants } from "../helpers/cart.ts";

let seed: SeedVariants;
beforeAll(async () => {
  seed = await seedVariants();
});

/**
 * Moves the cart's expiry into the past, as if 30 days had gone by since the last write. The
 * object keeps its rows in memory and is their only writer, so an edit behind its back needs a
 * new instance to be seen (as after 30 days without a request).
 */
async function ageCart(stub: DurableObjectStub<Cart>): Promise<void> {
  await runInDurableObject(stub, (_instance: Cart, state) => {
    state.storage.sql.exec("UPDATE cart SET expires_at = ?", Date.now() - 1);
  });
  await evictDurableObject(stub);
}

describe("cart storage", () => {
  it("creates its schema through numbered migrations and stores the version", async () => {
    const issued = await issueToken();
    const stub = cartFor(env, issued.holder);
    await readCart(issued.token);
    await runInDurableObject(stub, (_instance: Cart, state) => {
      const version = state.storage.sql.exec<{ version: number }>("SELECT version FROM schema_version").one().version;
      expect(version).toBe(MIGRATIONS.length);
      expect(migrate(state.storage.sql)).toBe(MIGRATIONS.length);
      // An existing database reports its version, so the object reads its rows (0: a new one, known empty).
      expect(migrateFrom(state.storage.sql)).toBe(MIGRATIONS.length);
      const tables = state.storage.sql
        .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .toArray()
        .map((r) => r.name);
      expect(tables).toEqual(
        expect.arrayContaining(["cart", "cart_lines", "idempotency_keys", "revoked_tokens", "schema_version"]),
      );
    });
  });

  it("keeps its lines when the object is evicted between writes", async () => {
    const issued = await issueToken();
    const stub = cartFor(env, issued.holder);
    const [a, b] = [seed.available[0]!, seed.available[1]!];
    expect((await addLine(issued.token, a.id, 2)).status).toBe(200);
    await evictDurableObject(stub);
    expect((await addLine(issued.token, a.id, 3)).status).toBe(200);
    await evictDurableObject(stub);
    expect((await addLine(issued.token, b.id, 1)).status).toBe(200);
    await evictDurableObject(stub);
    const cart = await readCart(issued.token);
    expect(cart.lines.map((l) => [l.variant_id, l.quantity])).toEqual([
      [a.id, 5],
      [b.id, 1],
    ]);
  });

  it("answers from memory exactly what it stored: the same cart from a new instance after every kind of write", async () => {
    const issued = await issueToken();
    const stub = cartFor(env, issued.holder);
    const [a, b, c] = [seed.available[0]!, seed.available[1]!, seed.available[2]!];
    const same = async (res: Response) => {
      expect(res.status).toBe(200);
      const kept = await res.text();
      await evictDurableObject(stub);
      expect(await (await cartCall(issued.token, "/cart")).text()).toBe(kept);
      return CartSchema.parse(JSON.parse(kept));
    };
    await same(await addLine(issued.token, a.id, 2));
    await same(await addLine(issued.token, b.id, 1));
    await same(await addLine(issued.token, a.id, 3));
    const lines = (await same(await addLine(issued.token, c.id, 4))).lines;
    await same(await cartCall(issued.token, `/cart/lines/${lines[1]!.id}`, { method: "PATCH", body: { quantity: 7 } }));
    await same(await cartCall(issued.token, `/cart/lines/${lines[0]!.id}`, { method: "DELETE" }));
    const afterClear = await same(await cartCall(issued.token, "/cart", { method: "DELETE" }));
    expect(afterClear.lines).toEqual([]);
    const last = await same(await addLine(issued.token, b.id, 1));
    expect(last.lines.map((l) => [l.variant_id, l.quantity])).toEqual([[b.id, 1]]);
  });

  it("keeps a revocation when the object is evicted", async () => {
    const issued = await issueToken();
    await operator(`/tokens/${issued.id}/revoke`, { method: "POST" });
    await evictDurableObject(cartFor(env, issued.holder));
    const reply = await cartFor(env, issued.holder).getCart({ tokenId: issued.id });
    expect(reply).toMatchObject({ ok: false, failure: { code: "token_revoked" } });
  });

  it("answers cart_full for a 251st line and still grows an existing line", async () => {
    const issued = await issueToken();
    const stub = cartFor(env, issued.holder);
    const first = seed.available[0]!;
    expect((await addLine(issued.token, first.id, 1)).status).toBe(200);
    await runInDurableObject(stub, (_instance: Cart, state) => {
      for (let i = 1; i < MAX_LINES; i += 1) {
        state.storage.sql.exec(
          `INSERT INTO cart_lines (id, variant_id, position, quantity, handle, title, variant_title, unit_price_minor, currency, available, catalog_version)
           SELECT ?, ?, ?, 1, handle, title, variant_title, unit_price_minor, currency, available, catalog_version FROM cart_lines WHERE variant_id = ?`,
          `cl_filler${i}`,
          `9000000${i}`,
          i + 1,
          first.id,
        );
      }
    });
    await evictDurableObject(stub);
    expect((await readCart(issued.token)).lines).toHaveLength(MAX_LINES);
    const res = await addLine(issued.token, seed.available[1]!.id, 1);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { type: "invalid_request_error", code: "cart_full" } });
    expect((await readCart(issued.token)).lines).toHaveLength(MAX_LINES);
    expect((await addLine(issued.token, first.id, 1)).status).toBe(200);
  });
});

describe("30-day expiry", () => {
  it("arms the alarm at the first write, and an alarm that fires early re-arms for the latest write's expiry", async () => {
    const issued = await issueToken();
    const stub = cartFor(env, issued.holder);
    const first = CartSchema.parse(await (await addLine(issued.token, seed.available[0]!.id, 1)).json());
    await new Promise((resolve) => setTimeout(resolve, 20));
    const second = CartSchema.parse(await (await addLine(issued.token, seed.available[0]!.id, 1)).json());
    expect(Date.parse(second.expires_at)).toBeGreaterThan(Date.parse(first.expires_at));
    const armed = await runInDurableObject(stub, (_instance: Cart, state) => state.storage.getAlarm());
    expect(armed).toBe(Date.parse(first.expires_at));
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect((await readCart(issued.token)).lines).toHaveLength(1);
    const rearmed = await runInDurableObject(stub, (_instance: Cart, state) => state.storage.getAlarm());
    expect(rearmed).toBe(Date.parse(second.expires_at));
  });

  it("arms the alarm for the cart's expires_at on its first write", async () => {
    const issued = await issueToken();
    const stub = cartFor(env, issued.holder);
    const res = await addLine(issued.token, seed.available[0]!.id, 1);
    const cart = CartSchema.parse(await res.json());
    const alarm = await runInDurableObject(stub, (_instance: Cart, state) => state.storage.getAlarm());
    expect(alarm).toBe(Date.parse(cart.expires_at));
    expect(Date.parse(cart.expires_at) - Date.parse(cart.updated_at)).toBe(30 * 24 * 3600 * 1000);
  });

  it("clears the cart when the expiry alarm runs", async () => {
    const issued = await issueToken();
    const stub = cartFor(env, issued.holder);
    await addLine(issued.token, seed.available[0]!.id, 2);
    await ageCart(stub);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const left = await runInDurableObject(stub, (_instance: Cart, state) => ({
      lines: state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM cart_lines").one().n,
      carts: state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM cart").one().n,
    }));
    expect(left).toEqual({ lines: 0, carts: 0 });
    expect((await readCart(issued.token)).lines).toEqual([]);
  });

  it("keeps the cart and re-arms when the alarm fires before the cart expired", async () => {
    const issued = await issueToken();
    const stub = cartFor(env, issued.holder);
    const cart = CartSchema.parse(await (await addLine(issued.token, seed.available[0]!.id, 2)).json());
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect((await readCart(issued.token)).lines).toHaveLength(1);
    const alarm = await runInDurableObject(stub, (_instance: Cart, state) => state.storage.getAlarm());
    expect(alarm).toBe(Date.parse(cart.expires_at));
  });

  it("reads an expired cart as empty even before the alarm has run", async () => {
    const issued = await issueToken();
    const stub = cartFor(env, issued.holder);
    await addLine(issued.token, seed.available[0]!.id, 2);
    await ageCart(stub);
    const cart = await readCart(issued.token);
    expect(cart.lines).toEqual([]);
    expect(cart.total_quantity).toBe(0);
  });

  it("keeps revoked token ids when the cart expires", async () => {
    const issued = await issueToken();
    const stub = cartFor(env, issued.holder);
    await addLine(issued.token, seed.available[0]!.id, 1);
    await operator(`/tokens/${issued.id}/revoke`, { method: "POST" });
    await ageCart(stub);
    await runDurableObjectAlarm(stub);
    expect(await stub.getCart({ tokenId: issued.id })).toMatchObject({ ok: false, failure: { code: "token_revoked" } });
  });
});
