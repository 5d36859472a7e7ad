import { afterAll, describe, expect, it } from "vitest";
import { OrderListSchema } from "../../src/checkout/api.ts";
import { runCli } from "../helpers/cli.ts";
import { localServerForSuite } from "../hardening/local-server.ts";
import { printFigures } from "../hardening/run-config.ts";

/**
 * Exact usage limits across a crash (contract 10.3, issue 44 part 4): 100 racing completions of
 * checkouts that each reserved a use of a limited code, a kill -9 of `npm run dev` among them, a
 * restart on the same state and the payment side's retries: exactly as many committed uses as
 * orders carrying the code, and `npm run orders -- check` (which compares them checkout by
 * checkout) clean.
 */

const PORTS = [8855, 8856, 8857, 8858, 8859];
const OPERATOR = { Authorization: "Bearer dev-operator-secret", "Content-Type": "application/json" };
const CHECKOUTS = 100;
const GIFT_CARD = "44102938475687"; // not shipped: no destination needed
const RULES = {
  discounts: [
    { id: "crash-code", title: "1 off", code: "CRASH", kind: "fixed_amount", value: "1.00", usage_limit: 500 },
  ],
};
const figures = { crashes: 0, checkouts: 0, completions_acknowledged: 0, retried: 0, orders_with_code: 0 };

afterAll(() => printFigures("e2e-discount-crash", figures));

describe("discount uses across a crash of npm run dev", () => {
  const local = localServerForSuite(PORTS);
  const url = local.url;
  const send = (method: string, path: string, body: unknown, headers: Record<string, string>) =>
    fetch(url(path), { method, headers, body: JSON.stringify(body) });

  it("leaves exactly as many committed uses as orders carrying the code, and orders -- check clean", async () => {
    const published = await send("PUT", "/api/v1/operator/rules", RULES, OPERATOR);
    expect(published.status, await published.text()).toBe(200);
    const shoppers = await Promise.all(
      Array.from({ length: CHECKOUTS }, async (_, i) => {
        const issued = await send("POST", "/api/v1/operator/tokens", { label: `uses ${i}` }, OPERATOR);
        const { token } = (await issued.json()) as { token: string };
        // Each shopper from its own address: POST /checkouts allows 60 a minute per address.
        const bearer = {
          Authorization: `Bearer ${token}`,
          "Content-Type": "application/json",
          "CF-Connecting-IP": `198.51.100.${i + 1}`,
        };
        expect((await send("POST", "/api/v1/cart/lines", { variant_id: GIFT_CARD, quantity: 1 }, bearer)).status).toBe(
          200,
        );
        expect((await send("PATCH", "/api/v1/cart", { discount_codes: ["crash"] }, bearer)).status).toBe(200);
        return bearer;
      }),
    );
    const checkouts: { id: string; total: { amount: string; currency: string } }[] = [];
    for (const bearer of shoppers) {
      const res = await send("POST", "/api/v1/checkouts", {}, bearer);
      const text = await res.text();
      expect(res.status, text).toBe(201);
      const { id, cost, discounts } = JSON.parse(text) as {
        id: string;
        cost: { total: { amount: string; currency: string } };
        discounts: { id: string }[];
      };
      expect(discounts.map((d) => d.id)).toEqual(["crash-code"]);
      checkouts.push({ id, total: cost.total });
    }
    figures.checkouts = checkouts.length;

    // 100 racing completions; kill -9 once some are through.
    const completed = new Set<string>();
    const storm = checkouts.map(async ({ id, total }, i) => {
      try {
        const done = await send(
          "POST",
          `/api/v1/operator/checkouts/${id}/complete`,
          { payment_reference: `pay_${i}`, ...total },
          OPERATOR,
        );
        if (done.status === 200) completed.add(id);
      } catch {
        // The server died under this request: it was never acknowledged.
      }
    });
    const started = Date.now();
    while (completed.size < 5 && Date.now() - started < 60_000) await new Promise((r) => setTimeout(r, 10));
    await local.server.kill();
    figures.crashes += 1;
    await Promise.all(storm);
    figures.completions_acknowledged = completed.size;
    expect(completed.size).toBeGreaterThanOrEqual(5);

    await local.restart();
    // The payment side retries what it never heard back about.
    for (const { id, total } of checkouts) {
      if (completed.has(id)) continue;
      const res = await send(
        "POST",
        `/api/v1/operator/checkouts/${id}/complete`,
        { payment_reference: "pay_retry", ...total },
        OPERATOR,
      );
      expect(res.status, await res.text()).toBe(200);
      figures.retried += 1;
    }
    const list = OrderListSchema.parse(
      await (await fetch(url("/api/v1/operator/orders?limit=250"), { headers: OPERATOR })).json(),
    );
    const carrying = list.data.filter((order) => order.discounts.some((d) => d.id === "crash-code"));
    figures.orders_with_code = carrying.length;
    expect(carrying).toHaveLength(CHECKOUTS);
    // The usage object's committed uses are exactly the orders carrying the code.
    const listed = (await (await fetch(url("/api/v1/operator/discounts"), { headers: OPERATOR })).json()) as {
      data: { id: string; usage: { committed: number; held: number } }[];
    };
    expect(listed.data.find((d) => d.id === "crash-code")?.usage).toMatchObject({ committed: CHECKOUTS, held: 0 });
    const check = await runCli("orders", ["check", "--url", local.server.baseUrl]);
    expect(check.code, check.stdout + check.stderr).toBe(0);
    expect(check.stdout).toContain("no difference");
  }, 300_000);
});
