import { mkdir } from "node:fs/promises";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { launchChromium } from "./chromium.ts";

const base = inject("browserApiUrl");
const origin = new URL(base).origin;
const SHOTS = "test-results";

let browser: Browser;
/** Everything any page of this file asked for or complained about, checked at the end. */
const offOrigin: string[] = [];
const failedRequests: string[] = [];
const cspViolations: string[] = [];
const pageErrors: string[] = [];

const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

/** A page that records requests leaving the origin, failed requests, CSP violations and script errors. */
async function open(viewport: { width: number; height: number }, path: string): Promise<Page> {
  const page = await browser.newPage({ viewport });
  page.on("request", (request) => {
    const url = request.url();
    if (!url.startsWith(`${origin}/`) && !url.startsWith("data:") && !url.startsWith("blob:")) offOrigin.push(url);
  });
  page.on("requestfailed", (request) => failedRequests.push(`${request.url()} ${request.failure()?.errorText ?? ""}`));
  page.on("pageerror", (error) => pageErrors.push(error.message));
  page.on("console", (message) => {
    // Scalar's bundled zod probes once whether eval works (`Function("")` in a try) and falls back
    // when the CSP says no: that refusal is the CSP doing its job, so it is the one not counted.
    const text = message.text();
    if (
      message.type() === "error" &&
      text.startsWith("Content Security Policy") &&
      text !== "Content Security Policy: script-src eval"
    )
      cspViolations.push(text);
  });
  // Runs in the page before its own scripts: every CSP refusal reaches the console, named.
  await page.addInitScript({
    content:
      'document.addEventListener("securitypolicyviolation", (e) => console.error("Content Security Policy: " + e.violatedDirective + " " + e.blockedURI));',
  });
  await page.goto(`${base}${path}`);
  return page;
}

/**
 * Closes a page once its requests are done. /docs/try reads the cart as it opens: closing the page
 * with that read in flight aborted it (ERR_ABORTED on a loaded CI machine), which is the test's
 * doing, not the page's, so the failed-request check below would have caught nothing real.
 */
async function closeWhenIdle(page: Page): Promise<void> {
  await page.waitForLoadState("networkidle");
  await page.close();
}

/** The page is no wider than the viewport: nothing to scroll sideways. */
async function horizontalOverflow(page: Page): Promise<number> {
  return Number(await page.evaluate("document.scrollingElement.scrollWidth - window.innerWidth"));
}

/** Scalar ids an operation `<slug>/tag/<tag>/<METHOD><path>`. */
function operation(page: Page, id: string) {
  return page.locator(`[id="storefront/tag/${id}"]`);
}

