import type { SourceCatalog, SourceProduct } from "../catalog/schema.ts";

/**
 * A catalog's products as a publish reads them: by position. An array is one; so is a list whose
 * products stay on disk until asked for (src/cli/catalog-stream.ts), which is how a million
 * products publish without a million product objects in memory. Each `at` of such a list parses
 * the product anew: read each once per pass, and keep what a pass needs, not the product.
 */
export interface ProductList {
  readonly length: number;
  at(index: number): SourceProduct | undefined;
}

/** A validated catalog whose products are a ProductList. Every SourceCatalog is one. */
export type PublishCatalog = Omit<SourceCatalog, "products"> & { products: ProductList };

/**
 * A catalog already validated (as parseCatalog would) and digested (as catalogDigest would) by
 * whoever read it: publishTo takes it as it is instead of validating its input again.
 */
export class CheckedCatalog {
  readonly catalog: PublishCatalog;
  readonly digest: string;
  constructor(catalog: PublishCatalog, digest: string) {
    this.catalog = catalog;
    this.digest = digest;
  }
}

/** The product at `index` of a list known to hold it. */
export function productAt(products: ProductList, index: number): SourceProduct {
  const product = products.at(index);
  if (product === undefined) throw new RangeError(`no product at ${index} of ${products.length}`);
  return product;
}

/** Products a pass reads between two turns of the event loop (`pause`). */
const PAUSE_EVERY = 1_024;

/**
 * A turn of the event loop every PAUSE_EVERY products of a pass (`await pause(pos)` in its loop):
 * at a million products a pass runs for minutes, and held that long the KV writes beside it
 * stall and the local runtime closes its idle sockets under the next D1 batch ("other side
 * closed"). A turn per 1,024 products costs ~1 ms (0.1% of a pass).
 */
export function pause(pos: number): Promise<void> | undefined {
  return pos % PAUSE_EVERY === PAUSE_EVERY - 1 ? new Promise((resolve) => setTimeout(resolve, 0)) : undefined;
}
