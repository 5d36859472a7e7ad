import { readFile } from "node:fs/promises";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { launchChromium } from "./chromium.ts";
import { type PageServer, startPageServer } from "./page-server.ts";

const TOKEN = "sf_dev_LocalToken_B2";
const AVAILABLE_VARIANT = "44102938475656"; // Everyday Jogger - Black, XS
const SOLD_OUT_VARIANT = "44102938475689"; // Example Pants

type CallResult =
  | {
      ok: true;
      status: number;
      body: { lines?: { variant_id: string }[]; error?: { code?: string; message?: string } };
    }
  | { ok: false; error: string };

declare global {
  function callApi(base: string, token: string, method: string, path: string, body?: unknown): Promise<CallResult>;
  function readCatalog(base: string): Promise<{ ok: boolean; status?: number }>;
}

let browser: Browser;
let allowedSite: PageServer;
let foreignSite: PageServer;
const api = inject("browserApiUrl");

async function open(site: PageServer): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(`${site.origin}/`);
  return page;
}

function call(page: Page, method: string, path: string, body?: unknown): Promise<CallResult> {
  return page.evaluate(([base, token, m, p, b]) => callApi(base, token, m, p, b), [
    api,
    TOKEN,
    method,
    path,
    body,
  ] as const);
}

beforeAll(async () => {
  browser = await launchChromium();
  // 127.0.0.1:* is in the dev server's default ALLOWED_ORIGINS; 127.0.0.2 is not.
  allowedSite = await startPageServer("127.0.0.1", [8816, 8817]);
  foreignSite = await startPageServer("127.0.0.2", [8818, 8819]);
});

afterAll(async () => {
  await browser?.close();
  await allowedSite?.close();
  await foreignSite?.close();
});

describe("a storefront page on another origin, in real Chromium", () => {
  it("adds a variant with a dev token, reads the cart back and sees a sold-out variant refused", async () => {
    const page = await open(allowedSite);
    expect(new URL(api).origin).not.toBe(allowedSite.origin);

    const cleared = await call(page, "DELETE", "/api/v1/cart");
    expect(cleared).toMatchObject({ ok: true, status: 200 });

    const added = await call(page, "POST", "/api/v1/cart/lines", { variant_id: AVAILABLE_VARIANT, quantity: 1 });
    expect(added).toMatchObject({ ok: true, status: 200 });

    const cart = await call(page, "GET", "/api/v1/cart");
    expect(cart.ok && cart.body.lines?.map((l) => l.variant_id)).toEqual([AVAILABLE_VARIANT]);

    const refused = await call(page, "POST", "/api/v1/cart/lines", { variant_id: SOLD_OUT_VARIANT, quantity: 1 });
    expect(refused).toMatchObject({
      ok: true,
      status: 404,
      body: { error: { code: "sold_out", message: "Sold out" } },
    });
    await page.close();
  });

  it("went through real CORS preflights, answered 204 by the worker", async () => {
    const log = await readFile(inject("browserApiLog"), "utf8");
    const preflights = log
      .split("\n")
      .filter((line) => line.includes('"method":"OPTIONS"'))
      .map((line) => JSON.parse(line.slice(line.indexOf("{"))) as { route: string; status: number });
    expect(preflights.map((p) => p.route)).toEqual(expect.arrayContaining([expect.stringMatching(/^\/api\/v1\/cart/)]));
    for (const preflight of preflights) expect(preflight.status).toBe(204);
  });

  it("is refused by the browser when its origin is not in ALLOWED_ORIGINS", async () => {
    const page = await browser.newPage();
    const consoleErrors: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") consoleErrors.push(message.text());
    });
    await page.goto(`${foreignSite.origin}/`);
    const write = await call(page, "POST", "/api/v1/cart/lines", { variant_id: AVAILABLE_VARIANT, quantity: 1 });
    expect(write).toMatchObject({ ok: false });
    const read = await call(page, "GET", "/api/v1/cart");
    expect(read).toMatchObject({ ok: false });
    expect(consoleErrors.some((text) => text.includes("blocked by CORS policy"))).toBe(true);
    // The anonymous catalog stays readable from anywhere: the refusal is the cart's allowlist.
    expect(await page.evaluate((base) => readCatalog(base), api)).toEqual({ ok: true, status: 200 });
    await page.close();

    // The refused write never reached the cart.
    const check = await open(allowedSite);
    const cart = await call(check, "GET", "/api/v1/cart");
    expect(cart.ok && cart.body.lines?.length).toBe(1);
    await check.close();
  });
});