beforeAll(async () => {
  browser = await launchChromium();
  await mkdir(SHOTS, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
});

describe("/docs, the Scalar reference, in real Chromium", () => {
  it("opens from / with the conventions, a search box and the storefront's tags in the sidebar (1280 wide)", async () => {
    const page = await open(DESKTOP, "/");
    expect(new URL(page.url()).pathname).toBe("/docs");
    await expect
      .poll(() => page.getByRole("heading", { level: 1, name: "Storefront API" }).count(), { timeout: 20_000 })
      .toBe(1);
    await expect.poll(() => page.getByText("every non-2xx response (but 304)").count()).toBeGreaterThan(0);
    const sidebar = page.getByRole("complementary", { name: /Sidebar/ });
    for (const tag of ["Introduction", "Catalog", "Cart"]) {
      await expect.poll(() => sidebar.innerText(), { message: tag }).toMatch(new RegExp(`^${tag}$`, "m"));
    }
    expect(await page.getByRole("button", { name: /Search/ }).count()).toBeGreaterThan(0);
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await page.screenshot({ path: `${SHOTS}/docs-reference-1280.png` });
    await closeWhenIdle(page);
  });

  it("shows an operation with its response example, its error codes and a curl snippet for this server", async () => {
    const page = await open(DESKTOP, "/docs#storefront/tag/cart/POST/api/v1/cart/lines");
    const section = operation(page, "cart/POST/api/v1/cart/lines");
    await expect.poll(() => section.count(), { timeout: 20_000 }).toBe(1);
    await expect.poll(() => section.innerText()).toContain('"object": "cart_line"');
    const text = await section.innerText();
    expect(text).toContain("Add a variant to the cart");
    expect(text).toContain(`curl ${origin}/api/v1/cart/lines`);
    expect(text).toMatch(/404[\s\S]*409[\s\S]*413[\s\S]*415/);
    await section.getByRole("tab", { name: /404/ }).click();
    await expect.poll(() => section.innerText()).toContain('"type": "not_found_error"');
    // The page, not the element: with this round's larger document Scalar keeps rendering the
    // sections around it, so the element never held still for an element screenshot (30 s, every
    // run); the page shot, as the phone-width test takes, shows the same operation.
    await page.screenshot({ path: `${SHOTS}/docs-operation-1280.png` });
    await closeWhenIdle(page);
  });

  it("finds operations with its search", async () => {
    const page = await open(DESKTOP, "/docs");
    await page
      .getByRole("button", { name: /Search/ })
      .first()
      .click();
    await page.keyboard.type("variants");
    const dialog = page.getByRole("dialog");
    await expect.poll(() => dialog.innerText(), { timeout: 10_000 }).toContain("List a product's variants");
    await page.screenshot({ path: `${SHOTS}/docs-search-1280.png` });
    await closeWhenIdle(page);
  });

  it("opens /docs#authentication, a 401's docs_url, at the Authentication heading", async () => {
    const page = await open(DESKTOP, "/docs#authentication");
    const heading = page.locator('h2[id="storefront/description/authentication"]');
    await expect.poll(() => heading.count(), { timeout: 20_000 }).toBe(1);
    await expect.poll(() => heading.evaluate((el) => Math.round(el.getBoundingClientRect().top))).toBeLessThan(200);
    expect(await heading.innerText()).toContain("Authentication");
    await closeWhenIdle(page);
  });

  it("sends a request from Scalar's own client to this server with the dev token: 200, then 404 Sold out", async () => {
    const page = await open(DESKTOP, "/docs#storefront/tag/cart/POST/api/v1/cart/lines");
    const section = operation(page, "cart/POST/api/v1/cart/lines");
    await expect.poll(() => section.count(), { timeout: 20_000 }).toBe(1);
    await section.getByRole("button", { name: /Test Request/ }).click();
    const client = page.getByRole("dialog");
    await expect.poll(() => client.innerText()).toContain(`${origin}`);
    // The examples' Idempotency-Key would replay one stored answer; each send here is its own request.
    const sends: { status: number; url: string; auth: string | null }[] = [];
    page.on("response", async (response) => {
      if (response.request().method() === "POST")
        sends.push({
          status: response.status(),
          url: response.url(),
          auth: await response.request().headerValue("authorization"),
        });
    });
    await client.getByRole("button", { name: /^Send/ }).first().click();
    await expect.poll(() => client.innerText()).toMatch(/200 OK/);
    expect(await client.innerText()).toContain('"object": "cart"');
    expect(sends[0]).toEqual({ status: 200, url: `${origin}/api/v1/cart/lines`, auth: "Bearer sf_dev_LocalToken_A1" });
    await page.screenshot({ path: `${SHOTS}/docs-client-200.png` });

    // The sold-out example body, sent the same way: the API's own 404 Sold out.
    const editor = client.locator(".cm-content").first();
    await editor.click();
    await page.keyboard.press("Control+A");
    await page.keyboard.type(JSON.stringify({ variant_id: "44102938475688", quantity: 1 }));
    const key = client.getByText("9f1c2d6e-3b1a-4c55-8a0e-7f7b2b1d5c10", { exact: true });
    if ((await key.count()) > 0) {
      await key.click();
      await page.keyboard.press("Control+A");
      await page.keyboard.type("browser-sold-out-1");
    }
    await client.getByRole("button", { name: /^Send/ }).first().click();
    await expect.poll(() => client.innerText()).toMatch(/404 Not Found/);
    expect(await client.innerText()).toContain('"message": "Sold out"');
    expect(sends.map((s) => s.status)).toEqual([200, 404]);
    await page.screenshot({ path: `${SHOTS}/docs-client-404.png` });
    await closeWhenIdle(page);
  });

  it("fits a 390 px wide phone: no sideways scrolling, the content starts under a one-line header", async () => {
    const page = await open(PHONE, "/docs");
    await expect
      .poll(() => page.getByRole("heading", { level: 1, name: "Storefront API" }).count(), { timeout: 20_000 })
      .toBe(1);
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    const top = await page
      .getByRole("heading", { level: 1, name: "Storefront API" })
      .evaluate((el) => el.getBoundingClientRect().top);
    expect(top).toBeLessThan(PHONE.height / 2);
    expect(await page.locator("header.site").evaluate((el) => el.getBoundingClientRect().height)).toBeLessThanOrEqual(
      56,
    );
    await page.screenshot({ path: `${SHOTS}/docs-reference-390.png` });

    await page.goto(`${base}/docs#storefront/tag/catalog/GET/api/v1/products/{handle}`);
    const section = operation(page, "catalog/GET/api/v1/products/{handle}");
    await expect.poll(() => section.count(), { timeout: 20_000 }).toBe(1);
    await expect.poll(() => section.innerText(), { timeout: 20_000 }).toContain('"object": "product"');
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await page.screenshot({ path: `${SHOTS}/docs-operation-390.png` });
    await closeWhenIdle(page);
  });
});

describe("/docs/try, the seed's catalog walk-through", () => {
  async function chooseProduct(page: Page, title: string): Promise<void> {
    await page.getByRole("button", { name: new RegExp(`^${title}`) }).click();
    await expect.poll(() => page.locator("#product-title").textContent()).toBe(title);
  }

  it("picks a product, a size and a color and adds it to the cart: 200, then a sold-out one: 404 Sold out (1280 wide)", async () => {
    const page = await open(DESKTOP, "/docs/try");
    await expect.poll(() => page.locator("#product-list button").count()).toBeGreaterThanOrEqual(24);
    await chooseProduct(page, "Essential Crew Tee - Black");
    await page.getByLabel("size").selectOption("L");
    await expect
      .poll(() => page.locator("#chosen-variant").textContent())
      .toBe("Variant 44102938475603 · L / Black · 28.00 USD · available");
    await page.getByRole("button", { name: "Add to cart" }).click();
    await expect.poll(() => page.locator("#cart-result .verdict").textContent()).toBe("200 OK");
    await page.getByRole("button", { name: "Read the cart" }).click();
    await expect
      .poll(() => page.locator("#cart-result pre.body").textContent())
      .toContain('"variant_id": "44102938475603"');
    // Its cart came from POST /carts, not from the dev token, and is kept across a reload.
    const token = await page.evaluate(() => localStorage.getItem("storefront-try.cart-token"));
    expect(token).toMatch(/^sf_cart_[0-9a-f]{106}$/);
    expect(await page.locator("#token").inputValue()).toBe(token);
    await page.reload();
    await expect.poll(() => page.locator("#token").inputValue()).toBe(token);
    await expect.poll(() => page.locator("#product-list button").count()).toBeGreaterThanOrEqual(24);

    await chooseProduct(page, "Example T-Shirt");
    await expect.poll(() => page.locator("#product-panel .verdict").first().textContent()).toBe("404 Sold out");
    await page.getByRole("button", { name: "Add to cart" }).click();
    await expect.poll(() => page.locator("#cart-result .verdict").textContent()).toBe("404 Sold out");
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await page.screenshot({ path: `${SHOTS}/docs-try-1280.png`, fullPage: true });
    await closeWhenIdle(page);
  });

  it("works on a 390 px wide phone without sideways scrolling", async () => {
    const page = await open(PHONE, "/docs/try");
    await expect.poll(() => page.locator("#product-list button").count()).toBeGreaterThanOrEqual(24);
    await chooseProduct(page, "Everyday Jogger - Black");
    await page.getByRole("button", { name: "Add to cart" }).click();
    await expect.poll(() => page.locator("#cart-result .verdict").textContent()).toBe("200 OK");
    await page
      .locator("#cart-result details")
      .first()
      .evaluate((el) => el.setAttribute("open", ""));
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await page.screenshot({ path: `${SHOTS}/docs-try-390.png`, fullPage: true });
    await closeWhenIdle(page);
  });

  it("names every control for assistive technology and keeps one main landmark", async () => {
    const page = await open(DESKTOP, "/docs/try");
    await expect.poll(() => page.locator("#product-list button").count()).toBeGreaterThanOrEqual(24);
    await chooseProduct(page, "Essential Crew Tee - Black");
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
    await closeWhenIdle(page);
  });
});

describe("every page above", () => {
  it("loaded nothing from any other origin, broke no CSP rule, threw nothing and had no request fail", () => {
    expect(offOrigin).toEqual([]);
    expect(cspViolations).toEqual([]);
    expect(pageErrors).toEqual([]);
    expect(failedRequests).toEqual([]);
  });
});
