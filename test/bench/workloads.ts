import { optionApiName, type SourceCatalog, type SourceProduct } from "../../src/catalog/schema.ts";
import { BARE_HONO_PATH, BARE_WORKER_PATH, CEILING_PREFIX } from "./entry.ts";
import type { BenchRequest, Workload } from "./load.ts";
import { BROWSE_READS, CART_CEILING_FIELDS, type CartCeilingField } from "./report.ts";

const API = "/api/v1";

/** At most this many distinct URLs per catalog workload, spread over the whole catalog. */
const DISTINCT_URLS = 20;

/**
 * Hot-cart adds rotate over this many variants: a large but realistic cart (every write answers
 * the whole cart, so 200 lines would measure rendering, not writing), with room for 20 x 999
 * adds before any line reaches the 999-unit cap.
 */
const HOT_CART_VARIANTS = 20;

/** `count` items spread evenly from first to last, so a big catalog is sampled end to end. */
function spread<T>(items: readonly T[], count: number): T[] {
  if (items.length <= count) return [...items];
  return Array.from({ length: count }, (_, i) => items[Math.floor((i * (items.length - 1)) / (count - 1))]!);
}

function get(path: string, headers?: Record<string, string>): BenchRequest {
  return { method: "GET", path, ...(headers ? { headers } : {}) };
}

function variantQuery(product: SourceProduct): string {
  const params = new URLSearchParams();
  for (const option of product.options)
    params.set(optionApiName(option.name), option.values[Math.floor(option.values.length / 2)]!);
  if (product.options.length === 0) params.set("title", "Default Title");
  return params.toString();
}

/** The anonymous read workloads, derived from the catalog that was published. */
export function catalogWorkloads(catalog: SourceCatalog): Workload[] {
  const products = catalog.products;
  const available = products.filter((p) => p.available);
  const sized = available.filter((p) => p.options.length > 0);
  const deepCursor = products[Math.max(0, products.length - 51)]!.handle;
  const collections = catalog.collections.filter((c) => c.products.length > 0);
  const details = spread(available, DISTINCT_URLS).map((p) => get(`${API}/products/${p.handle}`));
  return [
    { name: "list first page", requests: [get(`${API}/products`)], ok: [200] },
    { name: "list deep page", requests: [get(`${API}/products?starting_after=${deepCursor}`)], ok: [200] },
    { name: "product detail", requests: details, ok: [200] },
    {
      name: "variants + selectors",
      requests: spread(sized.length > 0 ? sized : available, DISTINCT_URLS).map((p) =>
        get(`${API}/products/${p.handle}/variants?${variantQuery(p)}`),
      ),
      ok: [200],
    },
    {
      name: "collection page",
      requests: spread(collections, DISTINCT_URLS).map((c) => get(`${API}/collections/${c.handle}`)),
      ok: [200],
    },
    // Filled with the ETags the detail URLs answer, just before it runs (see withEtags).
    { name: "304 revalidation", requests: details, ok: [304] },
    ...browseWorkloads(catalog),
  ];
}

/** The most frequent of `values` (first seen wins a tie), so a filter built from it matches plenty. */
function mostFrequent(values: Iterable<string>): string | undefined {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best: string | undefined;
  for (const [v, n] of counts) if (best === undefined || n > (counts.get(best) ?? 0)) best = v;
  return best;
}

/**
 * A category page's reads, built from what the catalog holds so every filter matches: its most
 * common vendor, tag and available option value, a search for the start of a common title word,
 * the facets of that filter set, and a collection filtered and sorted.
 */
/** A browse page after a cursor: measured beside the four BROWSE_READS, not one of their targets. */
export const BROWSE_CURSOR = "browse: page after a cursor";

export function browseWorkloads(catalog: SourceCatalog): Workload[] {
  const products = catalog.products;
  if (products.length === 0) return [];
  const vendor = mostFrequent(products.map((p) => p.vendor)) ?? "";
  const tag = mostFrequent(products.flatMap((p) => p.tags)) ?? "";
  const option = mostFrequent(
    products.flatMap((p) =>
      p.variants
        .filter((v) => v.available)
        .flatMap((v) => Object.entries(v.options).map(([name, value]) => `${optionApiName(name)}\u0000${value}`)),
    ),
  );
  const [optionName = "", optionValue = ""] = (option ?? "").split("\u0000");
  const word =
    mostFrequent(
      products.flatMap((p) =>
        p.title
          .toLowerCase()
          .split(/[^a-z]+/)
          .filter((w) => w.length >= 4),
      ),
    ) ?? "a";
  const filters = new URLSearchParams({ vendor, tag });
  if (option) filters.set(`option.${optionName}`, optionValue);
  const sorted = new URLSearchParams(filters);
  sorted.set("sort", "price_asc");
  const collection = catalog.collections.find((c) => c.products.length > 0)?.handle ?? "frontpage";
  const after = products.slice(Math.floor(products.length * 0.6)).find((p) => p.variants.some((v) => v.available));
  const cursorPage = new URLSearchParams({ available: "true", sort: "price_asc", limit: "24" });
  if (after) cursorPage.set("starting_after", after.handle);
  return [
    { name: BROWSE_READS[0], requests: [get(`${API}/products?${sorted}`)], ok: [200] },
    { name: BROWSE_READS[1], requests: [get(`${API}/products?q=${encodeURIComponent(word.slice(0, 4))}`)], ok: [200] },
    { name: BROWSE_READS[2], requests: [get(`${API}/products/facets?${filters}`)], ok: [200] },
    {
      name: BROWSE_READS[3],
      requests: [get(`${API}/collections/${collection}?available=true&sort=price_desc`)],
      ok: [200],
    },
    // A later page: the cursor's product sits past the middle of the catalog (in a sharded
    // version, one shard holds it and the others are asked again after its position).
    {
      name: BROWSE_CURSOR,
      requests: [get(`${API}/products?${cursorPage}`)],
      ok: [200],
    },
  ];
}

