import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { keys, type Pointer, POINTER_KEY, shardOf } from "../../src/catalog/layout.ts";
import { publishCatalog } from "../../src/publish/publish.ts";
import app from "../../src/index.ts";
import { publishSeedCatalog, seedCatalog } from "../helpers/catalog.ts";

import { API as BASE } from "../helpers/worker.ts";
const OK = "public, max-age=60, stale-while-revalidate=300";

/** One request through the worker, waiting for its waitUntil work (the Cache API put). */
async function fetchSettled(path: string, headers: Record<string, string> = {}) {
  const ctx = createExecutionContext();
  const res = await app.fetch(new Request(`${BASE}${path}`, { headers }), env, ctx);
  const text = await res.text();
  await waitOnExecutionContext(ctx);
  return { res, text };
}

let version = "";
beforeAll(async () => {
  version = await publishSeedCatalog();
});
afterEach(() => {
  vi.restoreAllMocks();
});

describe("catalog caching headers", () => {
  it("marks 200s public for 60 s with 300 s stale-while-revalidate, a strong ETag and the version", async () => {
    const { res } = await fetchSettled("/products/essential-crew-tee-black");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe(OK);
    expect(res.headers.get("etag")).toMatch(/^"[0-9a-f]{32}"$/);
    expect(res.headers.get("x-catalog-version")).toBe(version);
  });

  it.each([
    "/products/example-hat",
    "/products/no-such-product",
    "/products/no-such-product/variants",
    "/collections/no-such-collection",
  ])("marks the 404 of %s public for 30 s, with the version", async (path) => {
    const { res } = await fetchSettled(path);
    expect(res.status).toBe(404);
    expect(res.headers.get("cache-control")).toBe("public, max-age=30");
    expect(res.headers.get("x-catalog-version")).toBe(version);
  });

  it("carries the version on a 400 too", async () => {
    const { res } = await fetchSettled("/products?limit=0");
    expect(res.status).toBe(400);
    expect(res.headers.get("x-catalog-version")).toBe(version);
  });
});

describe("conditional requests", () => {
  it.each([
    "/products/essential-crew-tee-white",
    "/products?limit=3",
    "/products/essential-crew-tee-white/variants",
    "/collections/frontpage",
    "/collections",
  ])("answers If-None-Match on %s with 304, the ETag and Cache-Control, and no body", async (path) => {
    const first = await fetchSettled(path);
    const etag = first.res.headers.get("etag") ?? "";
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
      const again = await fetchSettled(path, { "If-None-Match": ifNoneMatch });
      expect(again.res.status).toBe(304);
      expect(again.text).toBe("");
      expect(again.res.headers.get("etag")).toBe(etag);
      expect(again.res.headers.get("cache-control")).toBe(OK);
      expect(again.res.headers.get("x-catalog-version")).toBe(version);
    }
  });

  it("answers a stale If-None-Match with the full 200", async () => {
    const { res, text } = await fetchSettled("/products/canvas-market-tote", {
      "If-None-Match": '"0123456789abcdef0123456789abcdef"',
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(text)).toMatchObject({ handle: "canvas-market-tote" });
  });

  it("derives the ETag from the body alone", async () => {
    const { res, text } = await fetchSettled("/products/waffle-knit-beanie");
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
    const hex = [...new Uint8Array(digest, 0, 16)].map((b) => b.toString(16).padStart(2, "0")).join("");
    expect(res.headers.get("etag")).toBe(`"${hex}"`);
  });
});

describe("the Workers Cache API", () => {
  it("serves a repeated read from the edge cache, not from KV, and logs the hit", async () => {
    const handle = "field-chore-jacket-olive";
    const first = await fetchSettled(`/products/${handle}`);
    expect(first.res.status).toBe(200);
    // Rewrite the product's shard under the same version: only a cached copy can still show the old title.
    const pointer = (await env.CATALOG.get<Pointer>(POINTER_KEY, "json")) as Pointer;
    const key = keys.productShard(version, shardOf(handle, pointer.current.product_shards));
    const original = (await env.CATALOG.get(key, "text")) ?? "";
    const changed = JSON.parse(original) as Record<string, { title: string }>;
    const record = changed[handle];
    if (record) record.title = "Changed Behind The Cache";
    await env.CATALOG.put(key, JSON.stringify(changed));
    const log = vi.spyOn(console, "log");
    try {
      const second = await fetchSettled(`/products/${handle}`);
      expect(second.text).toBe(first.text);
      const line = JSON.parse(String(log.mock.calls.at(-1)?.[0])) as Record<string, unknown>;
      expect(line).toMatchObject({ route: "/api/v1/products/:handle", status: 200, cache: "hit" });
    } finally {
      await env.CATALOG.put(key, original);
    }
  });

  it("keys entries by the canonical query, so ?limit=50 and no limit share one", async () => {
    const a = await fetchSettled("/products");
    const b = await fetchSettled("/products?limit=50");
    expect(b.text).toBe(a.text);
    expect(b.res.headers.get("etag")).toBe(a.res.headers.get("etag"));
  });
});

describe("a new publish", () => {
  it("is visible at once, and an unchanged product keeps its ETag", async () => {
    const before = {
      tee: await fetchSettled("/products/essential-crew-tee-black"),
      card: await fetchSettled("/products/gift-card-50"),
      list: await fetchSettled("/products?limit=250"),
    };
    const next = seedCatalog();
    const card = next.products.find((p) => p.handle === "gift-card-50");
    if (card?.variants[0]) card.variants[0].price = "55.00";
    const published = await publishCatalog(env.CATALOG, next, { browse: null });

    const tee = await fetchSettled("/products/essential-crew-tee-black");
    expect(tee.res.headers.get("x-catalog-version")).toBe(published.version);
    expect(tee.res.headers.get("etag")).toBe(before.tee.res.headers.get("etag"));
    expect(
      (
        await fetchSettled("/products/essential-crew-tee-black", {
          "If-None-Match": before.tee.res.headers.get("etag") ?? "",
        })
      ).res.status,
    ).toBe(304);

    const cardAfter = await fetchSettled("/products/gift-card-50");
    expect(JSON.parse(cardAfter.text)).toMatchObject({ price: { min: { amount: "55.00" } } });
    expect(cardAfter.res.headers.get("etag")).not.toBe(before.card.res.headers.get("etag"));

    const list = await fetchSettled("/products?limit=250");
    const item = (JSON.parse(list.text) as { data: { handle: string; price: { amount: string } }[] }).data.find(
      (p) => p.handle === "gift-card-50",
    );
    expect(item?.price.amount).toBe("55.00");
    expect(list.res.headers.get("etag")).not.toBe(before.list.res.headers.get("etag"));
  });
});
