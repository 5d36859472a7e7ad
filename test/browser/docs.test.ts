import { mkdir } from "node:fs/promises";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { launchChromium } from "./chromium.ts";

let browser: Browser;
let page: Page;
const failedRequests: string[] = [];
const offOrigin: string[] = [];

beforeAll(async () => {
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  const origin = new URL(inject("browserApiUrl")).origin;
  page.on("requestfailed", (request) => failedRequests.push(request.url()));
  page.on("request", (request) => {
    if (!request.url().startsWith(origin) && !request.url().startsWith("data:")) offOrigin.push(request.url());
  });
});

afterAll(async () => {
  await browser?.close();
});

async function chooseProduct(title: string): Promise<void> {
  await page.getByRole("button", { name: new RegExp(`^${title}`) }).click();
  await expect.poll(() => page.locator("#product-title").textContent()).toBe(title);
}

describe("/docs in real Chromium", () => {
  it("opens from / and lists the products and every operation", async () => {
    await page.goto(`${inject("browserApiUrl")}/`);
    expect(new URL(page.url()).pathname).toBe("/docs");
    await expect.poll(() => page.locator("#product-list button").count()).toBeGreaterThanOrEqual(24);
    await expect.poll(() => page.locator("section.operation").count()).toBeGreaterThanOrEqual(10);
    expect(await page.locator("#op-addCartLine h3").textContent()).toContain("/api/v1/cart/lines");
  });

  it("tries add-to-cart on a product: picks size and color and sees 200", async () => {
    await chooseProduct("Essential Crew Tee - Black");
    await page.locator("#explore").getByLabel("size").selectOption("L");
    await expect.poll(() => page.locator("#chosen-variant").textContent()).toBe("Variant 44102938475603 · L / Black · 28.00 USD · available");
    await page.getByRole("button", { name: "Add to cart" }).click();
    await expect.poll(() => page.locator("#cart-result .verdict").textContent()).toBe("200 OK");
  });

  it("tries add-to-cart on a sold-out product and sees 404 Sold out", async () => {
    await chooseProduct("Example T-Shirt");
    await expect.poll(() => page.locator("#product-panel .verdict").first().textContent()).toBe("404 Sold out");
    await page.getByRole("button", { name: "Add to cart" }).click();
    await expect.poll(() => page.locator("#cart-result .verdict").textContent()).toBe("404 Sold out");
    await mkdir("test-results", { recursive: true });
    await page.locator("#explore").screenshot({ path: "test-results/docs-try-it.png" });
  });

  it("runs an operation's own “try it” form against this server", async () => {
    const form = page.locator("#op-getProduct");
    await form.getByLabel(/handle/).fill("waffle-knit-beanie");
    await form.getByRole("button", { name: "Try it" }).click();
    await expect.poll(() => form.locator(".verdict").textContent()).toBe("200 OK");
    expect(await form.locator("pre.body").textContent()).toContain('"handle": "waffle-knit-beanie"');
  });

  it("sends the add-to-cart operation's documented examples: 200, then 404 Sold out", async () => {
    const form = page.locator("#op-addCartLine");
    await form.getByRole("button", { name: "Try it" }).click();
    await expect.poll(() => form.locator(".verdict").textContent()).toBe("200 OK");
    await form.getByLabel("Example").selectOption({ label: "A sold-out variant (Example T-Shirt): 404 Sold out" });
    expect(await form.getByLabel("Body (JSON)").inputValue()).toContain("gid://shopify/ProductVariant/44102938475688");
    await form.getByRole("button", { name: "Try it" }).click();
    await expect.poll(() => form.locator(".verdict").textContent()).toBe("404 Sold out");
  });

  it("names every control for assistive technology and keeps one main landmark", async () => {
    const unnamed = await page.locator("input, select, textarea, button").evaluateAll((controls) =>
      controls
        .filter((control) => {
          // Runs in the page: `labels` is the DOM's list of <label>s naming a form control.
          const labels = (control as unknown as { labels?: { length: number } }).labels;
          const labelled = labels?.length || control.getAttribute("aria-label");
          return !labelled && !(control.tagName === "BUTTON" && control.textContent?.trim());
        })
        .map((control) => control.outerHTML.slice(0, 80)),
    );
    expect(unnamed).toEqual([]);
    expect(await page.getByRole("main").count()).toBe(1);
    expect(await page.getByRole("navigation", { name: "Operations" }).count()).toBe(1);
  });

  it("loaded nothing from any other origin and nothing failed", () => {
    expect(offOrigin).toEqual([]);
    expect(failedRequests).toEqual([]);
  });
});
