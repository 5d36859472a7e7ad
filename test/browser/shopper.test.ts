import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { DEV_CART_TOKEN_SECRET, issueShopperToken } from "../../src/auth/shopper-token.ts";
import { launchChromium } from "./chromium.ts";
import { type PageServer, startPageServer } from "./page-server.ts";

const AVAILABLE_VARIANT = "44102938475656"; // Everyday Jogger - Black, XS
const TOKEN_KEY = "cart-token";

/**
 * A storefront as a shop would write one with no server of its own: on its first visit a browser
 * asks `POST /carts` for a cart, keeps the shopper token in localStorage, sends it on every cart
 * call, and keeps any renewed token an answer carries in `Cart-Token`.
 */
const SHOPPER_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Shopper storefront</title></head>
<body><h1>Shop</h1>
<script>
const KEY = ${JSON.stringify(TOKEN_KEY)};
async function ensureCart(base) {
  const kept = localStorage.getItem(KEY);
  if (kept) return { token: kept, created: false };
  const res = await fetch(base + "/api/v1/carts", { method: "POST" });
  const body = await res.json();
  localStorage.setItem(KEY, body.token);
  return { token: body.token, created: true, status: res.status, cartId: body.cart.id };
}
async function cartCall(base, method, path, body, extra) {
  try {
    const headers = Object.assign({ Authorization: "Bearer " + localStorage.getItem(KEY) }, extra || {});
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const res = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const renewed = res.headers.get("Cart-Token");
    if (renewed) localStorage.setItem(KEY, renewed);
    return { ok: true, status: res.status, body: await res.json(), rateLimit: res.headers.get("RateLimit"), renewed: renewed !== null };
  } catch (error) {
    return { ok: false, error: String(error) };
  }
}
</script></body></html>`;

type CartAnswer =
  | {
      ok: true;
      status: number;
      body: { id?: string; lines?: { variant_id: string; quantity: number; attributes: Record<string, string> }[] };
      rateLimit: string | null;
      renewed: boolean;
    }
  | { ok: false; error: string };

declare global {
  function ensureCart(base: string): Promise<{ token: string; created: boolean; status?: number; cartId?: string }>;
  function cartCall(
    base: string,
    method: string,
    path: string,
    body?: unknown,
    extra?: Record<string, string>,
  ): Promise<CartAnswer>;
}

let browser: Browser;
let site: PageServer;
const api = inject("browserApiUrl");

function cart(page: Page, method: string, path: string, body?: unknown, extra?: Record<string, string>) {
  return page.evaluate(([base, m, p, b, e]) => cartCall(base, m, p, b, e), [api, method, path, body, extra] as const);
}

beforeAll(async () => {
  browser = await launchChromium();
  // 127.0.0.1:* is in the dev server's default ALLOWED_ORIGINS.
  site = await startPageServer("127.0.0.1", [8816, 8817], SHOPPER_HTML);
});

afterAll(async () => {
  await browser?.close();
  await site?.close();
});

describe("a shopper's cart from POST /carts, on a storefront of another origin, in real Chromium", () => {
  it("gets a cart, keeps its token in localStorage, adds lines with line attributes, reloads and finds its cart", async () => {
    const page = await browser.newPage();
    await page.goto(`${site.origin}/`);
    expect(new URL(api).origin).not.toBe(site.origin);

    const first = await page.evaluate((base) => ensureCart(base), api);
    expect(first).toMatchObject({ created: true, status: 201 });
    expect(first.token).toMatch(/^sf_cart_[0-9a-f]{106}$/);

    const engraved = await cart(page, "POST", "/api/v1/cart/lines", {
      variant_id: AVAILABLE_VARIANT,
      quantity: 1,
      attributes: { Engraving: "A.B." },
    });
    expect(engraved).toMatchObject({ ok: true, status: 200 });
    // The write limit's headers reach the page (exposed by CORS).
    expect(engraved.ok && engraved.rateLimit).toMatch(/^"cart-writes";r=\d+;t=\d+$/);
    const plain = await cart(page, "POST", "/api/v1/cart/lines", { variant_id: AVAILABLE_VARIANT, quantity: 2 });
    expect(plain).toMatchObject({ ok: true, status: 200 });

    await page.reload();
    const again = await page.evaluate((base) => ensureCart(base), api);
    expect(again).toEqual({ token: first.token, created: false });
    // A cart read revalidating with If-None-Match: the preflight used to refuse the header.
    const read = await cart(page, "GET", "/api/v1/cart", undefined, { "If-None-Match": '"stale"' });
    expect(read).toMatchObject({ ok: true, status: 200 });
    expect(read.ok && read.body.id).toBe(first.cartId);
    expect(read.ok && read.body.lines?.map((l) => [l.variant_id, l.quantity, l.attributes])).toEqual([
      [AVAILABLE_VARIANT, 1, { Engraving: "A.B." }],
      [AVAILABLE_VARIANT, 2, {}],
    ]);
    await page.close();
  });

  it("reads a renewed token from Cart-Token and keeps it, and the renewed token opens the same cart", async () => {
    const page = await browser.newPage();
    await page.goto(`${site.origin}/`);
    // A token 20 days old (signed with npm run dev's fixed development secret): past half its life.
    const old = (await issueShopperToken(DEV_CART_TOKEN_SECRET, Date.now() - 20 * 86_400_000)).token;
    await page.evaluate(([key, token]) => localStorage.setItem(key, token), [TOKEN_KEY, old] as const);
    const added = await cart(page, "POST", "/api/v1/cart/lines", { variant_id: AVAILABLE_VARIANT, quantity: 1 });
    expect(added).toMatchObject({ ok: true, status: 200, renewed: true });
    const kept = await page.evaluate((key) => localStorage.getItem(key), TOKEN_KEY);
    expect(kept).toMatch(/^sf_cart_/);
    expect(kept).not.toBe(old);
    const read = await cart(page, "GET", "/api/v1/cart");
    expect(read).toMatchObject({ ok: true, status: 200, renewed: false });
    expect(read.ok && read.body.lines?.map((l) => l.quantity)).toEqual([1]);
    await page.close();
  });
});
