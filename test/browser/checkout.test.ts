import { mkdir } from "node:fs/promises";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { launchChromium } from "./chromium.ts";

const base = inject("browserApiUrl");
const origin = new URL(base).origin;
const SHOTS = "test-results";

let browser: Browser;
const pageErrors: string[] = [];
const offOrigin: string[] = [];

/** A fresh holder (its own cart), issued through the dev server's operator surface. */
async function freshToken(): Promise<string> {
  const res = await fetch(`${base}/api/v1/operator/tokens`, {
    method: "POST",
    headers: { Authorization: "Bearer dev-operator-secret", "Content-Type": "application/json" },
    body: JSON.stringify({ label: "browser checkout" }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { token: string }).token;
}

async function open(viewport: { width: number; height: number }): Promise<Page> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  context.on("page", (p) => p.on("pageerror", (error) => pageErrors.push(error.message)));
  page.on("pageerror", (error) => pageErrors.push(error.message));
  context.on("request", (request) => {
    const url = request.url();
    if (!url.startsWith(`${origin}/`) && !url.startsWith("data:")) offOrigin.push(url);
  });
  await page.goto(`${base}/docs/try`);
  return page;
}

beforeAll(async () => {
  browser = await launchChromium();
  await mkdir(SHOTS, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
});

describe("/docs/try walks add -> checkout -> pay -> order", () => {
  it.each([
    ["a 390 px wide phone", { width: 390, height: 844 }, "390"],
    ["a 1280 px wide desktop", { width: 1280, height: 900 }, "1280"],
  ])("on %s", async (_name, viewport, tag) => {
    const page = await open(viewport);
    await page.locator("#token").fill(await freshToken());
    await expect.poll(() => page.locator("#product-list button").count()).toBeGreaterThanOrEqual(24);
    await page.getByRole("button", { name: /^Essential Crew Tee - Black/ }).click();
    await expect.poll(() => page.locator("#product-title").textContent()).toBe("Essential Crew Tee - Black");
    await page.getByLabel("size").selectOption("M");
    await page.getByRole("button", { name: "Add to cart" }).click();
    await expect.poll(() => page.locator("#cart-result .verdict").textContent()).toBe("200 OK");

    await page.getByRole("button", { name: "Check out" }).click();
    await expect.poll(() => page.locator("#cart-result .verdict").first().textContent()).toBe("201 ");
    const body = await page.locator("#cart-result pre.body").first().textContent();
    expect(body).toContain('"status": "open"');
    const pay = page.locator("#pay-link");
    expect(await pay.getAttribute("href")).toMatch(/\/dev\/pay\/chk_/);

    // The hand-off opens in its own tab: the local test payment page, which pays through the signed webhook.
    const [payment] = await Promise.all([page.context().waitForEvent("page"), pay.click()]);
    await payment.waitForLoadState();
    expect(await payment.getByRole("heading", { level: 1 }).textContent()).toBe("Pay for your order");
    expect(await payment.locator("table").textContent()).toContain("Essential Crew Tee - Black");
    await payment.getByRole("button", { name: /^Pay / }).click();
    await expect.poll(() => payment.locator("#status").textContent()).toMatch(/Order ord_[0-9a-f]{32} is placed/);
    const orderId = await payment.locator("#order").textContent();
    await payment.screenshot({ path: `${SHOTS}/checkout-paid-${tag}.png`, fullPage: true });
    await payment.close();

    await page.getByRole("button", { name: "Read the checkout" }).click();
    await expect.poll(() => page.locator("#order-placed code").textContent()).toBe(orderId);
    expect(await page.locator("#cart-result pre.body").first().textContent()).toContain('"status": "completed"');
    expect(await page.locator("#pay-link").count()).toBe(0);
    expect(
      Number(await page.evaluate("document.scrollingElement.scrollWidth - window.innerWidth")),
    ).toBeLessThanOrEqual(0);
    await page.screenshot({ path: `${SHOTS}/checkout-try-${tag}.png`, fullPage: true });
    await page.context().close();
  });

  it("raised no script error and asked nothing of another origin", () => {
    expect(pageErrors).toEqual([]);
    expect(offOrigin).toEqual([]);
  });
});
