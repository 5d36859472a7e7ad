import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, STACK_FRAME } from "../helpers/cli.ts";
import { type DevServer, runDevServer } from "../helpers/dev-server.ts";
import { firstFreePort } from "../helpers/ports.ts";
import { launchChromium } from "./chromium.ts";

/**
 * A catalog whose every text field and URL carries markup or script
 * (test/publish/fixtures/hostile.csv: `<img src=x onerror=__xss(…)>`, `"><svg/onload=…>`,
 * `javascript:` links, entity-encoded tags in descriptions), published through the importer into
 * its own `npm run dev`, then walked in real Chromium through /docs (Scalar's client sends the
 * requests and shows the answers) and /docs/try. Every payload calls `__xss(<field>)`, which the
 * page traps before its own scripts run; dialogs are recorded too, and so is every CSP refusal (an
 * inline handler that reached the DOM would be refused by the CSP, so a refusal counts as a
 * failure, not a defence), every element with an `on…` attribute, and every request for an image
 * the catalog names. The hostile text must appear in the pages as text.
 */

const PORTS = [8860, 8861, 8862];
const FIXTURE = "test/publish/fixtures/hostile.csv";
const TITLE = "Hostile Tee <img src=x onerror=__xss('title')>\"><svg/onload=__xss('title-svg')>";
const MUG = "Mug </button><img src=x onerror=__xss('title-2')>";

let server: DevServer;
let state: string;
let browser: Browser;
let base: string;

/** Everything the trap saw, over every page of this file. */
const ran: string[] = [];
const dialogs: string[] = [];
const cspViolations: string[] = [];
const pageErrors: string[] = [];
const imageRequests: string[] = [];

beforeAll(async () => {
  state = await mkdtemp(join(tmpdir(), "storefront-hostile-"));
  server = await runDevServer(state, await firstFreePort("127.0.0.1", PORTS), join(state, "dev-server.log"));
  base = server.baseUrl;
  const run = await runCli(
    "catalog-import",
    [FIXTURE, "--publish", "--local", "--persist-to", state, "--collections-by-type"],
    { timeoutMs: 120_000 },
  );
  expect(run.stderr).not.toMatch(STACK_FRAME);
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toContain(
    'line 4, column 3: "cut-short-mug": the description loses its text after an unclosed <svg>',
  );
  browser = await launchChromium();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  if (state) await rm(state, { recursive: true, force: true });
});

/** A page whose `__xss`, `alert`, `confirm` and `prompt` are traps, set before any script of its own. */
async function open(path: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.exposeFunction("__xssRan", (tag: string) => ran.push(tag));
  await page.addInitScript({
    content: [
      "window.__xss = (tag) => window.__xssRan(String(tag));",
      "for (const name of ['alert', 'confirm', 'prompt']) window[name] = (m) => window.__xssRan(name + ':' + m);",
      'document.addEventListener("securitypolicyviolation", (e) => console.error("Content Security Policy: " + e.violatedDirective + " " + e.blockedURI));',
    ].join("\n"),
  });
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on("pageerror", (error) => pageErrors.push(error.message));
  page.on("console", (message) => {
    const text = message.text();
    // Scalar's bundled zod probing whether eval works (see docs.test.ts): the one refusal expected.
    if (
      message.type() === "error" &&
      text.startsWith("Content Security Policy") &&
      text !== "Content Security Policy: script-src eval"
    )
      cspViolations.push(text);
  });
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (url.hostname === "cdn.example.com" || url.pathname.endsWith("/x")) imageRequests.push(request.url());
  });
  await page.goto(`${base}${path}`);
  return page;
}

/**
 * Elements anywhere in the page (open shadow roots too) that carry an event-handler attribute, or
 * an inline script or iframe. Runs in the page, as a string, so this Node file needs no DOM types.
 */
const INJECTED = `(() => {
  const found = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll("*")) {
      const handlers = Array.from(el.attributes).filter((a) => a.name.startsWith("on"));
      if (handlers.length > 0) found.push("<" + el.localName + " " + handlers.map((a) => a.name).join(" ") + ">");
      if ((el.localName === "script" && !el.getAttribute("src")) || el.localName === "iframe") found.push("<" + el.localName + ">");
      if (el.shadowRoot) walk(el.shadowRoot);
    }
  };
  walk(document);
  return found;
})()`;

async function injected(page: Page): Promise<string[]> {
  return (await page.evaluate(INJECTED)) as string[];
}

