import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { catalogJsonChunks } from "../../src/cli/catalog-file.ts";
import { generateCatalog } from "../../src/publish/generate.ts";
import { type Bundle, buildBundle, buildWriterBundle } from "../bench/bundle.ts";
import { type CliPublish, cliStatePath, publishWithCli } from "../bench/publish-cli.ts";
import { BENCH_OPERATOR_SECRET, startRuntime } from "../bench/runtime.ts";
import { servesPublished } from "../bench/scenario.ts";

// `npm run bench -- --catalog-file F` (test/bench/run.ts): F published by catalog:publish in a
// child process into a persist dir, then served by the bench's runtime from that dir's state.
// The CLI's --persist-to DIR is a state root (it opens DIR/v3), the bench runtime's persistPath
// is Miniflare's state itself: served from the wrong one, the runtime holds no catalog.

const catalog = generateCatalog({ products: 260, seed: 1 });
let work: string;
let bundle: Bundle;
let published: CliPublish;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "storefront-bench-file-"));
  const file = join(work, "catalog.json");
  await writeFile(file, [...catalogJsonChunks(catalog)].join(""));
  [bundle, published] = await Promise.all([
    buildBundle(join(work, "bundle")),
    publishWithCli(file, join(work, "state"), { shardProducts: 100, say: () => {} }),
  ]);
}, 180_000);

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe("the bench's --catalog-file: catalog:publish in a child process, served by the bench runtime", () => {
  it("reports what the CLI published and what its process peaked at", () => {
    expect(published.version).toMatch(/^\d{8}T\d{6}Z-/);
    expect(published.figures).toMatchObject({ products: 260, publisher: "catalog:publish" });
    expect(published.figures.entries).toBeGreaterThan(0);
    // VmHWM of a Node process that loaded Miniflare and wrangler: tens of MiB at least.
    expect(published.figures.peakRssMiB).toBeGreaterThan(20);
  });

  it("serves, from the CLI's --persist-to DIR as DIR/v3, every product of the file in order, browse in 3 shards included", async () => {
    const runtime = await startRuntime({
      bundle,
      port: 0,
      cacheAPI: false,
      persistPath: cliStatePath(join(work, "state")),
    });
    try {
      await servesPublished(runtime, catalog, published.version);
      const handles: string[] = [];
      let after = "";
      for (;;) {
        const res = await fetch(new URL(`/api/v1/products?limit=100${after}`, runtime.url));
        expect(res.status).toBe(200);
        const page = (await res.json()) as { data: { handle: string }[]; has_more: boolean };
        handles.push(...page.data.map((p) => p.handle));
        if (!page.has_more) break;
        after = `&starting_after=${page.data.at(-1)?.handle}`;
      }
      expect(handles).toEqual(catalog.products.map((p) => p.handle));
      // A browse answer (search, filter, sort) is merged from the 3 shards catalog:publish cut.
      const vendor = catalog.products[200]!.vendor;
      const res = await fetch(
        new URL(`/api/v1/products?vendor=${encodeURIComponent(vendor)}&sort=price_asc&limit=250`, runtime.url),
      );
      expect(res.status).toBe(200);
      const browsed = ((await res.json()) as { data: { handle: string }[] }).data.map((p) => p.handle);
      expect(new Set(browsed)).toEqual(
        new Set(catalog.products.filter((p) => p.vendor === vendor).map((p) => p.handle)),
      );
    } finally {
      await runtime.dispose();
    }
  });

  // batch-file.ts --via api: the catalog writer Worker beside the storefront, on the same state.
  it("applies a change batch through POST /operator/catalog/changes when the runtime runs the catalog writer", async () => {
    const runtime = await startRuntime({
      bundle,
      port: 0,
      cacheAPI: false,
      persistPath: cliStatePath(join(work, "state")),
      writer: await buildWriterBundle(join(work, "writer-bundle")),
    });
    try {
      const product = structuredClone(catalog.products[42]!);
      for (const variant of product.variants) variant.price = "7.77";
      const res = await fetch(new URL("/api/v1/operator/catalog/changes", runtime.url), {
        method: "POST",
        headers: { Authorization: `Bearer ${BENCH_OPERATOR_SECRET}`, "Content-Type": "application/json" },
        body: JSON.stringify({ upsert: [product] }),
      });
      expect(res.status).toBe(200);
      const { version } = (await res.json()) as { version: string };
      const detail = await fetch(new URL(`/api/v1/products/${product.handle}?include=variants`, runtime.url));
      expect(detail.headers.get("x-catalog-version")).toBe(version);
      const body = (await detail.json()) as { variants: { price: { amount: string } }[] };
      expect(body.variants[0]!.price.amount).toBe("7.77");
    } finally {
      await runtime.dispose();
    }
  }, 120_000);

  it("finds no catalog when served from DIR itself, and the bench's check says so", async () => {
    const runtime = await startRuntime({ bundle, port: 0, cacheAPI: false, persistPath: join(work, "state") });
    try {
      await expect(servesPublished(runtime, catalog, published.version)).rejects.toThrow(
        `the runtime's state serves no catalog, not the 260 products catalog:publish published as ${published.version}`,
      );
    } finally {
      await runtime.dispose();
    }
  });
});
