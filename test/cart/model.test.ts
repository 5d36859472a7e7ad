import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { CartSchema, MAX_LINE_QUANTITY, type Cart } from "../../src/cart/api.ts";
import { buildCart, canonicalAttributes, cartJson } from "../../src/cart/view.ts";
import { renderedCostOf } from "../../src/cart/cost.ts";
import { parseRules } from "../../src/rules/parse.ts";
import { fromMinor } from "../../src/money.ts";
import { cartCall, issueToken, seedVariants, type SeedVariants } from "../helpers/cart.ts";

let seed: SeedVariants;
beforeAll(async () => {
  seed = await seedVariants();
});

type Op =
  | { kind: "add"; variant: number; quantity: number }
  | { kind: "patch"; line: number; quantity: number }
  | { kind: "delete"; line: number }
  | { kind: "clear" };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant("add" as const),
      variant: fc.nat(5),
      quantity: fc.integer({ min: 1, max: MAX_LINE_QUANTITY }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("patch" as const),
      line: fc.nat(6),
      quantity: fc.integer({ min: 0, max: MAX_LINE_QUANTITY }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("delete" as const), line: fc.nat(6) }) },
  { weight: 1, arbitrary: fc.constant({ kind: "clear" as const }) },
);

describe("the cart against a model", () => {
  // Property runs take about 2 s on an idle machine: room for a loaded CI runner (the default is 5 s).
  it("agrees with a plain in-memory cart on every status, line, quantity and subtotal", {
    timeout: 30_000,
  }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 12 }), async (ops) => {
        const { token } = await issueToken("model");
        // Five available variants and one sold out, so sold_out is part of the model too.
        const variants = [...seed.available.slice(0, 5), seed.soldOut[0]!];
        const model: { variantId: string; quantity: number }[] = [];
        let cart: Cart = CartSchema.parse(await (await cartCall(token, "/cart")).json());

        for (const op of ops) {
          let res: Response;
          let expected: number;
          if (op.kind === "add") {
            const variant = variants[op.variant]!;
            const line = model.find((l) => l.variantId === variant.id);
            res = await cartCall(token, "/cart/lines", {
              method: "POST",
              body: { variant_id: variant.id, quantity: op.quantity },
            });
            if (!variant.available) expected = 404;
            else if (line && line.quantity + op.quantity > MAX_LINE_QUANTITY) expected = 400;
            else {
              expected = 200;
              if (line) line.quantity += op.quantity;
              else model.push({ variantId: variant.id, quantity: op.quantity });
            }
          } else if (op.kind === "patch" || op.kind === "delete") {
            const target = cart.lines[op.line];
            const lineId = target?.id ?? "cl_notinthiscart";
            res =
              op.kind === "patch"
                ? await cartCall(token, `/cart/lines/${lineId}`, { method: "PATCH", body: { quantity: op.quantity } })
                : await cartCall(token, `/cart/lines/${lineId}`, { method: "DELETE" });
            const index = target ? model.findIndex((l) => l.variantId === target.variant_id) : -1;
            if (index < 0) expected = 404;
            else {
              expected = 200;
              if (op.kind === "delete" || op.quantity === 0) model.splice(index, 1);
              else model[index]!.quantity = op.quantity;
            }
          } else {
            res = await cartCall(token, "/cart", { method: "DELETE" });
            expected = 200;
            model.length = 0;
          }
          expect(res.status, JSON.stringify(op)).toBe(expected);
          if (res.status === 200) cart = CartSchema.parse(await res.json());
          else await res.body?.cancel();
        }

        cart = CartSchema.parse(await (await cartCall(token, "/cart")).json());
        expect(cart.lines.map((l) => [l.variant_id, l.quantity])).toEqual(model.map((l) => [l.variantId, l.quantity]));
        const price = (id: string) => variants.find((v) => v.id === id)!.price_minor;
        expect(cart.subtotal).toEqual(fromMinor(model.reduce((sum, l) => sum + price(l.variantId) * l.quantity, 0)));
        expect(cart.total_quantity).toBe(model.reduce((sum, l) => sum + l.quantity, 0));
      }),
      { numRuns: 25 },
    );
  });
});

