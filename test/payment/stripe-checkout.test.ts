import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { Checkout } from "../../src/checkout/api.ts";
import { checkoutsFor } from "../../src/checkout/client.ts";
import type { VariantRecord } from "../../src/catalog/store.ts";
import { bearerInit } from "../helpers/bearer.ts";
import { addLine, issueToken, seedVariants } from "../helpers/cart.ts";
import { checkoutFrom, setStock, stockOf } from "../helpers/checkout.ts";
import { fetchAs } from "../helpers/worker.ts";
import { injectFault, seenBy, standInSession } from "./stand-in-client.ts";

let variants: VariantRecord[];
const STRIPE = { PAYMENT_PROVIDER: "stripe" } as Partial<Env>;

beforeAll(async () => {
  variants = (await seedVariants()).available;
});

/** A new holder whose cart holds `lines` (variant index → quantity), each variant stocked with 10. */
async function holderWith(lines: Record<number, number>): Promise<{ token: string; holder: string }> {
  await setStock(Object.fromEntries(Object.keys(lines).map((i) => [variants[Number(i)]!.id, 10])));
  const issued = await issueToken();
  for (const [i, q] of Object.entries(lines))
    expect((await addLine(issued.token, variants[Number(i)]!.id, q)).status).toBe(200);
  return issued;
}

/** POST /checkouts by a worker with PAYMENT_PROVIDER=stripe, sending the shopper back to a URL unique to the test. */
async function stripeCheckout(token: string, mark = crypto.randomUUID(), vars: Partial<Env> = {}): Promise<Response> {
  return fetchAs(
    "production",
    "/api/v1/checkouts",
    bearerInit(token, { method: "POST", body: { return_url: `https://shop.example/thanks/${mark}` } }),
    { ...STRIPE, ...vars },
  );
}

function sessionIdOf(checkout: Checkout): string {
  return checkout.url!.split("/").at(-1)!;
}

