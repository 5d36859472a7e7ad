import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DEFAULT_SHARD_PRODUCTS, MAX_BROWSE_SHARDS, shardCount, shardRange } from "../../src/browse/shards.ts";
import { POINTER_KEY } from "../../src/catalog/layout.ts";
import { publishCatalog, ShardLimitError } from "../../src/publish/publish.ts";
import { generateCatalog } from "../../src/publish/generate.ts";

/**
 * How a catalog is cut (src/browse/shards.ts): how many shards a size takes, and that the
 * shards' ranges cover every catalog position once, in order, in sizes a product apart at most.
 * What the shards answer is held to the brute-force model by browse-properties.test.ts.
 */
describe("the shard limit (issue 33 point 4)", () => {
  it("refuses, before anything is written, a shard size that cuts more shards than one request can fan out to", async () => {
    // Regression: --shard-products 1 on 600 products made 600 shards.
    const catalog = generateCatalog({ products: 600, seed: 3 });
    const before = await env.CATALOG.get(POINTER_KEY);
    const refused = publishCatalog(env.CATALOG, catalog, { browse: null, shardProducts: 1 });
    await expect(refused).rejects.toBeInstanceOf(ShardLimitError);
    await expect(refused).rejects.toThrow(/600 browse shards, over the limit of 24.*--shard-products 25 or more/s);
    expect(await env.CATALOG.get(POINTER_KEY)).toBe(before);
    expect((await env.CATALOG.list({ prefix: "v/" })).keys).toEqual([]);
    // The limit itself: a later page asks each shard up to twice, plus 3 calls, within 50 subrequests.
    expect(2 * MAX_BROWSE_SHARDS - 1 + 3).toBeLessThanOrEqual(50);
    expect(shardCount(600, 25)).toBe(MAX_BROWSE_SHARDS);
  });
});

describe("shards of a catalog", () => {
  it("are as many as the publish's shard size needs: one up to it, and one without a size", () => {
    expect(shardCount(DEFAULT_SHARD_PRODUCTS, undefined)).toBe(1);
    expect(shardCount(100_000, DEFAULT_SHARD_PRODUCTS)).toBe(1);
    expect(shardCount(100_001, DEFAULT_SHARD_PRODUCTS)).toBe(2);
    expect(shardCount(1_000_000, DEFAULT_SHARD_PRODUCTS)).toBe(10);
    expect(shardCount(150, 40)).toBe(4);
    expect(shardCount(0, 40)).toBe(1);
    expect(shardCount(5_000, 0)).toBe(1);
  });

  it("cover every position once, in order, none more than one product larger than another", () => {
    for (const [size, shards] of [
      [150, 4],
      [60, 7],
      [1_000_000, 10],
      [7, 7],
      [100_001, 2],
    ] as const) {
      const ranges = Array.from({ length: shards }, (_, shard) => shardRange(size, { shard, shards }));
      expect(ranges[0]?.[0]).toBe(0);
      expect(ranges.at(-1)?.[1]).toBe(size);
      for (let i = 1; i < shards; i++) expect(ranges[i]?.[0]).toBe(ranges[i - 1]?.[1]);
      const sizes = ranges.map(([from, to]) => to - from);
      expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
    }
  });
});
