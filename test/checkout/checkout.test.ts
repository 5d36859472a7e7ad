import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { CHECKOUT_ID_PATTERN } from "../../src/checkout/api.ts";
import type { CartWithCheckouts } from "../../src/checkout/cart-host.ts";
import { checkoutsFor } from "../../src/checkout/client.ts";
import type { VariantRecord } from "../../src/catalog/store.ts";
import { addLine, cartCall, issueToken, operator, readCart, seedVariants } from "../helpers/cart.ts";
import { checkoutFrom, postCheckout, setStock, stockOf } from "../helpers/checkout.ts";
import { fetchAs } from "../helpers/worker.ts";

let variants: VariantRecord[];

beforeAll(async () => {
  variants = (await seedVariants()).available;
});

/** A new holder with `lines` (variant index → quantity) in the cart. */
async function holderWith(lines: Record<number, number>): Promise<{ token: string; holder: string }> {
  const issued = await issueToken();
  for (const [index, quantity] of Object.entries(lines)) {
    const res = await addLine(issued.token, variants[Number(index)]!.id, quantity);
    expect(res.status).toBe(200);
  }
  return { token: issued.token, holder: issued.holder };
}

describe("POST /checkouts", () => {
  it("answers 400 cart_empty for an empty cart, and holds nothing", async () => {
    const { token } = await holderWith({});
    const res = await postCheckout(token);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { type: "invalid_request_error", code: "cart_empty" } });
  });

  // Each write of the checkouts object after an await is a transaction (and a commit) of its own:
  // the holder was written before the cart was read, one more on every create (issue 42 point 20,
  // test/bench/README.md "Where a checkout's time goes"). It is written beside the first checkout.
  it("writes the holder with its first checkout, and nothing for a create it refuses", async () => {
    const { token, holder } = await holderWith({});
    expect((await postCheckout(token)).status).toBe(400);
    const holderRows = () =>
      runInDurableObject(checkoutsFor(env, holder), (_instance: CartWithCheckouts, state) =>
        state.storage.sql.exec<{ holder: string }>("SELECT holder FROM holder").toArray(),
      );
    expect(await holderRows()).toEqual([]);
    // A variant no other test of this file uses, so what this checkout holds counts nowhere else.
    expect((await addLine(token, variants[12]!.id, 1)).status).toBe(200);
    expect((await postCheckout(token)).status).toBe(201);
    expect(await holderRows()).toEqual([{ holder }]);
  });

  it("freezes the cart at live prices and holds every line's units for CHECKOUT_HOLD_SECONDS", async () => {
    const [a, b] = [variants[0]!, variants[1]!];
    await setStock({ [a.id]: 10, [b.id]: 5 });
    const { token } = await holderWith({ 0: 2, 1: 1 });
    const cart = await readCart(token);
    const before = Date.now();
    const checkout = await checkoutFrom(await postCheckout(token));
    expect(checkout).toMatchObject({
      object: "checkout",
      status: "open",
      order_id: null,
      total_quantity: 3,
      currency: "USD",
    });
    expect(checkout.id).toMatch(CHECKOUT_ID_PATTERN);
    expect(checkout.lines.map((l) => [l.id, l.variant_id, l.quantity, l.unit_price.amount])).toEqual(
      cart.lines.map((l) => [l.id, l.variant_id, l.quantity, l.unit_price.amount]),
    );
    expect(checkout.subtotal).toEqual(cart.subtotal);
    const expires = Date.parse(checkout.expires_at) - Date.parse(checkout.created_at);
    expect(expires).toBe(900_000);
    expect(Date.parse(checkout.created_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(await stockOf(a.id)).toMatchObject({ quantity: 10, held: 2, available_quantity: 8 });
    expect(await stockOf(b.id)).toMatchObject({ quantity: 5, held: 1, available_quantity: 4 });
    // npm run dev's test payment page is the hand-off in development.
    expect(checkout.url).toBe(`https://storefront.test/dev/pay/${checkout.id}`);
  });

  it("answers 409 checkout_unavailable naming each short line, and holds nothing (all or none)", async () => {
    const [a, b, c] = [variants[2]!, variants[3]!, variants[4]!];
    // Stock falls after the adds (an add itself checks the level of a tracked variant).
    await setStock({ [a.id]: 10, [b.id]: 2, [c.id]: 3 });
    const { token } = await holderWith({ 2: 2, 3: 2, 4: 1 });
    await setStock({ [b.id]: 1, [c.id]: 0 });
    const cart = await readCart(token);
    const res = await postCheckout(token);
    expect(res.status).toBe(409);
    const body = (await res.json()) as { error: { code: string; lines: unknown[] } };
    expect(body.error.code).toBe("checkout_unavailable");
    expect(body.error.lines).toEqual([
      { id: cart.lines[1]!.id, code: "insufficient_stock", available_quantity: 1 },
      { id: cart.lines[2]!.id, code: "sold_out", available_quantity: 0 },
    ]);
    for (const v of [a, b, c]) expect((await stockOf(v.id)).held).toBe(0);
  });

  it("names a line whose variant left the catalog resource_missing", async () => {
    const { token, holder } = await holderWith({ 0: 1 });
    // A line the live catalog no longer has (as after a publish that dropped it).
    await runInDurableObject(env.CART.get(env.CART.idFromName(holder)), (_i, state) => {
      state.storage.sql.exec("UPDATE cart_lines SET variant_id = '99999999999999'");
    });
    // The object keeps its rows in memory: a fresh instance reads the changed row.
    await evictDurableObject(env.CART.get(env.CART.idFromName(holder)));
    const res = await postCheckout(token);
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({
      error: { code: "checkout_unavailable", lines: [{ code: "resource_missing" }] },
    });
  });

  it("keeps one open checkout per holder: a new one cancels the old and releases its holds", async () => {
    const a = variants[5]!;
    await setStock({ [a.id]: 3 });
    const { token } = await holderWith({ 5: 2 });
    const first = await checkoutFrom(await postCheckout(token));
    expect((await stockOf(a.id)).held).toBe(2);
    // Both checkouts want 2 of 3 units: only possible because the first let go of its hold.
    const second = await checkoutFrom(await postCheckout(token));
    expect(second.id).not.toBe(first.id);
    expect((await stockOf(a.id)).held).toBe(2);
    const old = await checkoutFrom(await cartCall(token, `/checkouts/${first.id}`), 200);
    expect(old.status).toBe("canceled");
    expect(old.url).toBeNull();
  });

  it("replays an Idempotency-Key and refuses it for another request", async () => {
    const { token } = await holderWith({ 6: 1 });
    const key = crypto.randomUUID();
    const first = await postCheckout(token, {}, key);
    const firstText = await first.text();
    expect(first.status).toBe(201);
    const again = await postCheckout(token, {}, key);
    expect(again.status).toBe(201);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await again.text()).toBe(firstText);
    const other = await postCheckout(token, { return_url: "https://shop.example/x" }, key);
    expect(other.status).toBe(422);
    expect(await other.json()).toMatchObject({ error: { code: "idempotency_key_reused" } });
  });

  // The route no longer asks the cart about the token before a request it accepts (the checkout
  // object learns of a revocation reading the cart): a replay, which reads no cart, must still
  // refuse a revoked token, and a request that would be refused anyway is refused as 401 first.
  it("refuses a revoked token's Idempotency-Key replay, and answers 401 before any 400", async () => {
    const issued = await issueToken();
    expect((await addLine(issued.token, variants[6]!.id, 1)).status).toBe(200);
    const key = crypto.randomUUID();
    expect((await postCheckout(issued.token, {}, key)).status).toBe(201);
    expect((await operator(`/tokens/${issued.id}/revoke`, { method: "POST" })).status).toBe(200);
    const replay = await postCheckout(issued.token, {}, key);
    expect(replay.status).toBe(401);
    expect(replay.headers.get("Idempotent-Replayed")).toBeNull();
    expect(await replay.json()).toMatchObject({ error: { code: "token_revoked" } });
    for (const body of [{ return_url: "http://shop.example/x" }, { coupon: "FREE" }]) {
      const res = await postCheckout(issued.token, body);
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ error: { code: "token_revoked" } });
    }
    const fresh = await postCheckout(issued.token, {});
    expect(fresh.status).toBe(401);
  });

  it("refuses a return_url that is not https, and an unknown field, changing nothing", async () => {
    const { token } = await holderWith({ 6: 1 });
    for (const [body, code] of [
      [{ return_url: "http://shop.example/thanks" }, "parameter_invalid"],
      [{ return_url: "javascript:alert(1)" }, "parameter_invalid"],
      [{ return_url: "/relative" }, "parameter_invalid"],
      [{ coupon: "FREE" }, "parameter_unknown"],
    ] as const) {
      const res = await postCheckout(token, body);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: { code } });
    }
    const ok = await checkoutFrom(await postCheckout(token, { return_url: "https://shop.example/thanks" }));
    expect(ok.return_url).toBe("https://shop.example/thanks");
  });

  it("takes no body at all as {}", async () => {
    const { token } = await holderWith({ 7: 1 });
    const res = await cartCall(token, "/checkouts", { method: "POST" });
    expect(res.status).toBe(201);
  });

  it("is 401 without a token", async () => {
    const res = await fetchAs("development", "/api/v1/checkouts", { method: "POST" });
    expect(res.status).toBe(401);
  });
});

