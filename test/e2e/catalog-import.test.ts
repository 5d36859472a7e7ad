import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, STACK_FRAME } from "../helpers/cli.ts";
import { type DevServer, runDevServer } from "../helpers/dev-server.ts";
import { firstFreePort } from "../helpers/ports.ts";

/**
 * `npm run catalog:import -- <file> --publish --local` into a running `npm run dev`, read back
 * over real HTTP. The server is this file's own (own port and state directory), so replacing
 * its catalog does not disturb the suite's shared server, which keeps the seed.
 */

const PORTS = [8850, 8851, 8852, 8853, 8854];
const FIXTURES = "test/publish/fixtures";
type Json = Record<string, unknown>;

let server: DevServer;
let state: string;
let scratch: string;

beforeAll(async () => {
  state = await mkdtemp(join(tmpdir(), "storefront-import-"));
  scratch = await mkdtemp(join(tmpdir(), "storefront-import-files-"));
  server = await runDevServer(state, await firstFreePort("127.0.0.1", PORTS), join(scratch, "dev-server.log"));
}, 200_000);

afterAll(async () => {
  await server?.stop();
  await rm(state, { recursive: true, force: true });
  await rm(scratch, { recursive: true, force: true });
});

async function get(path: string): Promise<{ status: number; version: string | null; body: Json }> {
  const res = await fetch(`${server.baseUrl}/api/v1${path}`);
  return { status: res.status, version: res.headers.get("x-catalog-version"), body: (await res.json()) as Json };
}

/** The live catalog is still `before`: status and body first, so a failure says what the server answered. */
async function expectStillServing(before: Awaited<ReturnType<typeof get>>): Promise<void> {
  const after = await get("/products");
  expect({ status: after.status, body: after.status === 200 ? "ok" : after.body }).toEqual({
    status: 200,
    body: "ok",
  });
  expect(after.version).toBe(before.version);
  expect(after.body).toEqual(before.body);
}

const importInto = (file: string, ...args: string[]) =>
  runCli("catalog-import", [file, "--publish", "--local", "--persist-to", state, ...args], { timeoutMs: 120_000 });

