import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { parseCatalog, type SourceCatalog } from "../../src/catalog/schema.ts";
import { buildEntries, catalogDigest, planVersion } from "../../src/publish/build.ts";
import { generateCatalog } from "../../src/publish/generate.ts";
import { publishCatalog } from "../../src/publish/publish.ts";
import { sha256Hex } from "../../src/sha256.ts";
import { seedCatalog } from "../helpers/catalog.ts";

/**
 * Regression guard for the memory work on publish: building and writing a version
 * piece by piece instead of from whole-catalog lists must write exactly the entries it wrote
 * before. The snapshot holds every key with its value's length and SHA-256, recorded before that
 * change; a change to the layout on purpose updates it with `npx vitest run --project workerd
 * test/publish/entries-golden.test.ts -u` (and says so in its commit).
 */

/** 1,200 generated products, plus a collection of all of them backwards: several overlapping list and collection chunks. */
function largerCatalog(): SourceCatalog {
  const catalog = generateCatalog({ products: 1200, seed: 11 });
  catalog.collections.push({
    handle: "everything-backwards",
    title: "Everything",
    products: catalog.products.map((p) => p.handle).reverse(),
  });
  return catalog;
}

async function fingerprints(input: unknown): Promise<string[]> {
  const catalog = parseCatalog(input);
  const meta = planVersion(catalog, "golden", await catalogDigest(catalog), new Date("2026-01-01T00:00:00Z"));
  const lines: string[] = [];
  for await (const entry of buildEntries(catalog, meta))
    lines.push(`${entry.key} ${entry.value.length} ${await sha256Hex(entry.value, 12)}`);
  return lines;
}

describe("the KV entries of a version", () => {
  it("are the same as before for the seed catalog", async () => {
    expect(await fingerprints(seedCatalog())).toMatchSnapshot();
  });

  it("are the same as before for a catalog with several chunks per list and collection", async () => {
    expect(await fingerprints(largerCatalog())).toMatchSnapshot();
  });

  it("are written to KV exactly as built, and the catalog given is left as it was", async () => {
    const input = largerCatalog();
    const before = structuredClone(input);
    const catalog = parseCatalog(structuredClone(input));
    const { version } = await publishCatalog(env.CATALOG, input, { browse: null, version: "written" });
    expect(input).toEqual(before);
    // published_at differs from a fresh plan: compare against the meta the publish stored.
    const meta = JSON.parse((await env.CATALOG.get(`v/${version}/meta`)) ?? "null");
    expect(meta).toMatchObject({ version, products: 1200 });
    let count = 0;
    for await (const entry of buildEntries(catalog, meta)) {
      expect(await env.CATALOG.get(entry.key), entry.key).toBe(entry.value);
      count++;
    }
    expect(count).toBeGreaterThan(100);
  });
});
