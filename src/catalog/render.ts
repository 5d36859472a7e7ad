import { DEFAULT_CURRENCY, fromMinor as money } from "../money.ts";
import { variantGid } from "./ids.ts";
import type { CollectionProduct, Product, ProductListItem, Variant } from "./api.ts";
import { type ProductRecord, variantOptions, variantTitle } from "./layout.ts";

/**
 * Stored records to response objects. Publishing uses these to precompute list lines and the
 * routes use them for details, so a field is rendered one way everywhere.
 */

/** Minor units as Money in the record's catalog currency. */
function priced(record: ProductRecord): (minor: number) => ReturnType<typeof money> {
  const currency = record.currency ?? DEFAULT_CURRENCY;
  return (minor) => money(minor, currency);
}

function priceRange(record: ProductRecord): { min: number; max: number } {
  let min = Number.POSITIVE_INFINITY;
  let max = 0;
  for (const [, , price] of record.variants) {
    if (price < min) min = price;
    if (price > max) max = price;
  }
  return { min, max };
}

export function renderListItem(record: ProductRecord): ProductListItem {
  return {
    id: record.id,
    handle: record.handle,
    title: record.title,
    price: priced(record)(priceRange(record).min),
    available: record.available,
  };
}

export function renderCollectionProduct(record: ProductRecord): CollectionProduct {
  return {
    ...renderListItem(record),
    endpoint_status: record.available ? 200 : 404,
    url: `/api/v1/products/${record.handle}`,
  };
}

export function renderProduct(record: ProductRecord): Product {
  const range = priceRange(record);
  const fromMinor = priced(record);
  return {
    object: "product",
    id: record.id,
    handle: record.handle,
    title: record.title,
    vendor: record.vendor,
    product_type: record.product_type,
    tags: record.tags,
    available: record.available,
    price: { min: fromMinor(range.min), max: fromMinor(range.max) },
    variants_count: record.variants.length,
    options: record.options as Product["options"],
  };
}

export function renderVariants(record: ProductRecord): Variant[] {
  const names = record.options.map((o) => o.name);
  const fromMinor = priced(record);
  return record.variants.map(([id, values, price, available, sku, compareAt, image]) => ({
    object: "variant",
    id,
    gid: variantGid(id),
    product_handle: record.handle,
    title: variantTitle(values),
    options: variantOptions(names, values),
    price: fromMinor(price),
    available: record.available && available,
    sku: sku ?? null,
    compare_at_price: compareAt == null ? null : fromMinor(compareAt),
    image: image ?? null,
  }));
}
