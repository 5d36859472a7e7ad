import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { launchChromium } from "./chromium.ts";

/**
 * Issue 33 point 7 and issue 34 point 6: the reference's "Test Request" must work on first use.
 * Scalar fills every parameter's example at once, so the examples must be valid together (once
 * they sent starting_after with ending_before and a stale catalog_version: 400). Each catalog
 * operation is opened in real Chromium, Test Request clicked, Send clicked, and the answer must
 * be 2xx. Cart writes must send a fresh Idempotency-Key on every send, never the example's
 * fixed key (which replayed the first answer, or 422 once the body was edited).
 */

const base = inject("browserApiUrl");
const origin = new URL(base).origin;

let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

interface Sent {
  method: string;
  url: string;
  status: number;
  idempotencyKey: string | null;
  body: string | null;
}

/** Opens an operation's Test Request client; every API answer the page gets is recorded in `sent`. */
async function openClient(id: string): Promise<{ page: Page; sent: Sent[]; send: () => Promise<void> }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const sent: Sent[] = [];
  page.on("response", async (response) => {
    const request = response.request();
    if (!request.url().startsWith(`${origin}/api/v1/`) || request.url().endsWith("/openapi.json")) return;
    sent.push({
      method: request.method(),
      url: request.url(),
      status: response.status(),
      idempotencyKey: await request.headerValue("idempotency-key"),
      body: request.postData(),
    });
  });
  await page.goto(`${base}/docs#storefront/tag/${id}`);
  const section = page.locator(`[id="storefront/tag/${id}"]`);
  await expect.poll(() => section.count(), { timeout: 30_000 }).toBe(1);
  await section.getByRole("button", { name: /Test Request/ }).click();
  const client = page.getByRole("dialog");
  await expect.poll(() => client.innerText(), { timeout: 20_000 }).toContain(origin);
  const send = async () => {
    const before = sent.length;
    await client.getByRole("button", { name: /^Send/ }).first().click();
    await expect.poll(() => sent.length, { timeout: 20_000 }).toBeGreaterThan(before);
  };
  return { page, sent, send };
}

const CATALOG_OPERATIONS = [
  "catalog/GET/api/v1/products",
  "catalog/GET/api/v1/products/facets",
  "catalog/GET/api/v1/products/{handle}",
  "catalog/GET/api/v1/products/{handle}/variants",
  "catalog/GET/api/v1/collections",
  "catalog/GET/api/v1/collections/{handle}",
  "catalog/GET/api/v1/collections/{handle}/facets",
];

describe("the reference's Test Request, first click, in real Chromium", () => {
  for (const id of CATALOG_OPERATIONS) {
    it(`answers 2xx for ${id.slice("catalog/".length)} with the examples it fills in`, async () => {
      const { page, sent, send } = await openClient(id);
      await send();
      const last = sent.at(-1)!;
      expect(last.method).toBe("GET");
      expect(last.status, `${last.url} answered ${last.status}`).toBeGreaterThanOrEqual(200);
      expect(last.status, `${last.url} answered ${last.status}`).toBeLessThan(300);
      await page.close();
    });
  }

  it("sends a fresh Idempotency-Key with every cart write, so a second add is applied, not replayed", async () => {
    const { page, sent, send } = await openClient("cart/POST/api/v1/cart/lines");
    await send();
    await send();
    const posts = sent.filter((s) => s.method === "POST" && s.url === `${origin}/api/v1/cart/lines`);
    expect(posts.map((s) => s.status)).toEqual([200, 200]);
    const [first, second] = posts.map((s) => s.idempotencyKey);
    expect(first).toBeTruthy();
    expect(second).toBeTruthy();
    expect(second).not.toBe(first);
    await page.close();
  });
});