/**
 * Turns the revalidation workload's plain GETs into conditional ones carrying the ETag each URL
 * answers now. Returns undefined (with the reason) when a URL gives no ETag.
 */
export async function withEtags(workload: Workload, origin: URL): Promise<Workload | string> {
  const requests: BenchRequest[] = [];
  for (const r of workload.requests) {
    const res = await fetch(new URL(r.path, origin));
    await res.arrayBuffer();
    const etag = res.headers.get("etag");
    if (res.status !== 200 || !etag)
      return `GET ${r.path} answered ${res.status} ${etag ? "" : "without an ETag"}`.trim();
    requests.push(get(r.path, { "if-none-match": etag }));
  }
  return { ...workload, requests };
}

function addToCart(token: string, variantId: string): BenchRequest {
  return {
    method: "POST",
    path: `${API}/cart/lines`,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ variant_id: variantId, quantity: 1 }),
  };
}

/**
 * Cart writes. Each token is its own holder, so its own Durable Object. "new carts" sends exactly
 * one add per token (every request creates a cart: a new object and its SQLite schema); "distinct
 * carts" then cycles over the same tokens (adds to many existing carts, the steady state); the
 * hot workload sends every add to one token (one object, writes serialised).
 */
export function cartWorkloads(catalog: SourceCatalog, tokens: readonly string[], hotToken: string): Workload[] {
  const variants = catalog.products
    .filter((p) => p.available)
    .flatMap((p) => p.variants.filter((v) => v.available).map((v) => v.id));
  const hot = spread(variants, HOT_CART_VARIANTS);
  const distinct = tokens.map((t, i) => addToCart(t, variants[(i * 7) % variants.length]!));
  return [
    { name: "add to cart, new carts", requests: distinct, ok: [200], amount: distinct.length },
    { name: "add to cart, distinct carts", requests: distinct, ok: [200] },
    { name: "add to cart, one hot cart", requests: hot.map((v) => addToCart(hotToken, v)), ok: [200] },
  ];
}

/** The runtime's ceiling: the cheapest route of the same worker. */
export const ceilingWorkload: Workload = { name: "ceiling: GET /health", requests: [get(`${API}/health`)], ok: [200] };

/** The bare ceilings: the runtime alone, and the runtime with a one-route Hono app. */
export const bareWorkloads = {
  bareWorker: { name: "bare Worker: fixed JSON", requests: [get(BARE_WORKER_PATH)], ok: [200] },
  bareHono: { name: "bare Hono: one route", requests: [get(BARE_HONO_PATH)], ok: [200] },
} as const satisfies Record<string, Workload>;

function ceilingWrite(name: string): BenchRequest {
  return {
    method: "POST",
    path: `${CEILING_PREFIX}${name}`,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ variant_id: "44102938475602", quantity: 1 }),
  };
}

/**
 * The cart ceiling's workloads (entry.ts), shaped like the cart workloads they bound: `count`
 * objects (as many as the distinct-carts workload has carts) each written once, so every request
 * meets a new object; then the same objects cycled over (existing objects); and one object taking
 * every write (hot). `round` names a set of objects: another new-object run needs new names.
 */
export function cartCeilingWorkloads(count: number, round = "a"): Record<CartCeilingField, Workload> {
  const objects = Array.from({ length: count }, (_, i) => ceilingWrite(`${round}-${i}`));
  const name = (field: CartCeilingField) => CART_CEILING_FIELDS.find((c) => c.field === field)!.ceiling;
  return {
    cartCeilingNewObjects: {
      name: name("cartCeilingNewObjects"),
      requests: objects,
      ok: [200],
      amount: objects.length,
    },
    cartCeiling: { name: name("cartCeiling"), requests: objects, ok: [200] },
    cartCeilingHot: { name: name("cartCeilingHot"), requests: [ceilingWrite("hot")], ok: [200] },
  };
}
