import type { Context } from "hono";
import { Hono } from "../http/hono.ts";
import { CheckoutIdSchema, type Checkout } from "../checkout/api.ts";
import { checkoutHost } from "../checkout/client.ts";
import { signatureHeader } from "../checkout/signature.ts";
import type { AppEnv } from "../http/app-env.ts";
import { invalidRequest, resourceMissing, routeNotFound } from "../http/errors.ts";
import { noStore } from "../http/no-store.ts";
import { checkoutWebhookSecret } from "../http/secrets.ts";
import { describe } from "../openapi/describe.ts";
import { receiveCheckoutWebhook } from "./webhooks.ts";

/** The test page posts only to itself; nothing else is loaded. */
const PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

function page(c: Context<AppEnv>, title: string, body: string): Response {
  const html =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${escapeHtml(title)}</title><style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem}` +
    `table{width:100%;border-collapse:collapse}td{padding:.25rem 0}button{font:inherit;padding:.6rem 1.2rem}</style></head>` +
    `<body><p><strong>Test payment (development only)</strong>: no money moves.</p><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
  return c.html(html, 200, { "Content-Security-Policy": PAGE_CSP });
}

/** Development only: anywhere else this surface does not exist (404 route_not_found), whatever the secret. */
function developmentOnly(c: Context<AppEnv>): string {
  const id = c.req.param("id") ?? "";
  if (c.env.ENVIRONMENT !== "development") throw routeNotFound(c.req.path);
  return id;
}

async function readCheckout(env: Env, id: string): Promise<Checkout | null> {
  if (!CheckoutIdSchema.safeParse(id).success) return null;
  const reply = await checkoutHost(env, id)?.getCheckout(id);
  return reply?.ok ? (JSON.parse(reply.json) as Checkout) : null;
}

/**
 * The local test payment page that `npm run dev` hands checkouts off to: it shows the checkout
 * and a Pay button, which completes it through the signed webhook (`Storefront-Signature`, with
 * the development secret), exactly as a payment provider would. It exists only where ENVIRONMENT
 * is `development`: a deployed worker answers 404.
 */
export const devPay = new Hono<AppEnv>()
  .use("*", noStore)
  .get("/:id", describe("getTestPaymentPage"), async (c) => {
    const id = developmentOnly(c);
    const checkout = await readCheckout(c.env, id);
    if (!checkout) throw resourceMissing("No such checkout.", "id");
    const rows = checkout.lines
      .map(
        (l) =>
          `<tr><td>${escapeHtml(l.title)} — ${escapeHtml(l.variant_title)} × ${l.quantity}</td><td align="right">${escapeHtml(l.line_total.amount)}</td></tr>`,
      )
      .join("");
    const pay =
      checkout.status === "open"
        ? `<form method="post"><button type="submit" id="pay">Pay ${escapeHtml(checkout.cost.total.amount)} ${escapeHtml(checkout.currency)}</button></form>`
        : `<p id="status">This checkout is ${escapeHtml(checkout.status)}${checkout.order_id ? `: order <code id="order">${escapeHtml(checkout.order_id)}</code>` : ""}.</p>`;
    return page(
      c,
      "Pay for your order",
      `<table>${rows}<tr><td><strong>Total</strong></td><td align="right"><strong>${escapeHtml(checkout.cost.total.amount)} ${escapeHtml(checkout.currency)}</strong></td></tr></table>${pay}`,
    );
  })
  .post("/:id", describe("payTestPaymentPage"), async (c) => {
    const id = developmentOnly(c);
    const checkout = await readCheckout(c.env, id);
    if (!checkout) throw resourceMissing("No such checkout.", "id");
    const secret = checkoutWebhookSecret(c.env);
    if (!secret) throw invalidRequest("signature_invalid", "CHECKOUT_WEBHOOK_SECRET is not set.");
    const body = JSON.stringify({
      type: "checkout.completed",
      data: {
        checkout_id: id,
        payment_reference: `test_${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`,
        // What the page showed and the Pay button pays: the checkout's total.
        amount: checkout.cost.total.amount,
        currency: checkout.cost.total.currency,
      },
    });
    // Through the webhook's own verification, as a payment provider's delivery would go.
    const receipt = await receiveCheckoutWebhook(c.env, {
      storefrontSignature: await signatureHeader(secret, body),
      stripeSignature: undefined,
      body,
    });
    const back = checkout.return_url
      ? `<p><a id="return" href="${escapeHtml(checkout.return_url)}">Back to the shop</a></p>`
      : "";
    return page(
      c,
      "Paid",
      `<p id="status">Thank you. Order <code id="order">${escapeHtml(receipt.order_id ?? "")}</code> is placed.</p>${back}`,
    );
  });
