import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { formBody } from "../../src/payment/form.ts";
import { STAND_IN, standInSession } from "./stand-in-client.ts";

const KEY = "sk_test_standin0123456789";

function post(path: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${STAND_IN}${path}`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${KEY}`,
      "Content-Type": "application/x-www-form-urlencoded",
      "Idempotency-Key": crypto.randomUUID(),
      ...headers,
    },
    body,
  });
}

const soon = () => Math.floor(Date.now() / 1000) + 3600;
const session = () => ({
  mode: "payment",
  success_url: "https://shop.example/thanks",
  cancel_url: "https://shop.example/thanks",
  client_reference_id: "chk_standin",
  expires_at: soon(),
  line_items: [{ quantity: 2, price_data: { currency: "usd", unit_amount: 1250, product_data: { name: "Tee" } } }],
});

describe("the Stripe stand-in checks every request against Stripe's OpenAPI document", () => {
  it("refuses malformed requests in Stripe's error shape (it is not a stub)", async () => {
    const cases: [string, Promise<Response>, number, RegExp][] = [
      ["an unknown parameter", post("/v1/checkout/sessions", formBody({ ...session(), colour: "red" })), 400, /colour/],
      [
        "a quantity that is not an integer",
        post("/v1/checkout/sessions", formBody(session()).replace("quantity%5D=2", "quantity%5D=two")),
        400,
        /quantity/,
      ],
      [
        "a mode Stripe does not have",
        post("/v1/checkout/sessions", formBody({ ...session(), mode: "gift" })),
        400,
        /mode/,
      ],
      [
        "no success_url",
        post("/v1/checkout/sessions", formBody({ ...session(), success_url: undefined })),
        400,
        /success_url/,
      ],
      ["a key given twice", post("/v1/checkout/sessions", `${formBody(session())}&mode=payment`), 400, /Malformed/],
      ["no API key", post("/v1/checkout/sessions", formBody(session()), { Authorization: "" }), 401, /API Key/],
      [
        "a publishable key",
        post("/v1/checkout/sessions", formBody(session()), { Authorization: "Bearer pk_test_0123456789" }),
        401,
        /API Key/,
      ],
      [
        "a path Stripe does not have",
        post("/v1/checkout/session", formBody(session())),
        404,
        /Unrecognized request URL/,
      ],
      [
        "a Stripe-Version of another shape",
        post("/v1/checkout/sessions", formBody(session()), { "Stripe-Version": "latest" }),
        400,
        /version/,
      ],
      [
        "JSON instead of a form",
        post("/v1/checkout/sessions", JSON.stringify(session()), { "Content-Type": "application/json" }),
        400,
        /form/,
      ],
      [
        "expires_at under 30 minutes",
        post("/v1/checkout/sessions", formBody({ ...session(), expires_at: soon() - 3000 })),
        400,
        /30 minutes/,
      ],
    ];
    for (const [name, answer, status, message] of cases) {
      const res = await answer;
      const body = (await res.json()) as { error: { type: string; message: string } };
      expect(res.status, name).toBe(status);
      expect(body.error.type, name).toMatch(/_error$/);
      expect(body.error.message, name).toMatch(message);
    }
  });

  it("answers like Stripe: a session built from what was sent, expired once, replayed by its Idempotency-Key", async () => {
    const key = crypto.randomUUID();
    const body = formBody(session());
    const first = await post("/v1/checkout/sessions", body, { "Idempotency-Key": key });
    const made = (await first.json()) as {
      id: string;
      amount_total: number;
      url: string;
      status: string;
      expires_at: number;
    };
    expect(first.status).toBe(200);
    expect(made).toMatchObject({ amount_total: 2500, status: "open", url: expect.stringMatching(/^https:\/\//) });
    const again = await post("/v1/checkout/sessions", body, { "Idempotency-Key": key });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(((await again.json()) as { id: string }).id).toBe(made.id);
    const other = await post("/v1/checkout/sessions", formBody({ ...session(), client_reference_id: "x" }), {
      "Idempotency-Key": key,
    });
    expect(other.status).toBe(400);
    expect(await other.json()).toMatchObject({ error: { type: "idempotency_error" } });
    const expired = await post(`/v1/checkout/sessions/${made.id}/expire`, "");
    expect(await expired.json()).toMatchObject({ id: made.id, status: "expired", url: null });
    const twice = await post(`/v1/checkout/sessions/${made.id}/expire`, "");
    expect(twice.status).toBe(400);
    expect((await standInSession(made.id))?.status).toBe("expired");
  });

  it("accepts what Stripe's own client (the stripe package) sends, and computes the same amount_total", async () => {
    const url = new URL(STAND_IN);
    const stripe = new Stripe(KEY, {
      host: url.hostname,
      port: Number(url.port),
      protocol: "http",
      httpClient: Stripe.createFetchHttpClient(),
      maxNetworkRetries: 0,
    });
    const coupon = await stripe.coupons.create({
      amount_off: 300,
      currency: "usd",
      duration: "once",
      max_redemptions: 1,
    });
    const made = await stripe.checkout.sessions.create({
      ...(session() as Stripe.Checkout.SessionCreateParams),
      discounts: [{ coupon: coupon.id }],
      shipping_options: [
        {
          shipping_rate_data: {
            type: "fixed_amount",
            display_name: "Standard",
            fixed_amount: { amount: 500, currency: "usd" },
          },
        },
      ],
      metadata: { checkout_id: "chk_standin" },
    });
    expect(made.amount_total).toBe(2500 - 300 + 500);
    await expect(
      stripe.checkout.sessions.create({
        ...(session() as Stripe.Checkout.SessionCreateParams),
        mode: "nonsense" as "payment",
      }),
    ).rejects.toThrow(/mode/);
  });
});
