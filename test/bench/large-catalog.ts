import { generateCatalog } from "../../src/publish/generate.ts";
import type { SourceCatalog } from "../../src/catalog/schema.ts";

/**
 * The generated catalog of `count` products, made by the project's own deterministic generator
 * (the same one `npm run catalog:generate` uses), so every run measures the same catalog.
 */
export function largeCatalog(count: number): SourceCatalog {
  return generateCatalog({ products: count });
}
