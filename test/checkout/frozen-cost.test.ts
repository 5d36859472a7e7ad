import { beforeAll, describe, expect, it } from "vitest";
import type { Cart } from "../../src/cart/api.ts";
import { cartCall, cartFrom, issueToken, readCart } from "../helpers/cart.ts";
import { publishSeedCatalog } from "../helpers/catalog.ts";
import { checkoutFrom, operatorComplete, orderFrom, postCheckout, setStock, stockOf } from "../helpers/checkout.ts";
import { publishRules } from "../helpers/rules.ts";

/**
 * The checkout freezes the cost (contract 10.7, issue 43 parts 2-7 at checkout): re-priced at the
 * live catalog and rules by the pricing room, answered as the cart answers it, kept whatever the
 * rules became, and handed to the order; and its faults (10.3, 10.4).
 */

const TEE = "44102938475602"; // 28.00, tees-and-tops
const HOODIE = "44102938475628"; // 64.95
const GIFT_CARD = "44102938475687"; // 50.00, not shipped

const RULES = {
  discounts: [
    {
      id: "tees15",
      title: "15% off tees",
      kind: "percentage",
      value: "15",
      applies_to: { collections: ["tees-and-tops"] },
      combines_with: ["order", "shipping"],
    },
    {
      id: "welcome10",
      title: "10% off",
      code: "WELCOME10",
      kind: "percentage",
      value: "10",
      combines_with: ["product", "shipping"],
    },
    {
      id: "once5",
      title: "5 off, once per buyer",
      code: "ONCE5",
      kind: "fixed_amount",
      value: "5.00",
      once_per_buyer: true,
      combines_with: ["product", "shipping"],
    },
    {
      id: "big",
      title: "20 off over 500",
      code: "BIG20",
      kind: "fixed_amount",
      value: "20.00",
      minimum_subtotal: "500.00",
    },
  ],
  shipping: {
    zones: [
      {
        name: "Domestic",
        countries: ["US"],
        rates: [
          { id: "standard", title: "Standard", price: "5.00" },
          { id: "express", title: "Express", price: "15.00" },
        ],
      },
    ],
  },
  tax: {
    mode: "exclusive",
    shipping_taxable: true,
    rates: [{ country: "US", region: "CA", rate: "0.0725", name: "Sales tax" }],
  },
};

const US_CA = { email: "ana@example.com", country: "US", region: "CA" };

beforeAll(async () => {
  await publishSeedCatalog();
  await publishRules(RULES);
});

/** A new shopper's cart: `lines` (variant id → quantity), then `PATCH /cart` with `details`. */
async function cartWith(
  lines: Record<string, number>,
  details: Record<string, unknown> = {},
): Promise<{ token: string; cart: Cart }> {
  const { token } = await issueToken();
  for (const [variant, quantity] of Object.entries(lines)) {
    const res = await cartCall(token, "/cart/lines", { method: "POST", body: { variant_id: variant, quantity } });
    expect(res.status, await res.clone().text()).toBe(200);
  }
  if (Object.keys(details).length > 0) {
    await cartFrom(await cartCall(token, "/cart", { method: "PATCH", body: details }));
  }
  return { token, cart: await readCart(token) };
}

async function refusal(res: Response): Promise<Record<string, unknown>> {
  const text = await res.text();
  expect(res.status, text).toBe(409);
  const { error } = JSON.parse(text) as { error: Record<string, unknown> };
  expect(error.code).toBe("checkout_unavailable");
  return error;
}