/** 10% off every line: a cost whose allocations reach every available line. */
const TEN_OFF = (() => {
  const parsed = parseRules({ discounts: [{ id: "ten", title: "Ten", kind: "percentage", value: "10" }] }, "USD");
  if (!parsed.ok) throw new Error("the rules of this test are invalid");
  return parsed.rules;
})();

describe("the cart's JSON text", () => {
  const rowArb = (i: number) =>
    fc.record({
      id: fc.constant(`cl_${i}`),
      variant_id: fc.stringMatching(/^\d{1,20}$/),
      position: fc.constant(i + 1),
      quantity: fc.integer({ min: 1, max: MAX_LINE_QUANTITY }),
      handle: fc.string(),
      title: fc.string({ unit: "binary" }),
      variant_title: fc.string({ unit: "grapheme" }),
      unit_price_minor: fc.integer({ min: 0, max: 10_000_000 }),
      currency: fc.constant("USD"),
      available: fc.constantFrom(0, 1),
      catalog_version: fc.constant("v1"),
      attributes: fc
        .dictionary(
          fc.string({ unit: "binary", minLength: 1, maxLength: 8 }),
          fc.string({ unit: "binary", maxLength: 8 }),
          {
            maxKeys: 3,
          },
        )
        .map(canonicalAttributes),
      tracked: fc.constantFrom(0, 1),
      in_stock: fc.constantFrom(0, 1),
      options: fc.dictionary(fc.string({ minLength: 1 }), fc.string(), { maxKeys: 3 }).map((o) => JSON.stringify(o)),
      sku: fc.option(fc.string({ unit: "binary" })),
      image: fc.option(
        fc
          .record({
            url: fc.webUrl(),
            alt: fc.option(fc.string()),
            width: fc.option(fc.nat()),
            height: fc.option(fc.nat()),
          })
          .map((i) => JSON.stringify(i)),
      ),
      compare_at_minor: fc.option(fc.integer({ min: 1, max: 10_000_000 })),
      requires_shipping: fc.constantFrom(0, 1),
      weight_grams: fc.option(fc.nat(100_000)),
      collections: fc.array(fc.string(), { maxLength: 3 }).map((c) => JSON.stringify(c)),
    });

  it("is JSON.stringify of the Cart byte for byte, however often rows are rendered and whichever is replaced", {
    timeout: 30_000,
  }, () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 0, max: 12 })
          .chain((n) => fc.tuple(fc.tuple(...Array.from({ length: n }, (_, i) => rowArb(i))), rowArb(0), fc.nat(11))),
        fc.record({
          created_at: fc.nat(4e12),
          updated_at: fc.nat(4e12),
          expires_at: fc.nat(4e12),
          // A note may hold anything, the text the splice looks for included.
          note: fc.option(fc.oneof(fc.string({ unit: "binary" }), fc.constant('"lines":[]'))),
          attributes: fc.dictionary(fc.string({ minLength: 1 }), fc.string(), { maxKeys: 3 }).map(canonicalAttributes),
          buyer: fc.constant(null),
          shipping_option: fc.constant(null),
          discount_codes: fc.constant("[]"),
        }),
        ([rows, replacement, at], times) => {
          const id = "cart_0123456789abcdef01234567";
          // A cost with an allocation on every available line: each line's text gets its own spliced in.
          const priced = (r: readonly (typeof rows)[number][]) =>
            renderedCostOf(times, r, { rules: TEN_OFF, currency: "USD", now: 0 });
          const json = (r: readonly (typeof rows)[number][]) => cartJson(id, times, r, priced(r));
          const built = (r: readonly (typeof rows)[number][]) => JSON.stringify(buildCart(id, times, r, priced(r)));
          expect(json(rows)).toBe(built(rows));
          // Again from the rendered lines kept for these rows, then with one row replaced.
          expect(json(rows)).toBe(built(rows));
          const changed = rows.map((r, i) =>
            i === at % Math.max(rows.length, 1) ? { ...replacement, id: r.id, position: r.position } : r,
          );
          expect(json(changed)).toBe(built(changed));
        },
      ),
      { numRuns: 200 },
    );
  });
});
