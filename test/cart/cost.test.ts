import { evictDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { type Cart, CartSchema } from "../../src/cart/api.ts";
import { cartFor } from "../../src/cart/cart-client.ts";
import { addLine, cartCall, cartFrom, issueToken, operator, readCart } from "../helpers/cart.ts";
import { publishSeedCatalog } from "../helpers/catalog.ts";
import { newShopper } from "../helpers/shopper.ts";

/**
 * The cart's cost (contract 10.2, 10.4, 10.5; issue 44 part 2): every cart answer carries it,
 * priced from the cart's available lines, the live rules and the shopper's buyer, shipping option
 * and codes, which `PATCH /cart` sets. The arithmetic is src/pricing's (its own tests); these
 * check the cart's side: what it stores, what it answers, and when.
 */

const M_BLACK = "44102938475602"; // 28.00
const GIFT_CARD = "44102938475687"; // 50.00, not shipped
const usd = (amount: string) => ({ amount, currency: "USD" });

const RULES = {
  discounts: [
    {
      id: "welcome10",
      title: "10% off",
      code: "WELCOME10",
      kind: "percentage",
      value: "10",
      combines_with: ["shipping"],
    },
    {
      id: "ship-free",
      title: "Free shipping over 100",
      kind: "free_shipping",
      minimum_subtotal: "100.00",
      combines_with: ["order", "product"],
    },
  ],
  shipping: {
    zones: [
      {
        name: "Domestic",
        countries: ["US"],
        rates: [
          { id: "express", title: "Express", price: "15.00", min_subtotal: "20.00" },
          { id: "standard", title: "Standard", price: "5.00" },
        ],
      },
      { name: "Canada", countries: ["CA"], rates: [{ id: "ca-standard", title: "Canada Post", price: "12.00" }] },
    ],
  },
  tax: {
    mode: "exclusive",
    shipping_taxable: false,
    rates: [{ country: "US", region: "CA", rate: "0.0725", name: "Sales tax" }],
  },
};

const NO_COST_FIELDS = {
  discounts: [],
  discount_codes: [],
  shipping_options: [],
  shipping_option: null,
  buyer: null,
};

async function publishRules(document: unknown): Promise<void> {
  const res = await operator("/rules", { method: "PUT", body: JSON.stringify(document), headers: { "If-Match": "*" } });
  if (res.status !== 200) {
    // The first publish of a file has nothing live for `*` to match.
    const first = await operator("/rules", { method: "PUT", body: JSON.stringify(document) });
    expect(first.status, await first.clone().text()).toBe(200);
  }
}

function patch(token: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return cartCall(token, "/cart", { method: "PATCH", body, headers });
}

async function errorOf(res: Response): Promise<{ code: string; param?: string; message: string }> {
  return ((await res.json()) as { error: { code: string; param?: string; message: string } }).error;
}

beforeAll(async () => {
  await publishSeedCatalog();
});

describe("a store with no rules", () => {
  it("every cart answer carries the cost: the subtotal, nothing off, no shipping, no tax", async () => {
    const { token } = await issueToken();
    const empty = await readCart(token);
    expect(empty).toMatchObject({
      cost: {
        subtotal: usd("0.00"),
        discount_total: usd("0.00"),
        shipping: null,
        tax: null,
        total: usd("0.00"),
        tax_included: false,
        tax_calculated_at: null,
      },
      ...NO_COST_FIELDS,
    });
    const added = await cartFrom(await addLine(token, M_BLACK, 2));
    expect(added.cost).toMatchObject({ subtotal: usd("56.00"), total: usd("56.00"), shipping: null, tax: null });
    expect(added.lines[0]?.discount_allocations).toEqual([]);
    const line = added.lines[0]!.id;
    const patched = await cartFrom(
      await cartCall(token, `/cart/lines/${line}`, { method: "PATCH", body: { quantity: 1 } }),
    );
    expect(patched.cost.total).toEqual(usd("28.00"));
    const noted = await cartFrom(await patch(token, { note: "hi" }));
    expect(noted.cost.total).toEqual(usd("28.00"));
    const removed = await cartFrom(await cartCall(token, `/cart/lines/${line}`, { method: "DELETE" }));
    expect(removed.cost.total).toEqual(usd("0.00"));
    expect((await cartFrom(await cartCall(token, "/cart", { method: "DELETE" }))).cost.total).toEqual(usd("0.00"));
  });

  it("POST /carts' new cart carries the cost too", async () => {
    const issued = await newShopper();
    expect(issued.cart).toMatchObject({ cost: { total: usd("0.00"), tax_included: false }, ...NO_COST_FIELDS });
  });

  it("a buyer can be set (and answered back) though no rules ship or tax anything", async () => {
    const { token } = await issueToken();
    await addLine(token, M_BLACK, 1);
    const cart = await cartFrom(await patch(token, { buyer: { country: "US", region: "CA" } }));
    expect(cart.buyer).toEqual({ country: "US", region: "CA" });
    expect(cart.cost).toMatchObject({ shipping: null, tax: null, total: usd("28.00") });
    expect(cart.shipping_options).toEqual([]);
  });
});

describe("a store with rules", () => {
  let token = "";
  beforeAll(async () => {
    await publishRules(RULES);
    token = (await issueToken()).token;
  });

  it("prices a line with no destination: no shipping and (exclusive tax) no tax yet", async () => {
    const cart = await cartFrom(await addLine(token, M_BLACK, 1));
    expect(cart.cost).toEqual({
      subtotal: usd("28.00"),
      discount_total: usd("0.00"),
      shipping: null,
      tax: null,
      total: usd("28.00"),
      tax_included: false,
      tax_calculated_at: null,
    });
    expect(cart.shipping_options).toEqual([]);
  });

  it("a buyer brings the zone's rates, cheapest first, the cheapest selected, and the destination's tax", async () => {
    const cart = await cartFrom(
      await patch(token, { buyer: { email: "ada@example.com", country: "US", region: "CA" } }),
    );
    expect(cart.buyer).toEqual({ email: "ada@example.com", country: "US", region: "CA" });
    expect(cart.shipping_options).toEqual([
      { id: "standard", title: "Standard", price: usd("5.00") },
      { id: "express", title: "Express", price: usd("15.00") },
    ]);
    expect(cart.shipping_option).toEqual({ id: "standard", title: "Standard", price: usd("5.00") });
    // 28.00 × 7.25 % = 2.03; total = 28.00 + 5.00 + 2.03.
    expect(cart.cost).toMatchObject({ shipping: usd("5.00"), tax: usd("2.03"), total: usd("35.03") });
  });

  it("a code is answered whether or not it applies, never an error status; applied, it is allocated to the line", async () => {
    const cart = await cartFrom(await patch(token, { discount_codes: ["  welcome10 ", "WELCOME10", "NOPE"] }));
    expect(cart.discount_codes).toEqual([
      { code: "welcome10", applicable: true, reason: null, message: expect.any(String) },
      { code: "NOPE", applicable: false, reason: "unknown", message: expect.stringContaining("NOPE") },
    ]);
    expect(cart.discounts).toEqual([{ id: "welcome10", title: "10% off", code: "WELCOME10", amount: usd("2.80") }]);
    expect(cart.lines[0]?.discount_allocations).toEqual([{ discount_id: "welcome10", amount: usd("2.80") }]);
    // Tax after the discount: 25.20 × 7.25 % = 1.827 → 1.83; total = 28.00 − 2.80 + 5.00 + 1.83.
    expect(cart.cost).toMatchObject({ discount_total: usd("2.80"), tax: usd("1.83"), total: usd("32.03") });
  });

  it("chooses an offered shipping option; one not offered is 400 and changes nothing; null goes back to the cheapest", async () => {
    const express = await cartFrom(await patch(token, { shipping_option: "express" }));
    expect(express.shipping_option?.id).toBe("express");
    expect(express.cost).toMatchObject({ shipping: usd("15.00"), total: usd("42.03") });
    const refused = await patch(token, { shipping_option: "ca-standard" });
    expect(refused.status).toBe(400);
    expect(await errorOf(refused)).toMatchObject({
      code: "parameter_invalid",
      param: "shipping_option",
      message: 'No shipping option "ca-standard" for this cart: it offers standard, express.',
    });
    expect((await readCart(token)).shipping_option?.id).toBe("express");
    const cheapest = await cartFrom(await patch(token, { shipping_option: null }));
    expect(cheapest.shipping_option?.id).toBe("standard");
  });

  it("a buyer and an option of its zone in one request are checked together", async () => {
    const cart = await cartFrom(await patch(token, { buyer: { country: "CA" }, shipping_option: "ca-standard" }));
    expect(cart.shipping_option).toEqual({ id: "ca-standard", title: "Canada Post", price: usd("12.00") });
    // No tax rate for CA in these rules: tax 0, not null (a destination is known).
    expect(cart.cost).toMatchObject({ shipping: usd("12.00"), tax: usd("0.00"), total: usd("37.20") });
  });

  it("a chosen option that stops applying falls back to the cheapest, and comes back with its zone", async () => {
    await patch(token, { buyer: { country: "US", region: "CA" }, shipping_option: "express" });
    const canada = await cartFrom(await patch(token, { buyer: { country: "CA" } }));
    expect(canada.shipping_option?.id).toBe("ca-standard");
    const back = await cartFrom(await patch(token, { buyer: { country: "US", region: "CA" } }));
    expect(back.shipping_option?.id).toBe("express");
  });

  it("free shipping over 100 combines with the code; the cost adds up exactly", async () => {
    const line = (await readCart(token)).lines[0]!.id;
    const cart = await cartFrom(
      await cartCall(token, `/cart/lines/${line}`, { method: "PATCH", body: { quantity: 4 } }),
    );
    await patch(token, { shipping_option: null });
    const priced = await readCart(token);
    expect(cart.lines[0]?.quantity).toBe(4);
    expect(priced.discounts.map((d) => [d.id, d.amount.amount])).toEqual([
      ["welcome10", "11.20"],
      ["ship-free", "5.00"],
    ]);
    // 112.00 − 16.20 + 5.00 + tax (100.80 × 7.25 % = 7.308 → 7.31) = 108.11.
    expect(priced.cost).toMatchObject({
      subtotal: usd("112.00"),
      discount_total: usd("16.20"),
      shipping: usd("5.00"),
      tax: usd("7.31"),
      total: usd("108.11"),
    });
  });

  it("keeps the buyer, the option and the codes across an eviction, and DELETE /cart clears them", async () => {
    const { token: own, holder } = await issueToken();
    await addLine(own, M_BLACK, 1);
    await patch(own, { buyer: { country: "US" }, shipping_option: "express", discount_codes: ["WELCOME10"] });
    const before = await (await cartCall(own, "/cart")).text();
    await evictDurableObject(cartFor(env, holder));
    expect(await (await cartCall(own, "/cart")).text()).toBe(before);
    const emptied = await cartFrom(await cartCall(own, "/cart", { method: "DELETE" }));
    expect(emptied).toMatchObject({ ...NO_COST_FIELDS, lines: [] });
  });

  it("refuses more than 5 codes, an empty one, a country that is not ISO 3166-1 and an unknown buyer field (400, nothing changed)", async () => {
    const before = await (await cartCall(token, "/cart")).text();
    const cases: [unknown, string][] = [
      [{ discount_codes: ["A", "B", "C", "D", "E", "F"] }, "discount_codes"],
      [{ discount_codes: ["   "] }, "discount_codes.0"],
      [{ buyer: { country: "XX" } }, "buyer.country"],
      [{ buyer: { country: "US", city: "Paris" } }, "buyer.city"],
      [{ shipping_option: "" }, "shipping_option"],
    ];
    for (const [body, param] of cases) {
      const res = await patch(token, body);
      expect(res.status, param).toBe(400);
      expect((await errorOf(res)).param, JSON.stringify(body)).toBe(param);
    }
    expect(await (await cartCall(token, "/cart")).text()).toBe(before);
  });

  it("a cart of lines that are not shipped needs no destination: no shipping, no options", async () => {
    const { token: own } = await issueToken();
    const cart = await cartFrom(await addLine(own, GIFT_CARD, 1));
    expect(cart.lines[0]?.requires_shipping).toBe(false);
    const withBuyer = await cartFrom(await patch(own, { buyer: { country: "US", region: "CA" } }));
    expect(withBuyer.shipping_options).toEqual([]);
    expect(withBuyer.cost).toMatchObject({ shipping: null, tax: usd("3.63"), total: usd("53.63") });
  });

  // Changed with the bounds merge (issue 42 point 10; the lead's decision): a key keeps a small
  // mark, not the answer, so a replay no longer repeats the first answer's bytes. It applies
  // nothing again and shows the cart as it is at the replay, its cost included.
  it("an Idempotency-Key replay applies nothing again and answers the cart as it is now, its cost included", async () => {
    await publishRules(RULES);
    const { token: own } = await issueToken();
    const key = crypto.randomUUID();
    const first = await cartFrom(await addLine(own, M_BLACK, 1, key));
    expect(first.discount_codes).toEqual([]);
    await patch(own, { discount_codes: ["WELCOME10"] });
    const replay = await addLine(own, M_BLACK, 1, key);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    const replayed = await cartFrom(replay);
    // Nothing applied again: still one unit; the code entered since is there, and priced.
    expect(replayed.lines.map((l) => l.quantity)).toEqual([1]);
    expect(replayed.discount_codes[0]).toMatchObject({ code: "WELCOME10", applicable: true });
    expect(replayed.cost).toMatchObject({ subtotal: usd("28.00"), discount_total: usd("2.80") });
    expect(replayed).toEqual(await readCart(own));
    await publishRules({ ...RULES, discounts: [] });
    try {
      // A fresh read prices with the new rules: the code is now unknown; a replay then shows the same.
      const read = await readCart(own);
      expect(read.discount_codes[0]).toMatchObject({ code: "WELCOME10", reason: "unknown" });
      expect(await cartFrom(await addLine(own, M_BLACK, 1, key))).toEqual(read);
    } finally {
      await publishRules(RULES);
    }
  });
});

describe("the rules a cart prices with", () => {
  it("a new version reaches a cart on its very next read (CATALOG_POINTER_TTL_MS is 0 in tests, as under npm run dev)", async () => {
    await publishRules(RULES);
    const { token } = await issueToken();
    await addLine(token, M_BLACK, 1);
    await patch(token, { buyer: { country: "US", region: "CA" } });
    expect((await readCart(token)).cost.tax).toEqual(usd("2.03"));
    await publishRules({ ...RULES, tax: { mode: "inclusive", rates: RULES.tax.rates } });
    const inclusive = await readCart(token);
    // Prices include it: 28.00 × 0.0725 / 1.0725 = 1.8927 → 1.89 of the total is tax.
    expect(inclusive.cost).toMatchObject({ tax_included: true, tax: usd("1.89"), total: usd("33.00") });
    await publishRules({ ...RULES, tax: { mode: "stripe" } });
    expect((await readCart(token)).cost).toMatchObject({
      tax: null,
      tax_calculated_at: "payment",
      total: usd("33.00"),
    });
  });

  it("`{}` answers exactly what no rules answer, byte for byte", async () => {
    await publishRules({ discounts: [{ id: "x", title: "X", code: "X", kind: "percentage", value: "5" }] });
    const { token } = await issueToken();
    await addLine(token, M_BLACK, 2);
    await patch(token, { buyer: { country: "US" } });
    await publishRules({});
    const withEmpty = await (await cartCall(token, "/cart")).text();
    const parsed = CartSchema.parse(JSON.parse(withEmpty)) as Cart;
    expect(parsed.cost).toMatchObject({ shipping: null, tax: null, total: usd("56.00"), discount_total: usd("0.00") });
    // No rules at all: the publisher's history can only move forward, so compare with a rules-less
    // rendering of the same cart (the reader sees no pointer: the same path as a store without rules).
    await env.CATALOG.delete("rules:pointer");
    const none = await (await cartCall(token, "/cart")).text();
    expect(none).toBe(withEmpty);
  });
});