describe("GET and DELETE /checkouts/{id}", () => {
  it("answers the holder's own checkout, and 404 for another holder's id", async () => {
    const { token } = await holderWith({ 8: 1 });
    const checkout = await checkoutFrom(await postCheckout(token));
    const own = await checkoutFrom(await cartCall(token, `/checkouts/${checkout.id}`), 200);
    expect(own).toEqual(checkout);
    const stranger = await holderWith({});
    for (const method of ["GET", "DELETE"]) {
      const res = await cartCall(stranger.token, `/checkouts/${checkout.id}`, { method });
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ error: { code: "resource_missing" } });
    }
    expect((await checkoutFrom(await cartCall(token, `/checkouts/${checkout.id}`), 200)).status).toBe("open");
    expect((await cartCall(token, "/checkouts/chk_nope")).status).toBe(404);
  });

  it("cancels an open checkout, releasing its holds; canceling again answers the same", async () => {
    const a = variants[9]!;
    await setStock({ [a.id]: 4 });
    const { token } = await holderWith({ 9: 3 });
    const checkout = await checkoutFrom(await postCheckout(token));
    expect((await stockOf(a.id)).available_quantity).toBe(1);
    const canceled = await checkoutFrom(await cartCall(token, `/checkouts/${checkout.id}`, { method: "DELETE" }), 200);
    expect(canceled.status).toBe("canceled");
    expect(await stockOf(a.id)).toMatchObject({ held: 0, available_quantity: 4 });
    const again = await cartCall(token, `/checkouts/${checkout.id}`, { method: "DELETE" });
    expect(again.status).toBe(200);
  });

  it("expires an open checkout at expires_at: the alarm releases its holds for the next shopper", async () => {
    const a = variants[10]!;
    await setStock({ [a.id]: 1 });
    const first = await holderWith({ 10: 1 });
    const checkout = await checkoutFrom(await postCheckout(first.token));
    const next = await holderWith({});
    // The next shopper cannot add the last unit while it is held... (checked through the hold itself)
    expect((await stockOf(a.id)).available_quantity).toBe(0);
    const stub = checkoutsFor(env, first.holder);
    await runInDurableObject(stub, async (_instance: CartWithCheckouts, state) => {
      state.storage.sql.exec("UPDATE checkouts SET expires_at = ? WHERE id = ?", Date.now() - 1, checkout.id);
      await state.storage.setAlarm(Date.now() - 1);
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const expired = await checkoutFrom(await cartCall(first.token, `/checkouts/${checkout.id}`), 200);
    expect(expired.status).toBe("expired");
    expect(expired.url).toBeNull();
    expect(await stockOf(a.id)).toMatchObject({ held: 0, available_quantity: 1 });
    // ...and once released, the next shopper can check it out.
    expect((await addLine(next.token, a.id, 1)).status).toBe(200);
    expect((await postCheckout(next.token)).status).toBe(201);
    // Canceling an expired checkout is refused.
    const cancel = await cartCall(first.token, `/checkouts/${checkout.id}`, { method: "DELETE" });
    expect(cancel.status).toBe(409);
    expect(await cancel.json()).toMatchObject({ error: { code: "checkout_not_open" } });
  });
});