describe("a hostile catalog published through the importer, in real Chromium", () => {
  it("has a trap that would see markup rendered from the catalog (the check can fail)", async () => {
    const page = await open("/docs/try");
    await expect.poll(() => page.locator("#product-list button").count(), { timeout: 20_000 }).toBe(2);
    // What a careless page would do with the title: the trap sees the handler element at once.
    await page.evaluate(
      `document.body.insertAdjacentHTML("beforeend", ${JSON.stringify(`<div id="probe">${TITLE}</div>`)})`,
    );
    expect(await injected(page)).toEqual(["<img onerror>", "<svg onload>"]);
    await expect.poll(() => cspViolations.length).toBeGreaterThan(0);
    cspViolations.length = 0;
    imageRequests.length = 0;
    await page.close();
  });

  it("/docs/try shows every field of every product as text and runs none of it", async () => {
    const page = await open("/docs/try");
    await expect.poll(() => page.locator("#product-list button").count(), { timeout: 20_000 }).toBe(2);
    expect(await page.locator("#product-list .title").allTextContents()).toEqual([TITLE, MUG]);
    await page.locator("#product-list button").first().click();
    await expect.poll(() => page.locator("#product-title").textContent()).toBe(TITLE);
    const panel = page.locator("#product-panel");
    await expect.poll(() => panel.locator("pre.body").first().textContent()).toContain('"description_text"');
    const body = JSON.parse((await panel.locator("pre.body").first().textContent()) ?? "null") as Record<
      string,
      unknown
    >;
    expect(body).toMatchObject({
      title: TITLE,
      vendor: "<script>__xss('vendor')</script>Vendor",
      seo: { title: "</title><script>__xss('seo-title')</script>" },
    });
    expect(body.description_text).toBe(
      "Soft ‹img src=x onerror=__xss('desc-entity')› cotton ‹script›__xss('desc-numeric')‹/script› care guide",
    );
    // The option name and both values, in the picker as text.
    const select = panel.locator("select");
    expect(await select.locator("option").allTextContents()).toEqual([
      "<svg/onload=__xss('option-value')>",
      "M'><img src=x onerror=__xss('option-value-2')>",
    ]);
    expect(await panel.locator("label").first().textContent()).toBe("size<img-src=x-onerror=__xss('option-name')>");
    await select.selectOption({ index: 1 });
    await expect
      .poll(() => page.locator("#chosen-variant").textContent())
      .toContain("M'><img src=x onerror=__xss('option-value-2')> · 26.00 USD");
    await page.getByRole("button", { name: "Add to cart" }).click();
    await expect.poll(() => page.locator("#cart-result .verdict").textContent()).toBe("200 OK");
    expect(await page.locator("#cart-result pre.body").textContent()).toContain(JSON.stringify(TITLE).slice(1, -1));

    await page.locator("#product-list button").nth(1).click();
    await expect.poll(() => page.locator("#product-title").textContent()).toBe(MUG);
    await expect
      .poll(() => panel.locator("pre.body").first().textContent())
      .toContain("Intro ‹script›__xss('fallback')‹/script› text.");
    expect(await injected(page)).toEqual([]);
    await page.close();
  });

  it("/docs: Scalar's client sends the requests and shows the hostile answers as text", async () => {
    const page = await open("/docs#storefront/tag/catalog/GET/api/v1/products/{handle}");
    const section = page.locator('[id="storefront/tag/catalog/GET/api/v1/products/{handle}"]');
    await expect.poll(() => section.count(), { timeout: 30_000 }).toBe(1);
    await section.getByRole("button", { name: /Test Request/ }).click();
    const client = page.getByRole("dialog");
    const handle = client.locator("tr#handle [contenteditable=true]").nth(1);
    await expect.poll(() => handle.textContent()).toBe("essential-crew-tee-black");
    await handle.click();
    await page.keyboard.press("Control+A");
    await page.keyboard.type("hostile-tee");
    await client.locator('input[aria-label="Include include in request"]').check();
    await client.locator("tr#include [contenteditable=true]").nth(1).click();
    // The parameter's example (description,images,seo) is filled in already: replace it.
    await page.keyboard.press("Control+A");
    await page.keyboard.type("description,images,seo,variants");
    await client.getByRole("button", { name: /^Send/ }).first().click();
    await expect.poll(() => client.innerText(), { timeout: 20_000 }).toMatch(/200 OK/);
    await expect.poll(() => client.innerText()).toContain("Hostile Tee <img src=x onerror=__xss('title')>");
    const shown = await client.innerText();
    for (const text of [
      "<script>__xss('vendor')</script>Vendor",
      "<iframe src=javascript:__xss('type')></iframe>Shirts",
      "<b onmouseover=__xss('tag')>bold</b>",
      "<svg/onload=__xss('option-value')>",
      "__xss('sku')>",
      "https://cdn.example.com/a.jpg%22%3E%3Csvg/onload=__xss(%27image-url%27)%3E",
      "</title><script>__xss('seo-title')</script>",
      "<img src=x onerror=__xss('seo-description')>",
      "Soft ‹img src=x onerror=__xss('desc-entity')›",
    ]) {
      expect(shown, text).toContain(text);
    }
    await page.screenshot({ path: "test-results/docs-hostile-client.png" });
    expect(await injected(page)).toEqual([]);
    await page.close();
  });

  it("/docs: the reference's own examples are the seed's, not the live catalog's", async () => {
    const page = await open("/docs#storefront/tag/catalog/GET/api/v1/products");
    const section = page.locator('[id="storefront/tag/catalog/GET/api/v1/products"]');
    await expect.poll(() => section.count(), { timeout: 30_000 }).toBe(1);
    await expect.poll(() => section.innerText()).toContain("essential-crew-tee-black");
    expect(await section.innerText()).not.toContain("__xss");
    expect(await injected(page)).toEqual([]);
    await page.close();
  });

  it("ran no payload, opened no dialog, broke no CSP rule, threw nothing and fetched no catalog image", () => {
    expect(ran).toEqual([]);
    expect(dialogs).toEqual([]);
    expect(cspViolations).toEqual([]);
    expect(pageErrors).toEqual([]);
    expect(imageRequests).toEqual([]);
  });
});