describe("catalog:import --publish --local into a running npm run dev", () => {
  it("publishes a classic Shopify CSV that the server then answers", async () => {
    const run = await importInto(`${FIXTURES}/shopify-classic.csv`, "--store", "Harbor & Pine");
    expect(run.stderr).not.toMatch(STACK_FRAME);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Imported 5 products, 10 variants, 5 images.");
    expect(run.stdout).toContain('lines 17-18: "gift-card" skipped: gift card');
    expect(run.stdout).toMatch(/Published catalog \S+: 5 products/);
    // The export's quantities are kept (section 9.3), and the report says what they do to live
    // stock: all new to tracking in a fresh state, so every level is written.
    expect(run.stdout).toMatch(
      /Live stock: \d+ levels? written \(new to tracking, or changed in the file since the last publish\), 0 kept/,
    );

    const list = await get("/products");
    expect((list.body.data as Json[]).map((p) => p.handle)).toEqual([
      "oxford-shirt",
      "canvas-tote",
      "walnut-frame",
      "enamel-camp-mug",
      "sold-out-cap",
    ]);
    const shirt = await get("/products/oxford-shirt");
    expect(shirt.body).toMatchObject({
      vendor: "Harbor & Pine",
      options: [
        { name: "size", label: "Size" },
        { name: "colour", label: "Colour", values: ["Blue", "White"] },
      ],
    });
    const variants = await get("/products/oxford-shirt/variants?colour=Blue");
    expect((variants.body.data as Json[]).map((v) => [v.title, v.sku, v.available])).toEqual([
      ["S / Blue", "OX-S-BLU", true],
      ["M / Blue", "OX-M-BLU", false],
    ]);
    expect((await get("/products/sold-out-cap")).body).toMatchObject({ error: { code: "sold_out" } });
    expect((await get("/products/draft-beanie")).status).toBe(404);
    // Regression: catalog:import published no browse index, so every browse query answered 503.
    const search = await get("/products?q=oxf&available=true");
    expect(search.status).toBe(200);
    expect(search.version).toBe(list.version);
    expect(search.body).toMatchObject({ count: 1, data: [{ handle: "oxford-shirt" }] });
  }, 150_000);

  it("serves the hostile description sanitised", async () => {
    const { status, body } = await get("/products/enamel-camp-mug?include=description,images");
    expect(status).toBe(200);
    const html = String(body.description_html);
    expect(html).toContain("<p>Enamel mug for the trail.</p>");
    for (const bad of [/<script/i, /onerror/i, /onclick/i, /javascript:/i, /<style/i, /<iframe/i, /style=/i, /data:/i])
      expect(html).not.toMatch(bad);
    expect(body.description_text).toContain("Holds 12 oz & keeps coffee hot.");
    expect(body.images).toEqual([]);
  });

  it("refuses a malformed file with its line and column, exit 2, and leaves the live catalog alone", async () => {
    const before = await get("/products");
    const bad = join(scratch, "broken.csv");
    await writeFile(
      bad,
      "Handle,Title,Option1 Name,Option1 Value,Variant Price\r\nshirt,Shirt,Size,S,12.00\r\nshirt,,,M,twelve\r\n",
    );
    const run = await importInto(bad);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${bad} line 3, column 5 "Variant Price": "twelve" is not a price`);
    expect(run.stderr).toContain("Nothing was imported or published.");
    expect(run.stderr).not.toMatch(STACK_FRAME);
    await expectStillServing(before);
  }, 150_000);

  it("imports a generated Shopify CSV, and a re-import keeps every id", async () => {
    const csv = join(scratch, "generated.csv");
    const generated = await runCli("catalog-generate", ["--products", "40", "--format", "shopify-csv", "--out", csv]);
    expect(generated.code).toBe(0);
    const first = await importInto(csv, "--collections-by-type");
    expect(first.code).toBe(0);
    const listed = await get("/products?limit=250");
    expect(listed.body.count).toBe(40);
    const handle = String((listed.body.data as Json[])[0]?.handle);
    const variantsBefore = await get(`/products/${handle}/variants`);
    const collections = await get("/collections");
    expect((collections.body.data as Json[]).map((c) => c.handle)).toContain("t-shirts");

    const second = await importInto(csv, "--collections-by-type");
    expect(second.code).toBe(0);
    const variantsAfter = await get(`/products/${handle}/variants`);
    expect(variantsAfter.version).not.toBe(variantsBefore.version);
    expect((variantsAfter.body.data as Json[]).map((v) => v.id)).toEqual(
      (variantsBefore.body.data as Json[]).map((v) => v.id),
    );
    expect((await get("/products?limit=250")).body.data).toEqual(listed.body.data);
  }, 200_000);

  // A row with a stray field shifted the columns, dropped a product and exited 0.
  it("refuses a misaligned row with the field counts, exit 2, and publishes nothing", async () => {
    const before = await get("/products");
    const run = await importInto(`${FIXTURES}/shopify-misaligned.csv`);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `${FIXTURES}/shopify-misaligned.csv line 3: this row has 8 fields but the header has 7`,
    );
    expect(run.stderr).toContain("Nothing was imported or published.");
    expect(run.stderr).not.toMatch(STACK_FRAME);
    expect((await get("/products")).version).toBe(before.version);
  }, 150_000);

  it("refuses an unknown --currency as a usage error (exit 2), and serves a JPY import in JPY", async () => {
    const bad = await runCli("catalog-import", [`${FIXTURES}/shopify-jpy.csv`, "--currency", "YEN"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--currency "YEN" is not an ISO 4217 currency code');
    expect(bad.stderr).not.toMatch(STACK_FRAME);
    const run = await importInto(`${FIXTURES}/shopify-jpy.csv`, "--currency", "JPY");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Prices in JPY.");
    expect((await get("/products/matcha-tin")).body).toMatchObject({
      price: { min: { amount: "1500", currency: "JPY" } },
    });
    const usd = await runCli("catalog-import", [`${FIXTURES}/shopify-linked-no-qty.csv`]);
    expect(usd.code).toBe(0);
    expect(usd.stdout).toContain(
      "Read test/publish/fixtures/shopify-linked-no-qty.csv as Shopify product CSV (2024-26 headers",
    );
    expect(usd.stdout).toContain("Prices in USD: the file names no currency and --currency was not given");
    expect(usd.stdout).toContain("2 stock unknown (the file has no quantity column): available");
  }, 150_000);

  // The next npm run dev republished the seed over an imported catalog, silently.
  it("npm run dev started again on the state keeps the imported catalog and says which version it serves", async () => {
    const before = await get("/products");
    await server.stop();
    server = await runDevServer(state, await firstFreePort("127.0.0.1", PORTS), join(scratch, "dev-server-2.log"));
    const printed = await readFile(join(scratch, "dev-server-2.log"), "utf8");
    expect(printed).toContain(`Serving catalog ${before.version} (`);
    expect(printed).toContain("not the seed, kept as it is");
    expect(printed).not.toContain("Published the seed catalog");
    await expectStillServing(before);
  }, 300_000);

  it("answers --help with exit 0 and an unknown option with exit 2, naming it", async () => {
    const help = await runCli("catalog-import", ["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: npm run catalog:import -- <file> [options]");
    expect(help.stdout).toContain("--collections-by-type");
    expect(help.stdout).toContain("--currency XXX");
    const wrong = await runCli("catalog-import", [`${FIXTURES}/products.json`, "--colections-by-type"]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("Unknown option --colections-by-type. Did you mean --collections-by-type?");
    const lonely = await runCli("catalog-import", [`${FIXTURES}/products.json`, "--remote"]);
    expect(lonely.code).toBe(2);
    expect(lonely.stderr).toContain("--remote only means something with --publish.");
    const missing = await runCli("catalog-import", [join(scratch, "nope.csv")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("nope.csv: no such file");
  }, 60_000);
});
