import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { CartWithCheckouts } from "../../src/checkout/cart-host.ts";
import { checkoutsFor } from "../../src/checkout/client.ts";
import type { VariantRecord } from "../../src/catalog/store.ts";
import { addLine, cartCall, issueToken, operator, readCart, seedVariants } from "../helpers/cart.ts";
import { checkoutFrom, operatorComplete, orderFrom, postCheckout, setStock, stockOf } from "../helpers/checkout.ts";

/**
 * What a checkout holds, and for whom (contract 9.3 and 9.4 [revised, turn 5]): the level decides
 * for a tracked variant (issue 42 point 1), a refused checkout leaves the open one as it was
 * (point 8), a holder's own holds count as its own in its cart (point 6), and holds cannot be
 * hoarded (point 5: one hold window per variant, a cool-down after it, a most per variant, and
 * rate limits on POST /checkouts).
 */

let variants: VariantRecord[];
/** The seed's Heavyweight Pocket Tee Navy S: tracked, published at 0 (sold out). */
const NAVY_S = "44102938475614";
/** The seed's Heavyweight Pocket Tee Navy M: tracked, published at 3. */
const NAVY_M = "44102938475615";

beforeAll(async () => {
  variants = (await seedVariants()).available;
});

/** A new holder with `lines` (variant → quantity) in the cart. */
async function holderWith(lines: [VariantRecord | string, number][]): Promise<{ token: string; holder: string }> {
  const issued = await issueToken();
  for (const [variant, quantity] of lines) {
    const res = await addLine(issued.token, typeof variant === "string" ? variant : variant.id, quantity);
    expect(res.status, await res.clone().text()).toBe(200);
  }
  return { token: issued.token, holder: issued.holder };
}

async function errorOf(res: Response): Promise<Record<string, unknown>> {
  return ((await res.json()) as { error: Record<string, unknown> }).error;
}

describe("the level decides for a tracked variant", () => {
  it("checks out a size restocked after it was published sold out (regression: issue 42 point 1)", async () => {
    // On main checkout read the published `available` flag: every POST /checkouts was 409 sold_out.
    const restock = await operator("/stock", {
      method: "POST",
      body: JSON.stringify({ changes: [{ variant_id: NAVY_S, set: 5 }] }),
    });
    expect(restock.status).toBe(200);
    const { token } = await holderWith([[NAVY_S, 2]]);
    const checkout = await checkoutFrom(await postCheckout(token));
    expect(checkout.lines.map((l) => [l.variant_id, l.quantity])).toEqual([[NAVY_S, 2]]);
    expect(await stockOf(NAVY_S)).toMatchObject({ quantity: 5, held: 2 });
    const order = await orderFrom(await operatorComplete(checkout));
    expect(order.lines.map((l) => [l.variant_id, l.quantity, l.oversold])).toEqual([[NAVY_S, 2, false]]);
    expect(await stockOf(NAVY_S)).toMatchObject({ quantity: 3, held: 0 });
  });
});

describe("a refused checkout", () => {
  it("leaves the holder's open checkout as it was (regression: issue 42 point 8)", async () => {
    // On main the open checkout was canceled first, then the new one refused: "Nothing was held",
    // and the holder had lost the units it held.
    const [a, b] = [variants[0]!, variants[1]!];
    await setStock({ [a.id]: 5, [b.id]: 1 });
    const { token } = await holderWith([[a, 2]]);
    const open = await checkoutFrom(await postCheckout(token));
    expect((await addLine(token, b.id, 1)).status).toBe(200);
    await setStock({ [b.id]: 0 });
    const refused = await postCheckout(token);
    expect(refused.status).toBe(409);
    expect(await errorOf(refused)).toMatchObject({ code: "checkout_unavailable", lines: [{ code: "sold_out" }] });
    const still = await checkoutFrom(await cartCall(token, `/checkouts/${open.id}`), 200);
    expect(still.status).toBe("open");
    expect(await stockOf(a.id)).toMatchObject({ held: 2 });
  });
});

describe("a holder's own holds", () => {
  it("never make its own cart read sold out (regression: issue 42 point 6)", async () => {
    // On main, 3 in stock, add 2, check out: the line read in_stock false; all 3 held: available
    // false, and out of the subtotal.
    const a = { id: NAVY_M };
    await setStock({ [a.id]: 3 });
    const { token } = await holderWith([[a.id, 2]]);
    await checkoutFrom(await postCheckout(token));
    const held = await readCart(token);
    expect(held.lines[0]).toMatchObject({ quantity: 2, available: true, in_stock: true });
    // The third unit too: the new checkout holds all 3, its own 2 counting for it.
    expect((await addLine(token, a.id, 1)).status).toBe(200);
    const all = await checkoutFrom(await postCheckout(token));
    expect(all.lines[0]).toMatchObject({ quantity: 3 });
    expect(await stockOf(a.id)).toMatchObject({ held: 3, available_quantity: 0 });
    const cart = await readCart(token);
    expect(cart.lines[0]).toMatchObject({ quantity: 3, available: true, in_stock: true });
    expect(cart.subtotal).toEqual(all.subtotal);
    // Everyone else meets it sold out.
    expect(await stockOf(a.id)).toMatchObject({ available_quantity: 0, in_stock: false });
  });
});

