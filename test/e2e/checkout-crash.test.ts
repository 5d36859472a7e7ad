import { afterAll, describe, expect, it } from "vitest";
import { OrderListSchema } from "../../src/checkout/api.ts";
import { runCli } from "../helpers/cli.ts";
import { localServerForSuite } from "../hardening/local-server.ts";
import { printFigures } from "../hardening/run-config.ts";

/**
 * A kill -9 of `npm run dev` in the middle of a storm of checkouts and completions, then a
 * restart on the same state: every completion that was acknowledged is exactly one order, the
 * payment side's retries of the others (as a webhook sender retries) make one order each, and
 * `npm run orders -- check` finds orders, holds and stock movements in agreement.
 */

const PORTS = [8850, 8851, 8852, 8853, 8854];
const OPERATOR = { Authorization: "Bearer dev-operator-secret", "Content-Type": "application/json" };
const HOLDERS = 24;
/** The seed's one stock-tracked available variant (Heavyweight Pocket Tee - Navy), restocked below. */
const TRACKED_VARIANT = "44102938475615";
const figures = { crashes: 0, checkouts_acknowledged: 0, completions_acknowledged: 0, retried: 0, differences: 0 };

afterAll(() => printFigures("e2e-checkout-crash", figures));

describe("checkout across a crash of npm run dev", () => {
  const local = localServerForSuite(PORTS);
  const url = local.url;
  const post = (path: string, body: unknown, headers: Record<string, string>) =>
    fetch(url(path), { method: "POST", headers, body: JSON.stringify(body) });

  it("keeps every acknowledged completion one order, and orders -- check clean", async () => {
    const stocked = await post(
      "/api/v1/operator/stock",
      { changes: [{ variant_id: TRACKED_VARIANT, set: 1000 }] },
      OPERATOR,
    );
    expect(stocked.status, await stocked.text()).toBe(200);
    const tokens: string[] = [];
    for (let i = 0; i < HOLDERS; i++) {
      const issued = (await (await post("/api/v1/operator/tokens", { label: `crash ${i}` }, OPERATOR)).json()) as {
        token: string;
      };
      const bearer = { Authorization: `Bearer ${issued.token}`, "Content-Type": "application/json" };
      expect((await post("/api/v1/cart/lines", { variant_id: TRACKED_VARIANT, quantity: 1 }, bearer)).status).toBe(200);
      tokens.push(issued.token);
    }
    const created = new Map<string, string>(); // checkout id -> token
    const totals = new Map<string, { amount: string; currency: string }>(); // checkout id -> what it asks to be paid
    const completed = new Map<string, string>(); // checkout id -> order id
    const storm = tokens.map(async (token, i) => {
      try {
        await new Promise((r) => setTimeout(r, i * 25));
        const res = await post(
          "/api/v1/checkouts",
          {},
          { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
        );
        if (res.status !== 201) return;
        const { id, cost } = (await res.json()) as {
          id: string;
          cost: { total: { amount: string; currency: string } };
        };
        created.set(id, token);
        totals.set(id, cost.total);
        const done = await post(
          `/api/v1/operator/checkouts/${id}/complete`,
          { payment_reference: `pay_${i}`, ...cost.total },
          OPERATOR,
        );
        if (done.status === 200) completed.set(id, ((await done.json()) as { id: string }).id);
      } catch {
        // The server died under this request: it was never acknowledged.
      }
    });
    // Kill it mid-storm, once some completions are through.
    const started = Date.now();
    while (completed.size < 3 && Date.now() - started < 30_000) await new Promise((r) => setTimeout(r, 20));
    await local.server.kill();
    figures.crashes += 1;
    await Promise.all(storm);
    figures.checkouts_acknowledged = created.size;
    figures.completions_acknowledged = completed.size;
    expect(completed.size).toBeGreaterThanOrEqual(3);

    await local.restart();
    // Every acknowledged completion is an order, for its checkout.
    for (const [checkoutId, orderId] of completed) {
      const res = await fetch(url(`/api/v1/operator/orders/${orderId}`), { headers: OPERATOR });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { checkout_id: string }).checkout_id).toBe(checkoutId);
    }
    // The payment side retries what it never heard back about (a webhook sender would).
    for (const [checkoutId] of created) {
      if (completed.has(checkoutId)) continue;
      const res = await post(
        `/api/v1/operator/checkouts/${checkoutId}/complete`,
        { payment_reference: "pay_retry", ...totals.get(checkoutId) },
        OPERATOR,
      );
      expect(res.status).toBe(200);
      figures.retried += 1;
    }
    const list = OrderListSchema.parse(
      await (await fetch(url("/api/v1/operator/orders?limit=250"), { headers: OPERATOR })).json(),
    );
    const perCheckout = new Map<string, number>();
    for (const order of list.data) perCheckout.set(order.checkout_id, (perCheckout.get(order.checkout_id) ?? 0) + 1);
    expect([...perCheckout.values()].every((n) => n === 1)).toBe(true);
    expect(perCheckout.size).toBe(created.size);
    const check = await runCli("orders", ["check", "--url", local.server.baseUrl]);
    figures.differences = check.code === 0 ? 0 : check.stdout.split("\n").length - 2;
    expect(check.code, check.stdout + check.stderr).toBe(0);
    expect(check.stdout).toContain("no difference");
  }, 240_000);
});
