import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { Checkout } from "../../src/checkout/api.ts";
import type { VariantRecord } from "../../src/catalog/store.ts";
import { stockStore } from "../../src/stock/store.ts";
import { addLine, issueToken, seedVariants } from "../helpers/cart.ts";
import {
  checkoutFrom,
  operatorComplete,
  postCheckout,
  postWebhook,
  setStock,
  signedCompletion,
  stockOf,
} from "../helpers/checkout.ts";
import { printFigures } from "../hardening/run-config.ts";

let variants: VariantRecord[];

beforeAll(async () => {
  variants = (await seedVariants()).available;
});

/** Runs `task` for 0..n-1, at most `width` at a time. */
async function inBatches<T>(n: number, width: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let start = 0; start < n; start += width) {
    out.push(...(await Promise.all(Array.from({ length: Math.min(width, n - start) }, (_, k) => task(start + k)))));
  }
  return out;
}

describe("checkouts racing for the last units", () => {
  it("holds exactly 50 of 500 concurrent checkouts for the last 50 units, and ends at 0, never below", async () => {
    const variant = variants[3]!;
    await setStock({ [variant.id]: 1000 });
    const tokens = await inBatches(500, 50, async () => {
      const issued = await issueToken("race");
      expect((await addLine(issued.token, variant.id, 1)).status).toBe(200);
      return issued.token;
    });
    await setStock({ [variant.id]: 50 });
    const raceStart = Date.now();
    const answers = await Promise.all(tokens.map((token) => postCheckout(token)));
    const statuses = answers.map((res) => res.status);
    const raceMs = Date.now() - raceStart;
    const won: Checkout[] = [];
    for (const res of answers) {
      if (res.status === 201) won.push(await checkoutFrom(res));
      else {
        expect(res.status).toBe(409);
        expect(await res.json()).toMatchObject({
          error: {
            code: "checkout_unavailable",
            lines: [{ code: expect.stringMatching(/sold_out|insufficient_stock/) }],
          },
        });
      }
    }
    expect(statuses.filter((s) => s === 201)).toHaveLength(50);
    expect(await stockOf(variant.id)).toMatchObject({ quantity: 50, held: 50, available_quantity: 0 });
    // Every winner pays, all at once.
    const paid = await Promise.all(won.map((c) => operatorComplete(c)));
    expect(paid.map((r) => r.status)).toEqual(won.map(() => 200));
    expect(await stockOf(variant.id)).toMatchObject({ quantity: 0, held: 0, available_quantity: 0 });
    // The movement log never went below zero on the way.
    const movements = await stockStore(env).movements(variant.id, 1000);
    expect(Math.min(...movements.map((m) => m.quantity))).toBe(0);
    expect(Math.min(...movements.map((m) => m.quantity - m.held))).toBeGreaterThanOrEqual(0);
    const orders = await env.ORDERS.prepare(
      "SELECT COUNT(*) AS n, SUM(l.quantity) AS units FROM orders o JOIN order_lines l ON l.order_id = o.id WHERE l.variant_id = ?",
    )
      .bind(variant.id)
      .first<{ n: number; units: number }>();
    expect(orders).toEqual({ n: 50, units: 50 });
    printFigures("checkout-concurrency", {
      checkouts_raced: 500,
      held: 50,
      refused: 450,
      completed: 50,
      race_ms: raceMs,
    });
  }, 120_000);
});

describe("completions racing each other", () => {
  it("makes one order of 100 concurrent completions of one checkout, mixed webhook and operator", async () => {
    const variant = variants[4]!;
    await setStock({ [variant.id]: 10 });
    const issued = await issueToken("completion race");
    expect((await addLine(issued.token, variant.id, 3)).status).toBe(200);
    const checkout = await checkoutFrom(await postCheckout(issued.token));
    const deliveries = await Promise.all(
      Array.from({ length: 50 }, (_, i) => signedCompletion(checkout, `pay_hook_${i}`)),
    );
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        i % 2 === 0
          ? operatorComplete(checkout, `pay_op_${i}`)
          : postWebhook(deliveries[(i - 1) / 2]!.body, deliveries[(i - 1) / 2]!.headers),
      ),
    );
    const ids = new Set<string>();
    for (const res of answers) {
      expect(res.status).toBe(200);
      const body = (await res.json()) as { id?: string; order_id?: string };
      ids.add((body.order_id ?? body.id)!);
    }
    expect(ids.size).toBe(1);
    const count = await env.ORDERS.prepare("SELECT COUNT(*) AS n FROM orders WHERE checkout_id = ?")
      .bind(checkout.id)
      .first<{ n: number }>();
    expect(count?.n).toBe(1);
    expect(await stockOf(variant.id)).toMatchObject({ quantity: 7, held: 0 });
    printFigures("checkout-concurrency", { concurrent_completions: 100, orders_made: 1 });
  }, 60_000);
});