describe("holds cannot be hoarded", () => {
  it("keeps the first hold's expires_at when the checkout is made again (issue 42 point 5)", async () => {
    // On main every re-created checkout held for a full CHECKOUT_HOLD_SECONDS again, without end.
    const a = variants[3]!;
    await setStock({ [a.id]: 5 });
    const { token } = await holderWith([[a, 1]]);
    const first = await checkoutFrom(await postCheckout(token));
    await new Promise((r) => setTimeout(r, 20));
    const again = await checkoutFrom(await postCheckout(token));
    expect(again.id).not.toBe(first.id);
    expect(again.expires_at).toBe(first.expires_at);
    // Canceled and made again: the clock still runs from the first hold.
    await cartCall(token, `/checkouts/${again.id}`, { method: "DELETE" });
    const third = await checkoutFrom(await postCheckout(token));
    expect(third.expires_at).toBe(first.expires_at);
  });

  it("refuses the same holder the variant for the cool-down once its hold ended (hold_cooldown), then holds again", async () => {
    const [a, b] = [variants[4]!, variants[5]!];
    await setStock({ [a.id]: 5 });
    const { token, holder } = await holderWith([
      [a, 1],
      [b, 1],
    ]);
    const first = await checkoutFrom(await postCheckout(token));
    const stub = checkoutsFor(env, holder);
    // The hold window ended a second ago (the checkout expired with it).
    const shift = async (endedMsAgo: number) =>
      runInDurableObject(stub, async (_instance: CartWithCheckouts, state) => {
        state.storage.sql.exec("UPDATE hold_windows SET ends_at = ?", Date.now() - endedMsAgo);
        state.storage.sql.exec("UPDATE checkouts SET expires_at = ? WHERE id = ?", Date.now() - endedMsAgo, first.id);
      });
    await shift(1000);
    const refused = await postCheckout(token);
    expect(refused.status).toBe(409);
    const error = await errorOf(refused);
    const cart = await readCart(token);
    expect(error).toMatchObject({ code: "checkout_unavailable" });
    // Only the tracked variant's line (b is untracked: nobody can be kept from it).
    expect(error.lines).toEqual([
      { id: cart.lines[0]!.id, code: "hold_cooldown", cooldown_ends_at: expect.any(String) },
    ]);
    const until = Date.parse((error.lines as { cooldown_ends_at: string }[])[0]!.cooldown_ends_at);
    expect(until - Date.now()).toBeGreaterThan(298_000);
    expect(until - Date.now()).toBeLessThanOrEqual(300_000);
    // Another holder is not kept from it.
    const other = await holderWith([[a, 1]]);
    expect((await postCheckout(other.token)).status).toBe(201);
    // Once the cool-down is over, a new hold window starts: a full hold again.
    await shift(301_000);
    const next = await checkoutFrom(await postCheckout(token));
    const held = Date.parse(next.expires_at) - Date.parse(next.created_at);
    expect(held).toBe(900_000);
  });

  it("needs no cool-down after a purchase", async () => {
    const a = variants[6]!;
    await setStock({ [a.id]: 5 });
    const { token } = await holderWith([[a, 1]]);
    const bought = await checkoutFrom(await postCheckout(token));
    await orderFrom(await operatorComplete(bought));
    expect((await addLine(token, a.id, 1)).status).toBe(200);
    const again = await checkoutFrom(await postCheckout(token));
    expect(Date.parse(again.expires_at) - Date.parse(again.created_at)).toBe(900_000);
  });

  it("refuses more than CHECKOUT_MAX_UNITS_PER_VARIANT of a tracked variant (hold_limit, max_quantity), holding nothing", async () => {
    const [a, b] = [variants[7]!, variants[8]!];
    await setStock({ [a.id]: 50 });
    const { token } = await holderWith([
      [a, 11],
      [b, 40],
    ]);
    const refused = await postCheckout(token);
    expect(refused.status).toBe(409);
    const cart = await readCart(token);
    expect((await errorOf(refused)).lines).toEqual([
      { id: cart.lines[0]!.id, code: "hold_limit", available_quantity: 50, max_quantity: 10 },
    ]);
    expect((await stockOf(a.id)).held).toBe(0);
    const line = cart.lines[0]!.id;
    expect((await cartCall(token, `/cart/lines/${line}`, { method: "PATCH", body: { quantity: 10 } })).status).toBe(
      200,
    );
    expect((await postCheckout(token)).status).toBe(201);
    expect((await stockOf(a.id)).held).toBe(10);
  });
});
