import { readFileSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { launchChromium } from "./chromium.ts";

/**
 * /docs/try shows the cart's cost (issue 43 part 10, issue 44 part 6): a shopper picks a
 * destination and a shipping option and enters a discount code, and reads the subtotal,
 * discounts, shipping, tax and total before checking out. The dev server serves no rules until
 * one is published: this file publishes the seed's example (seed/rules.json) and restores `{}`
 * (the same as none) after it, so the other browser files see the store they expect.
 */

const base = inject("browserApiUrl");
const origin = new URL(base).origin;
const OPERATOR = { Authorization: "Bearer dev-operator-secret", "Content-Type": "application/json" };

let browser: Browser;
const pageErrors: string[] = [];
const offOrigin: string[] = [];

async function publishRules(document: unknown): Promise<void> {
  const live = await fetch(`${base}/api/v1/operator/rules`, { headers: OPERATOR });
  await live.body?.cancel();
  const res = await fetch(`${base}/api/v1/operator/rules`, {
    method: "PUT",
    headers: { ...OPERATOR, ...(live.status === 200 ? { "If-Match": "*" } : {}) },
    body: JSON.stringify(document),
  });
  expect(res.status, await res.clone().text()).toBe(200);
}

async function open(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  page.on("pageerror", (error) => pageErrors.push(error.message));
  context.on("request", (request) => {
    const url = request.url();
    if (!url.startsWith(`${origin}/`) && !url.startsWith("data:")) offOrigin.push(url);
  });
  await page.goto(`${base}/docs/try`);
  return page;
}

const cell = (page: Page, id: string) => page.locator(`#cost-${id}`).textContent();

beforeAll(async () => {
  await publishRules(JSON.parse(readFileSync("seed/rules.json", "utf8")));
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await publishRules({});
});

describe("/docs/try shows the cart's cost", () => {
  it("a destination, a shipping option and a code, each answered with the cost", async () => {
    const page = await open();
    // The page's own cart (POST /carts), its cost shown before anything is added.
    await expect.poll(() => cell(page, "total")).toBe("0.00 USD");
    await expect.poll(() => page.locator("#product-list button").count()).toBeGreaterThanOrEqual(24);
    await page.getByRole("button", { name: /^Essential Crew Tee - Black/ }).click();
    await expect.poll(() => page.locator("#product-title").textContent()).toBe("Essential Crew Tee - Black");
    await page.getByLabel("size").selectOption("M");
    await page.getByRole("button", { name: "Add to cart" }).click();
    await expect.poll(() => cell(page, "subtotal")).toBe("28.00 USD");
    expect(await cell(page, "shipping")).toBe("no destination yet");
    expect(await cell(page, "tax")).toBe("none");

    await page.getByLabel("Country").fill("us");
    await page.getByLabel("Region").fill("ca");
    await page.getByRole("button", { name: "Ship here" }).click();
    // 28.00 + 5.00 shipping + 7.25 % of 28.00 (2.03).
    await expect.poll(() => cell(page, "total")).toBe("35.03 USD");
    expect(await cell(page, "shipping")).toBe("5.00 USD · Standard (3-5 days)");
    expect(await cell(page, "tax")).toBe("2.03 USD");
    expect(await page.getByLabel("Standard (3-5 days) · 5.00 USD").isChecked()).toBe(true);

    await page.getByLabel("Express (1-2 days) · 15.00 USD").check();
    await expect.poll(() => cell(page, "total")).toBe("45.03 USD");

    await page.getByLabel("Discount code").fill("welcome10");
    await page.getByRole("button", { name: "Apply" }).click();
    // 10 % off: 2.80; tax on 25.20 is 1.83; 28.00 − 2.80 + 15.00 + 1.83.
    await expect.poll(() => cell(page, "total")).toBe("42.03 USD");
    expect(await cell(page, "discounts")).toBe("−2.80 USD 10% off your first order (WELCOME10)");
    expect(await page.locator("#code-answers li.ok code").textContent()).toBe("welcome10");

    await page.getByLabel("Discount code").fill("NOPE");
    await page.getByRole("button", { name: "Apply" }).click();
    await expect.poll(() => page.locator("#code-answers li.fail").getAttribute("data-reason")).toBe("unknown");
    await expect.poll(() => cell(page, "discounts")).toBe("none");
    expect(await cell(page, "total")).toBe("45.03 USD");
    // The PATCH answer itself is there to read, as every call of the page.
    expect(await page.locator("#cost-result .verdict").textContent()).toBe("200 OK");
    expect(
      Number(await page.evaluate("document.scrollingElement.scrollWidth - window.innerWidth")),
    ).toBeLessThanOrEqual(0);
    await page.screenshot({ path: "test-results/cost-try-390.png", fullPage: true });
    await page.context().close();
  });

  it("raised no script error and asked nothing of another origin", () => {
    expect(pageErrors).toEqual([]);
    expect(offOrigin).toEqual([]);
  });
});