describe("POST /checkouts with PAYMENT_PROVIDER=stripe (contract 10.6)", () => {
  it("creates the Checkout Session over Stripe's API and answers its url; amount_total is the checkout's total", async () => {
    const { token } = await holderWith({ 0: 2, 1: 1 });
    const mark = crypto.randomUUID();
    const before = Date.now();
    const checkout = await checkoutFrom(await stripeCheckout(token, mark));
    expect(checkout.url).toMatch(/^https:\/\/checkout\.stripe\.test\/c\/pay\/cs_test_/);
    // With Stripe the hold lasts at least 31 minutes (Stripe's sessions last 30 minutes at least).
    expect(Date.parse(checkout.expires_at) - before).toBeGreaterThanOrEqual(31 * 60 * 1000);
    const [request] = await seenBy(mark);
    expect(request).toMatchObject({ method: "POST", path: "/v1/checkout/sessions", status: 200 });
    expect(request!.headers).toMatchObject({
      authorization: "Bearer sk_test_standin0123456789",
      "idempotency-key": checkout.id,
      "content-type": "application/x-www-form-urlencoded",
    });
    const body = request!.body as Record<string, unknown>;
    expect(body).toMatchObject({
      mode: "payment",
      client_reference_id: checkout.id,
      metadata: { checkout_id: checkout.id },
      payment_intent_data: { metadata: { checkout_id: checkout.id } },
      success_url: `https://shop.example/thanks/${mark}`,
      cancel_url: `https://shop.example/thanks/${mark}`,
    });
    // Each line at its frozen unit price, in Stripe's minor units.
    expect(body.line_items).toEqual(
      checkout.lines.map((l) => ({
        quantity: l.quantity,
        price_data: {
          currency: "usd",
          unit_amount: Number(l.unit_price.amount.replace(".", "")),
          product_data: { name: `${l.title} — ${l.variant_title}` },
        },
      })),
    );
    // No earlier than the hold's end.
    expect((body.expires_at as number) * 1000).toBeGreaterThanOrEqual(Date.parse(checkout.expires_at));
    const session = await standInSession(sessionIdOf(checkout));
    expect(session?.amount_total).toBe(Number(checkout.cost.total.amount.replace(".", "")));
  });

  it("needs a return_url: 400 parameter_missing, nothing held", async () => {
    const { token } = await holderWith({ 2: 1 });
    const res = await fetchAs("production", "/api/v1/checkouts", bearerInit(token, { method: "POST" }), STRIPE);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: "parameter_missing", param: "return_url" } });
    expect((await stockOf(variants[2]!.id)).held).toBe(0);
  });

  it.each([
    ["down (the connection cut)", "drop"],
    ["timing out", "hang"],
    ["failing (500)", "status500"],
    ["refusing (402)", "status402"],
    ["answering after the session was made, but the answer lost", "lose"],
  ] as const)(
    "answers 502 payment_provider_unavailable with Stripe %s: holds released, no checkout left open",
    async (_name, mode) => {
      const { token, holder } = await holderWith({ 3: 2 });
      const mark = crypto.randomUUID();
      await injectFault(mark, mode);
      const heldBefore = (await stockOf(variants[3]!.id)).held;
      const res = await stripeCheckout(token, mark);
      expect(res.status).toBe(502);
      expect(await res.json()).toEqual({
        error: {
          type: "api_error",
          code: "payment_provider_unavailable",
          message: "The payment provider did not make the payment session; nothing was held. Try again.",
        },
      });
      expect((await stockOf(variants[3]!.id)).held).toBe(heldBefore);
      const listed = await checkoutsFor(env, holder).checkoutInventory();
      expect(listed.filter((c) => c.status === "open")).toEqual([]);
      if (mode === "lose") {
        // Stripe made a session whose answer was lost: the alarm finds it by its key and expires it.
        const made = (await seenBy(mark)).find((s) => s.status === 200)?.answer as { id: string; status: string };
        expect(made.status).toBe("open");
        await runUntilExpired(holder, made.id);
      }
      // Retrying works once Stripe answers again.
      expect((await stripeCheckout(token)).status).toBe(201);
    },
  );

  it("expires the session at Stripe when the checkout is canceled, replaced or expires, so a released hold cannot be paid", async () => {
    const { token, holder } = await holderWith({ 4: 1 });
    const canceled = await checkoutFrom(await stripeCheckout(token));
    const cancel = await fetchAs(
      "production",
      `/api/v1/checkouts/${canceled.id}`,
      bearerInit(token, { method: "DELETE" }),
      STRIPE,
    );
    expect(cancel.status).toBe(200);
    await runDurableObjectAlarm(checkoutsFor(env, holder));
    expect((await standInSession(sessionIdOf(canceled)))?.status).toBe("expired");

    const replaced = await checkoutFrom(await stripeCheckout(token));
    const newer = await checkoutFrom(await stripeCheckout(token));
    await runDurableObjectAlarm(checkoutsFor(env, holder));
    expect((await standInSession(sessionIdOf(replaced)))?.status).toBe("expired");
    expect((await standInSession(sessionIdOf(newer)))?.status).toBe("open");
  });

  it("keeps a re-created checkout's first hold end (holds cannot be hoarded), its session still 31 minutes out, expired with the checkout", async () => {
    const { token, holder } = await holderWith({ 6: 1 });
    await checkoutFrom(await stripeCheckout(token));
    // The holder's window on the variant now ends in 5 minutes, as if its first hold were 26 minutes old.
    const windowEnd = Date.now() + 5 * 60_000;
    const stub = checkoutsFor(env, holder);
    await runInDurableObject(stub, (_instance, state) => {
      state.storage.sql.exec("UPDATE hold_windows SET ends_at = ?", windowEnd);
    });
    const mark = crypto.randomUUID();
    const before = Date.now();
    const again = await checkoutFrom(await stripeCheckout(token, mark));
    expect(Date.parse(again.expires_at)).toBe(windowEnd);
    // Stripe refuses a session ending sooner than 30 minutes after its creation.
    const [request] = await seenBy(mark);
    expect((request!.body as { expires_at: number }).expires_at * 1000).toBeGreaterThanOrEqual(before + 31 * 60_000);
    // The hold ends first: the checkout expires and its session is expired at Stripe.
    await runInDurableObject(stub, async (_instance, state) => {
      state.storage.sql.exec("UPDATE checkouts SET expires_at = ? WHERE id = ?", Date.now() - 1, again.id);
      await state.storage.setAlarm(Date.now() - 1);
    });
    await runDurableObjectAlarm(stub);
    expect((await stub.checkoutInventory()).find((c) => c.id === again.id)?.status).toBe("expired");
    await runUntilExpired(holder, sessionIdOf(again));
  });

  it("retries an expire Stripe refuses, and never holds up the cancel", async () => {
    const { token, holder } = await holderWith({ 5: 1 });
    const checkout = await checkoutFrom(await stripeCheckout(token));
    const session = sessionIdOf(checkout);
    await injectFault(`${session}/expire`, "status500", 2);
    const cancel = await fetchAs(
      "production",
      `/api/v1/checkouts/${checkout.id}`,
      bearerInit(token, { method: "DELETE" }),
      STRIPE,
    );
    expect(cancel.status).toBe(200);
    expect((await stockOf(variants[5]!.id)).held).toBe(0);
    await runUntilExpired(holder, session);
    expect((await seenBy(`${session}/expire`)).map((s) => s.status)).toEqual([500, 500, 200]);
  });
});

/** Runs the holder's alarm (making each owed retry due at once) until the stand-in has `sessionId` expired. */
async function runUntilExpired(holder: string, sessionId: string): Promise<void> {
  const stub = checkoutsFor(env, holder);
  for (let attempt = 0; attempt < 6; attempt++) {
    if ((await standInSession(sessionId))?.status === "expired") return;
    // Owed expiries wait with backoff: make this one due now, then run the alarm.
    await runInObject(stub);
    await runDurableObjectAlarm(stub);
  }
  throw new Error(`The session ${sessionId} was never expired.`);
}

async function runInObject(stub: ReturnType<typeof checkoutsFor>): Promise<void> {
  const { runInDurableObject } = await import("cloudflare:test");
  await runInDurableObject(stub, async (_instance, state) => {
    state.storage.sql.exec("UPDATE session_expiries SET next_at = 0");
    await state.storage.setAlarm(Date.now() - 1);
  });
}