describe("POST /checkouts freezes the cost", () => {
  it("answers the cart's cost, discounts, buyer, shipping option and allocations, and keeps them whatever the rules become", async () => {
    const { token, cart } = await cartWith(
      { [TEE]: 2, [HOODIE]: 1 },
      { buyer: US_CA, shipping_option: "express", discount_codes: ["welcome10"] },
    );
    expect(cart.discounts.map((d) => d.id)).toEqual(["tees15", "welcome10"]);
    expect(cart.cost.tax).not.toBeNull();
    const checkout = await checkoutFrom(await postCheckout(token));
    expect(checkout.cost).toEqual(cart.cost);
    expect(checkout.discounts).toEqual(cart.discounts);
    expect(checkout.buyer).toEqual(cart.buyer);
    expect(checkout.shipping_option).toEqual(cart.shipping_option);
    expect(checkout.lines.map((l) => [l.id, l.discount_allocations])).toEqual(
      cart.lines.map((l) => [l.id, l.discount_allocations]),
    );
    expect(checkout.lines.some((l) => l.discount_allocations.length > 0)).toBe(true);

    // The store ends every discount and stops charging shipping and tax: the checkout is as frozen.
    await publishRules({});
    try {
      const read = await checkoutFrom(await cartCall(token, `/checkouts/${checkout.id}`), 200);
      expect(read).toEqual(checkout);
      expect((await readCart(token)).cost.discount_total.amount).toBe("0.00");

      // The order keeps what the checkout froze.
      const order = await orderFrom(await operatorComplete(checkout));
      expect(order).toMatchObject({
        cost: checkout.cost,
        discounts: checkout.discounts,
        buyer: checkout.buyer,
        shipping_option: checkout.shipping_option,
        payment_status: "paid",
        amount_paid: checkout.cost.total,
      });
      expect(order.lines.map((l) => [l.line_id, l.discount_allocations])).toEqual(
        checkout.lines.map((l) => [l.id, l.discount_allocations]),
      );
    } finally {
      await publishRules(RULES);
    }
  });

  it("needs no destination when nothing is shipped", async () => {
    const { token } = await cartWith({ [GIFT_CARD]: 1 });
    const checkout = await checkoutFrom(await postCheckout(token));
    expect(checkout.cost).toMatchObject({ shipping: null, total: { amount: "50.00", currency: "USD" } });
    expect(checkout.shipping_option).toBeNull();
    expect(checkout.buyer).toBeNull();
  });
});

describe("faults at checkout (contract 10.3, 10.4)", () => {
  it("a cart that needs shipping and has no destination is 409 shipping_required, and holds nothing", async () => {
    await setStock({ [TEE]: 50 });
    const { token } = await cartWith({ [TEE]: 1 });
    const error = await refusal(await postCheckout(token));
    expect(error).toMatchObject({ shipping: "shipping_required", lines: [] });
    expect(error.discount_codes).toBeUndefined();
    expect((await stockOf(TEE)).held).toBe(0);
  });

  it("a destination no zone ships to is 409 shipping_unavailable", async () => {
    const { token } = await cartWith({ [TEE]: 1 }, { buyer: { country: "FR" } });
    expect(await refusal(await postCheckout(token))).toMatchObject({ shipping: "shipping_unavailable", lines: [] });
  });

  it("a code the cart answered inapplicable does not block: the checkout goes on without it", async () => {
    const { token, cart } = await cartWith({ [TEE]: 1 }, { buyer: US_CA, discount_codes: ["BIG20", "NOPE"] });
    expect(cart.discount_codes.map((c) => [c.code, c.applicable, c.reason])).toEqual([
      ["BIG20", false, "minimum_not_met"],
      ["NOPE", false, "unknown"],
    ]);
    const checkout = await checkoutFrom(await postCheckout(token));
    expect(checkout.discounts.map((d) => d.id)).toEqual(["tees15"]);
  });

  it("once_per_buyer: a buyer's second use, by the same email in any case, is 409 naming the code; another buyer's is not", async () => {
    const first = await cartWith(
      { [HOODIE]: 1 },
      { buyer: { ...US_CA, email: "Bo@Example.com" }, discount_codes: ["ONCE5"] },
    );
    const paid = await checkoutFrom(await postCheckout(first.token));
    expect(paid.discounts.map((d) => d.id)).toEqual(["once5"]);
    await orderFrom(await operatorComplete(paid));

    const again = await cartWith(
      { [HOODIE]: 1 },
      { buyer: { ...US_CA, email: "bo@example.COM" }, discount_codes: ["once5"] },
    );
    // The cart cannot know the buyer's uses: it shows the code applicable; the checkout decides.
    expect(again.cart.discount_codes[0]).toMatchObject({ applicable: true });
    const error = await refusal(await postCheckout(again.token));
    expect(error.discount_codes).toEqual([{ code: "once5", reason: "once_per_buyer", discount_id: "once5" }]);
    expect(error.lines).toEqual([]);

    const other = await cartWith(
      { [HOODIE]: 1 },
      { buyer: { ...US_CA, email: "cy@example.com" }, discount_codes: ["ONCE5"] },
    );
    expect((await checkoutFrom(await postCheckout(other.token))).discounts.map((d) => d.id)).toEqual(["once5"]);
  });

  it("once_per_buyer needs the buyer's email at checkout: without one the code is refused", async () => {
    const { token } = await cartWith(
      { [HOODIE]: 1 },
      { buyer: { country: "US", region: "CA" }, discount_codes: ["ONCE5"] },
    );
    const error = await refusal(await postCheckout(token));
    expect(error.discount_codes).toEqual([{ code: "ONCE5", reason: "once_per_buyer", discount_id: "once5" }]);
  });
});
