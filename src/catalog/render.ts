import { DEFAULT_CURRENCY, fromMinor as money } from "../money.ts";
import { variantGid } from "./ids.ts";
import type { CollectionProduct, Product, ProductListItem, Variant } from "./api.ts";
import { type ProductRecord, variantOptions, variantTitle } from "./layout.ts";

/**
 * The one renderer of the wire format: stored records to response objects, and the list and
 * collection envelopes. Publishing uses it to precompute list lines, the pages and the browse
 * engine to build answers, so a field is rendered one way everywhere.
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

/** What a collection's product adds to its list item: what `GET url` answers (404 when sold out), and the url. */
export function collectionMember(
  handle: string,
  available: boolean,
): Pick<CollectionProduct, "endpoint_status" | "url"> {
  return { endpoint_status: available ? 200 : 404, url: `/api/v1/products/${handle}` };
}

export function renderCollectionProduct(record: ProductRecord): CollectionProduct {
  return { ...renderListItem(record), ...collectionMember(record.handle, record.available) };
}

/** The list envelope, with the item JSON lines (stored or built) spliced in as they are. */
export function listBody(count: number, lines: readonly string[], hasMore: boolean, strict?: number): string {
  const strictCount = strict === undefined ? "" : `,"strict_count":${strict}`;
  return `{"object":"list","count":${count}${strictCount},"data":[${lines.join(",")}],"has_more":${hasMore}}`;
}

/** A collection with one page of its products (`productsList`: a listBody). */
export function collectionBody(handle: string, title: string, count: number, productsList: string): string {
  return `{"object":"collection","handle":${JSON.stringify(handle)},"title":${JSON.stringify(title)},"products_count":${count},"products":${productsList}}`;
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

/**
 * The variants endpoint's objects. `showQuantity` (the catalog's `stock_display: quantity`) adds
 * `quantity_available`: units left to take for a tracked variant (live, through the stock
 * overlay), null for an untracked one.
 */
export function renderVariants(record: ProductRecord, showQuantity = false): Variant[] {
  const names = record.options.map((o) => o.name);
  const fromMinor = priced(record);
  return record.variants.map(([id, values, price, available, sku, compareAt, image, quantity, , shipped]) => ({
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
    requires_shipping: shipped !== false,
    ...(showQuantity ? { quantity_available: quantity == null ? null : Math.max(0, quantity) } : {}),
  }));
}
