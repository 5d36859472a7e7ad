import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DEFAULT_POINTER_TTL_MS, pointerTtlMs } from "../../src/catalog/store.ts";
import { publishCatalog } from "../../src/publish/publish.ts";
import { seedCatalog } from "../helpers/catalog.ts";
import { fetchAs } from "../helpers/worker.ts";

/** The version a catalog read answered from, through the worker with CATALOG_POINTER_TTL_MS set. */
async function versionSeen(ttl: string): Promise<string | null> {
  const res = await fetchAs("development", "/api/v1/products?limit=1", {}, { CATALOG_POINTER_TTL_MS: ttl });
  await res.arrayBuffer();
  return res.headers.get("x-catalog-version");
}

async function publishNew(): Promise<string> {
  const catalog = seedCatalog();
  catalog.store.name = `Northwind ${crypto.randomUUID()}`;
  return (await publishCatalog(env.CATALOG, catalog, { browse: null })).version;
}

describe("freshness: CATALOG_POINTER_TTL_MS", () => {
  it("with a TTL, keeps answering from the pointer it read until the TTL passes, then shows the publish", async () => {
    const first = await publishNew();
    const readAt = Date.now();
    expect(await versionSeen("2000")).toBe(first);
    const second = await publishNew();
    expect(Date.now() - readAt).toBeLessThan(2000);
    expect(await versionSeen("2000")).toBe(first);
    await new Promise((resolve) => setTimeout(resolve, 2100 - (Date.now() - readAt)));
    expect(await versionSeen("2000")).toBe(second);
  });

  it("with 0 (npm run dev and the tests), shows a publish on the very next request", async () => {
    await publishNew();
    expect(await versionSeen("60000")).not.toBeNull();
    const next = await publishNew();
    expect(await versionSeen("0")).toBe(next);
  });

  it("reads the setting strictly: 0 to 60,000 ms, anything else the 1,000 ms default", () => {
    expect(DEFAULT_POINTER_TTL_MS).toBe(1000);
    expect([undefined, "", " ", "-1", "1.5", "60001", "soon"].map(pointerTtlMs)).toEqual(Array(7).fill(1000));
    expect(["0", "250", "60000"].map(pointerTtlMs)).toEqual([0, 250, 60_000]);
  });
});
