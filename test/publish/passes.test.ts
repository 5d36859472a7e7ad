import { describe, expect, it } from "vitest";
import { parseCatalog } from "../../src/catalog/schema.ts";
import { browseIndexSql } from "../../src/publish/browse-index.ts";
import { buildEntries, planVersion } from "../../src/publish/build.ts";
import type { VersionMeta } from "../../src/catalog/layout.ts";
import type { ProductList, PublishCatalog } from "../../src/publish/catalog-input.ts";
import { generateCatalog } from "../../src/publish/generate.ts";

/**
 * A publish's passes over its products give the event loop a turn every 1,024 products
 * (catalog-input.ts `pause`): at a million products a pass runs for minutes, and without a turn
 * the KV writes beside it stall and the local runtime's idle sockets close under it. Measured as
 * the most products read between two turns of a timer that fires whenever the loop gets one.
 */
const PRODUCTS = 5_000;

async function mostReadBetweenTurns(
  run: (catalog: PublishCatalog, meta: VersionMeta) => Promise<void>,
): Promise<number> {
  const catalog = parseCatalog(generateCatalog({ products: PRODUCTS, seed: 3 }));
  const meta = planVersion(catalog, "v1", "d", new Date(0));
  let read = 0;
  let most = 0;
  const products: ProductList = {
    length: catalog.products.length,
    at(index) {
      read++;
      return catalog.products[index];
    },
  };
  const turns = setInterval(() => {
    most = Math.max(most, read);
    read = 0;
  }, 0);
  try {
    await run({ ...catalog, products }, meta);
  } finally {
    clearInterval(turns);
  }
  return Math.max(most, read);
}

describe("a publish's passes over the products", () => {
  it("building the browse index reads at most 2 x 1,024 products between two turns of the event loop", async () => {
    const most = await mostReadBetweenTurns(async (catalog) => {
      let statements = 0;
      for await (const _ of browseIndexSql(catalog, "v1")) statements++;
      expect(statements).toBeGreaterThan(10);
    });
    // A pass's last products and the next pass's first; a whole pass at once (as before) is 5,000.
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(2 * 1_024);
  }, 60_000);

  it("building the KV entries, written as I/O writes them (a turn each), reads at most 2 x 1,024 products between turns", async () => {
    const most = await mostReadBetweenTurns(async (catalog, meta) => {
      for await (const _ of buildEntries(catalog, meta)) await new Promise((resolve) => setTimeout(resolve, 0));
    });
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(2 * 1_024);
  }, 60_000);
});
