import { beforeAll, describe, expect, it } from "vitest";
import { CartSchema, MAX_LINE_QUANTITY } from "../../src/cart/api.ts";
import { cartCall, issueToken, seedVariants, type SeedVariants } from "../helpers/cart.ts";

let seed: SeedVariants;
beforeAll(async () => {
  seed = await seedVariants();
});

describe("concurrent writes to one cart", () => {
  it("100 concurrent adds of one variant leave exactly the accepted quantity", async () => {
    const { token } = await issueToken();
    const variant = seed.available[0]!;
    const quantities = Array.from({ length: 100 }, (_, i) => (i % 20) + 1);
    expect(quantities.reduce((a, b) => a + b, 0)).toBeGreaterThan(MAX_LINE_QUANTITY);

    const responses = await Promise.all(
      quantities.map((quantity) =>
        cartCall(token, "/cart/lines", { method: "POST", body: { variant_id: variant.id, quantity } }),
      ),
    );
    let accepted = 0;
    let rejected = 0;
    for (const [i, res] of responses.entries()) {
      if (res.status === 200) {
        accepted += quantities[i]!;
      } else {
        expect(res.status).toBe(400);
        expect(await res.json()).toMatchObject({ error: { code: "quantity_exceeded" } });
        rejected += 1;
      }
    }
    expect(rejected).toBeGreaterThan(0);
    const cart = CartSchema.parse(await (await cartCall(token, "/cart")).json());
    expect(cart.lines).toHaveLength(1);
    expect(cart.lines[0]!.quantity).toBe(accepted);
    expect(accepted).toBeLessThanOrEqual(MAX_LINE_QUANTITY);
  });

  it("concurrent adds across several variants land on one line per variant with every unit counted", async () => {
    const { token } = await issueToken();
    const variants = seed.available.slice(0, 8);
    const adds = Array.from({ length: 80 }, (_, i) => ({
      variant: variants[i % variants.length]!,
      quantity: (i % 3) + 1,
    }));
    const responses = await Promise.all(
      adds.map(({ variant, quantity }) =>
        cartCall(token, "/cart/lines", { method: "POST", body: { variant_id: variant.id, quantity } }),
      ),
    );
    expect(responses.map((r) => r.status).every((s) => s === 200)).toBe(true);
    const cart = CartSchema.parse(await (await cartCall(token, "/cart")).json());
    expect(cart.lines).toHaveLength(variants.length);
    for (const variant of variants) {
      const expected = adds.filter((a) => a.variant.id === variant.id).reduce((sum, a) => sum + a.quantity, 0);
      expect(cart.lines.find((l) => l.variant_id === variant.id)?.quantity).toBe(expected);
    }
    expect(cart.total_quantity).toBe(adds.reduce((sum, a) => sum + a.quantity, 0));
  });
});
