import { createHash } from "node:crypto";

/**
 * Ids for products and variants of a file that has none (a Shopify CSV). A cart line holds a
 * variant id, so a re-import of the same store must give every product and variant the id it had:
 * each id is a hash of what names the record in the store (the product handle; the handle and
 * option values for a variant), never of its row number or position.
 *
 * Derived ids are 16 digits (10^15 to 9*10^15, below 2^53, so no JSON reader rounds them):
 * longer than Shopify's own ids today (13-14 digits), so they never meet an id kept from
 * products.json. A collision between two derived ids (about 1 in 10^5 for a 400,000-variant
 * store) is resolved by hashing again with a counter, in the sorted order of the keys, so the
 * outcome depends on the set of keys and not on the order of the rows.
 */

const LOW = 1_000_000_000_000_000n;
const SPAN = 8_000_000_000_000_000n;

/** The id of `key` at a given attempt (0 first); exported for the collision tests. */
export function hashId(key: string, attempt: number): string {
  const digest = createHash("sha256")
    .update(attempt === 0 ? key : `${key}\u0000#${attempt}`)
    .digest();
  return String(LOW + (digest.readBigUInt64BE(0) % SPAN));
}

/** The key of a product: its handle as the store spells it. */
export function productKey(handle: string): string {
  return `product\u0000${handle}`;
}

/** The key of a variant: its product's handle and its option values in option order. */
export function variantKey(handle: string, values: readonly string[]): string {
  return `variant\u0000${handle}\u0000${values.length === 0 ? "Default Title" : values.join("\u0000")}`;
}

/**
 * A distinct id for every key, none of them in `taken` (ids the file carries itself).
 * Keys must be distinct; the result maps each key to its id.
 */
export function deriveIds(
  keys: Iterable<string>,
  taken: ReadonlySet<string> = new Set(),
): { ids: Map<string, string>; collisions: number } {
  const sorted = [...keys].sort();
  const used = new Set(taken);
  const ids = new Map<string, string>();
  let collisions = 0;
  for (const key of sorted) {
    let attempt = 0;
    let id = hashId(key, attempt);
    while (used.has(id)) {
      collisions += 1;
      id = hashId(key, ++attempt);
    }
    used.add(id);
    ids.set(key, id);
  }
  return { ids, collisions };
}
