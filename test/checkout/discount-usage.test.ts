import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { Checkout } from "../../src/checkout/api.ts";
import type { CartWithCheckouts } from "../../src/checkout/cart-host.ts";
import { checkoutsFor } from "../../src/checkout/client.ts";
import { OrdersClient, runOrdersCommand } from "../../src/cli/orders-client.ts";
import { RulesClient, runRulesCommand } from "../../src/cli/rules-client.ts";
import { discountUses } from "../../src/discounts/usage.ts";
import { OperatorDiscountListSchema } from "../../src/discounts/usage-api.ts";
import { BASE, cartCall, cartFrom, issueToken, OPERATOR_SECRET, operator, readCart } from "../helpers/cart.ts";
import { publishSeedCatalog } from "../helpers/catalog.ts";
import { checkoutFrom, operatorComplete, orderFrom, postCheckout } from "../helpers/checkout.ts";
import { publishRules } from "../helpers/rules.ts";
import { printFigures } from "../hardening/run-config.ts";

/**
 * Exact usage limits (contract 10.3, issue 44 part 4): one usage object per limited discount,
 * reserved by POST /checkouts with the holds (all or none), released by cancel, replacement and
 * expiry, committed once by the order; the cart shows a used-up code as `usage_limit_reached`.
 */

const GIFT_CARD = "44102938475687"; // 50.00, not shipped: no destination needed

const RULES = {
  discounts: [
    { id: "ten-left", title: "5 off, 10 uses", code: "TENLEFT", kind: "fixed_amount", value: "5.00", usage_limit: 10 },
    { id: "two-left", title: "1 off, 2 uses", code: "TWOLEFT", kind: "fixed_amount", value: "1.00", usage_limit: 2 },
  ],
};

const uses = discountUses(env);

beforeAll(async () => {
  await publishSeedCatalog();
  await publishRules(RULES);
});

/** Runs `task` for 0..n-1, at most `width` at a time. */
async function inBatches<T>(n: number, width: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let start = 0; start < n; start += width) {
    out.push(...(await Promise.all(Array.from({ length: Math.min(width, n - start) }, (_, k) => task(start + k)))));
  }
  return out;
}

/** A new shopper with a gift card in the cart and `codes` entered. */
async function shopperWith(codes: string[]): Promise<{ token: string; holder: string }> {
  const issued = await issueToken("usage");
  const added = await cartCall(issued.token, "/cart/lines", {
    method: "POST",
    body: { variant_id: GIFT_CARD, quantity: 1 },
  });
  expect(added.status).toBe(200);
  await cartFrom(await cartCall(issued.token, "/cart", { method: "PATCH", body: { discount_codes: codes } }));
  return { token: issued.token, holder: issued.holder };
}

async function usageRefusal(res: Response, code: string, discountId: string): Promise<void> {
  const text = await res.text();
  expect(res.status, text).toBe(409);
  expect(JSON.parse(text)).toMatchObject({
    error: {
      code: "checkout_unavailable",
      lines: [],
      discount_codes: [{ code, reason: "usage_limit_reached", discount_id: discountId }],
    },
  });
}

