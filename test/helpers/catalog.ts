import { env } from "cloudflare:workers";
import seed from "../../seed/catalog.json";
import { publishCatalog } from "../../src/publish/publish.ts";
import { d1Target } from "../../src/publish/browse-index.ts";

/** The shipped seed catalog, as the source JSON (a fresh copy each call, safe to mutate). */
export function seedCatalog(): typeof seed {
  return structuredClone(seed);
}

/**
 * Publishes `seed/catalog.json` into the test KV (`env.CATALOG`) and its browse index into
 * `env.BROWSE`, and returns the live version.
 * Safe to run twice: when the seed is already live nothing is written and its version returns.
 */
export async function publishSeedCatalog(): Promise<string> {
  const result = await publishCatalog(env.CATALOG, seed, {
    skipIfLive: true,
    browse: d1Target(env.BROWSE, env.BROWSE_SNAPSHOTS),
  });
  return result.version;
}

/** The seed with every price raised by `cents`, so each publish has its own prices. */
export function shiftedSeed(cents: number): ReturnType<typeof seedCatalog> {
  const catalog = seedCatalog();
  for (const product of catalog.products) {
    for (const variant of product.variants)
      variant.price = ((Math.round(Number(variant.price) * 100) + cents) / 100).toFixed(2);
  }
  return catalog;
}