describe("a limited code under racing checkouts", () => {
  it("1,000 racing checkouts from distinct shopper carts, 10 uses left: exactly 10 hold it, the rest are refused naming it", async () => {
    const shoppers = await inBatches(1000, 50, () => shopperWith(["tenleft"]));
    const raceStart = Date.now();
    const answers = await Promise.all(shoppers.map((s) => postCheckout(s.token)));
    const raceMs = Date.now() - raceStart;
    const won: Checkout[] = [];
    for (const res of answers) {
      if (res.status === 201) won.push(await checkoutFrom(res));
      else await usageRefusal(res, "tenleft", "ten-left");
    }
    expect(won).toHaveLength(10);
    for (const checkout of won) {
      expect(checkout.discounts.map((d) => d.id)).toEqual(["ten-left"]);
      expect(checkout.cost.total.amount).toBe("45.00");
    }
    expect(await uses.counts("ten-left")).toEqual({ committed: 0, held: 10 });
    printFigures("discount-usage-race", { checkouts_raced: 1000, holding: 10, refused: 990, race_ms: raceMs });

    // The cart now shows the code used up (the usage object's mark); the checkout still decides.
    const late = await shopperWith(["TENLEFT"]);
    expect((await readCart(late.token)).discount_codes).toMatchObject([
      { code: "TENLEFT", applicable: false, reason: "usage_limit_reached" },
    ]);
    await usageRefusal(await postCheckout(late.token), "TENLEFT", "ten-left");

    // Paying commits a use once, however many completions come at once.
    const [first, second] = won;
    const paid = await Promise.all([first, first, first, second, second].map((c) => operatorComplete(c!)));
    expect(paid.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(await uses.counts("ten-left")).toEqual({ committed: 2, held: 8 });
    expect((await uses.committed("ten-left")).sort()).toEqual([first!.id, second!.id].sort());

    // The operator's view (contract 10.3, issue 44 part 6): the API and npm run rules -- show.
    const listed = OperatorDiscountListSchema.parse(await (await operator("/discounts")).json());
    expect(listed.data.map((d) => [d.id, d.usage])).toEqual([
      ["ten-left", { committed: 2, held: 8, remaining: 0 }],
      ["two-left", { committed: 0, held: 0, remaining: 2 }],
    ]);
    const shown = await runRulesCommand(
      { action: "show" },
      new RulesClient(BASE, OPERATOR_SECRET, (input, init) => exports.default.fetch(input, init)),
    );
    expect(shown).toContain(
      '  ten-left  code TENLEFT  fixed_amount 5.00  "5 off, 10 uses"  (limit 10 uses)  uses 2 committed, 8 held, 0 left',
    );
  }, 900_000);
});

describe("a reserved use goes back", () => {
  it("on cancel, on expiry and on replacement; the holder's own replacement keeps its use", async () => {
    const [a, b, c] = await Promise.all([0, 1, 2].map(() => shopperWith(["TWOLEFT"])));
    const ofA = await checkoutFrom(await postCheckout(a!.token));
    const ofB = await checkoutFrom(await postCheckout(b!.token));
    expect(await uses.counts("two-left")).toEqual({ committed: 0, held: 2 });
    await usageRefusal(await postCheckout(c!.token), "TWOLEFT", "two-left");
    expect((await readCart(c!.token)).discount_codes[0]).toMatchObject({ reason: "usage_limit_reached" });

    // A holder checking out again replaces its checkout: its own use counts for the new one.
    const again = await checkoutFrom(await postCheckout(a!.token));
    expect(again.discounts.map((d) => d.id)).toEqual(["two-left"]);
    expect(await uses.counts("two-left")).toEqual({ committed: 0, held: 2 });
    expect((await checkoutFrom(await cartCall(a!.token, `/checkouts/${ofA.id}`), 200)).status).toBe("canceled");

    // Cancel: the use comes back, the cart sees it, the next shopper takes it.
    await checkoutFrom(await cartCall(a!.token, `/checkouts/${again.id}`, { method: "DELETE" }), 200);
    expect(await uses.counts("two-left")).toEqual({ committed: 0, held: 1 });
    expect((await readCart(c!.token)).discount_codes[0]).toMatchObject({ applicable: true, reason: null });
    const ofC = await checkoutFrom(await postCheckout(c!.token));
    expect(ofC.discounts.map((d) => d.id)).toEqual(["two-left"]);

    // Expiry: the checkout object's alarm releases it.
    const stub = checkoutsFor(env, b!.holder);
    await runInDurableObject(stub, async (_instance: CartWithCheckouts, state) => {
      state.storage.sql.exec("UPDATE checkouts SET expires_at = ? WHERE id = ?", Date.now() - 1, ofB.id);
      await state.storage.setAlarm(Date.now() - 1);
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await uses.counts("two-left")).toEqual({ committed: 0, held: 1 });

    // A checkout paid after its use went back still commits it (the payment is real).
    const order = await orderFrom(await operatorComplete(ofB));
    expect(order.discounts.map((d) => d.id)).toEqual(["two-left"]);
    expect(await uses.counts("two-left")).toEqual({ committed: 1, held: 1 });
    const check = await operator("/reconciliation");
    expect(check.status).toBe(200);
    expect(((await check.json()) as { differences: unknown[] }).differences).toEqual([]);
  });

  it("orders -- check names an order whose discount use is missing", async () => {
    const shopper = await shopperWith(["TENLEFT"]);
    await publishRules({ discounts: [{ ...RULES.discounts[0], id: "ten-more", usage_limit: 5 }] });
    try {
      const checkout = await checkoutFrom(await postCheckout(shopper.token));
      await orderFrom(await operatorComplete(checkout));
      // The use is lost behind the order's back (what a bug or a hand edit could do).
      await runInDurableObject(
        env.DISCOUNT_USAGE.get(env.DISCOUNT_USAGE.idFromName("ten-more")),
        async (_instance, state) => {
          state.storage.sql.exec("DELETE FROM uses WHERE checkout_id = ?", checkout.id);
        },
      );
      const report = (await (await operator("/reconciliation")).json()) as {
        differences: { kind: string; checkout_id: string; discount_id?: string }[];
      };
      expect(report.differences).toContainEqual(
        expect.objectContaining({
          kind: "order_without_discount_use",
          checkout_id: checkout.id,
          discount_id: "ten-more",
        }),
      );
      // npm run orders -- check exits 1 (ok: false) naming the discount and the checkout.
      const client = new OrdersClient(BASE, OPERATOR_SECRET, (input, init) => exports.default.fetch(input, init));
      const check = await runOrdersCommand({ action: "check" }, client);
      expect(check.ok).toBe(false);
      expect(check.lines.find((l) => l.includes(checkout.id))).toMatch(/order_without_discount_use: .*ten-more/);
    } finally {
      await publishRules(RULES);
    }
  });
});
