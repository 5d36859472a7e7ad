import { optionApiName, type SourceProduct } from "../../src/catalog/schema.ts";
import { type PublishCatalog, type ProductList, productAt } from "../../src/publish/catalog-input.ts";
import {
  BARE_HONO_PATH,
  BARE_LIMITED_PATH,
  BARE_WORKER_PATH,
  CEILING_PREFIX,
  CHECKOUT_FLOOR_PREFIX,
  STRIPE_HOST,
} from "./entry.ts";
import type { BenchRequest, Workload } from "./load.ts";
import {
  BROWSE_READS,
  CART_CEILING_FIELDS,
  type CartCeilingField,
  CHECKOUT_FLOOR_ROW,
  CHECKOUT_ROWS,
  ISSUE_CART,
  ISSUE_CART_FLOOR,
  SHOPPER_CART_ROWS,
  STOCK_ROWS,
} from "./report.ts";

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

/**
 * What the workloads need from a catalog's products, read in one pass by position: a catalog
 * given as objects and the same catalog read from its file (a ProductList that parses each
 * product anew, src/cli/catalog-stream.ts) give the same scan, and a million products are never
 * held as objects. Kept per product list, so the scenarios of one catalog scan it once.
 */
interface CatalogScan {
  /** Positions of the available products, and of those among them with options. */
  available: number[];
  sized: number[];
  /** Occurrences of each vendor, tag, available variant option (`api name\0value`) and title word of 4+ letters, in first-seen order. */
  vendors: Map<string, number>;
  tags: Map<string, number>;
  options: Map<string, number>;
  words: Map<string, number>;
  /** The first product at or past 60% of the catalog with an available variant. */
  after: number | undefined;
}

const scans = new WeakMap<ProductList, CatalogScan>();

function count(counts: Map<string, number>, value: string): void {
  counts.set(value, (counts.get(value) ?? 0) + 1);
}

function scan(products: ProductList): CatalogScan {
  const known = scans.get(products);
  if (known) return known;
  const out: CatalogScan = {
    available: [],
    sized: [],
    vendors: new Map(),
    tags: new Map(),
    options: new Map(),
    words: new Map(),
    after: undefined,
  };
  const later = Math.floor(products.length * 0.6);
  for (let i = 0; i < products.length; i++) {
    const p = productAt(products, i);
    if (p.available) {
      out.available.push(i);
      if (p.options.length > 0) out.sized.push(i);
    }
    count(out.vendors, p.vendor);
    for (const tag of p.tags) count(out.tags, tag);
    let anyAvailable = false;
    for (const v of p.variants) {
      if (!v.available) continue;
      anyAvailable = true;
      for (const [name, value] of Object.entries(v.options)) count(out.options, `${optionApiName(name)}\u0000${value}`);
    }
    for (const w of p.title.toLowerCase().split(/[^a-z]+/)) if (w.length >= 4) count(out.words, w);
    if (out.after === undefined && i >= later && anyAvailable) out.after = i;
  }
  scans.set(products, out);
  return out;
}

/** The anonymous read workloads, derived from the catalog that was published. */
export function catalogWorkloads(catalog: PublishCatalog): Workload[] {
  const products = catalog.products;
  const { available, sized } = scan(products);
  const deepCursor = productAt(products, Math.max(0, products.length - 51)).handle;
  const collections = catalog.collections.filter((c) => c.products.length > 0);
  const details = spread(available, DISTINCT_URLS).map((i) => get(`${API}/products/${productAt(products, i).handle}`));
  return [
    { name: "list first page", requests: [get(`${API}/products`)], ok: [200] },
    { name: "list deep page", requests: [get(`${API}/products?starting_after=${deepCursor}`)], ok: [200] },
    { name: "product detail", requests: details, ok: [200] },
    {
      name: "variants + selectors",
      requests: spread(sized.length > 0 ? sized : available, DISTINCT_URLS).map((i) => {
        const p = productAt(products, i);
        return get(`${API}/products/${p.handle}/variants?${variantQuery(p)}`);
      }),
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

/** The most frequent of the counted values (first seen wins a tie), so a filter built from it matches plenty. */
function mostFrequent(counts: Map<string, number>): string | undefined {
  let best: string | undefined;
  for (const [v, n] of counts) if (best === undefined || n > (counts.get(best) ?? 0)) best = v;
  return best;
}

/** A browse page after a cursor: measured beside the four BROWSE_READS, not one of their targets. */
export const BROWSE_CURSOR = "browse: page after a cursor";

/**
 * A category page's reads, built from what the catalog holds so every filter matches: its most
 * common vendor, tag and available option value, a search for the start of a common title word,
 * the facets of that filter set, and a collection filtered and sorted.
 */
export function browseWorkloads(catalog: PublishCatalog): Workload[] {
  const products = catalog.products;
  if (products.length === 0) return [];
  const scanned = scan(products);
  const vendor = mostFrequent(scanned.vendors) ?? "";
  const tag = mostFrequent(scanned.tags) ?? "";
  const option = mostFrequent(scanned.options);
  const [optionName = "", optionValue = ""] = (option ?? "").split("\u0000");
  const word = mostFrequent(scanned.words) ?? "a";
  const filters = new URLSearchParams({ vendor, tag });
  if (option) filters.set(`option.${optionName}`, optionValue);
  const sorted = new URLSearchParams(filters);
  sorted.set("sort", "price_asc");
  const collection = catalog.collections.find((c) => c.products.length > 0)?.handle ?? "frontpage";
  const cursorPage = new URLSearchParams({ available: "true", sort: "price_asc", limit: "24" });
  if (scanned.after !== undefined) cursorPage.set("starting_after", productAt(products, scanned.after).handle);
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
/**
 * The variants the cart rows add: available and untracked only. A tracked one's live level (1-40
 * units in a generated catalog, 3 in the seed) would refuse the repeated adds with 409
 * insufficient_stock, and these rows measure the cart write (the tracked add has its own row).
 */
function untrackedVariants(catalog: PublishCatalog): string[] {
  const variants: string[] = [];
  for (let i = 0; i < catalog.products.length; i++) {
    const p = productAt(catalog.products, i);
    if (p.available)
      for (const v of p.variants) if (v.available && v.inventory_quantity === undefined) variants.push(v.id);
  }
  return variants;
}

export function cartWorkloads(catalog: PublishCatalog, tokens: readonly string[], hotToken: string): Workload[] {
  const variants = untrackedVariants(catalog);
  const hot = spread(variants, HOT_CART_VARIANTS);
  const distinct = tokens.map((t, i) => addToCart(t, variants[(i * 7) % variants.length]!));
  return [
    { name: "add to cart, new carts", requests: distinct, ok: [200], amount: distinct.length },
    { name: "add to cart, distinct carts", requests: distinct, ok: [200], objectPerRequest: true },
    { name: "add to cart, one hot cart", requests: hot.map((v) => addToCart(hotToken, v)), ok: [200] },
  ];
}

/**
 * The same adds with shopper tokens (`sf_cart_…`, signed, checked without a KV read): one add per
 * token (new carts), then cycling over them (distinct existing carts), as the live-token rows do.
 */
export function shopperCartWorkloads(catalog: PublishCatalog, tokens: readonly string[]): Workload[] {
  const variants = untrackedVariants(catalog);
  const adds = tokens.map((t, i) => addToCart(t, variants[(i * 7) % variants.length]!));
  const [newCarts, distinct] = SHOPPER_CART_ROWS;
  return [
    { name: newCarts.workload, requests: adds, ok: [200], amount: adds.length },
    { name: distinct.workload, requests: adds, ok: [200], objectPerRequest: true },
  ];
}

/** A tracked variant whose availability follows its Stock object alone (`deny`: sold out at 0). */
function trackedDeny(v: { inventory_quantity?: number; inventory_policy?: string }): boolean {
  return v.inventory_quantity !== undefined && v.inventory_policy !== "continue";
}

/**
 * The variant live stock's rows flip between sold out and in stock: the first tracked `deny`
 * variant of an available product with another available variant, so the product answers 200
 * either way and only that variant's `available` (and the answer's ETag) follows the change.
 * Its product is on the first list page when the catalog has one there (the first 50 products).
 */
export function stockFlipTarget(catalog: PublishCatalog): { handle: string; variantId: string } | undefined {
  for (let i = 0; i < catalog.products.length; i++) {
    const p = productAt(catalog.products, i);
    if (!p.available) continue;
    // Available in the catalog: a variant the catalog says is sold out stays so whatever its level.
    const flip = p.variants.find((v) => v.available && trackedDeny(v));
    if (flip && p.variants.some((v) => v !== flip && v.available && !trackedDeny(v)))
      return { handle: p.handle, variantId: flip.id };
  }
  return undefined;
}

/** A product page's read with its variants, where a variant's live availability shows. */
export function stockProductPage(handle: string): string {
  return `${API}/products/${handle}?include=variants`;
}

/**
 * Live stock's read rows (STOCK_ROWS): the hot catalog reads (the flipped product's page with its
 * variants, the product details, the first list page, collection pages) and the four browse reads, each
 * mixed into one workload, run while the operator changes `flip`'s level every second.
 */
export function stockReadWorkloads(catalog: PublishCatalog, flip: { handle: string }): Workload[] {
  const reads = catalogWorkloads(catalog);
  const of = (name: string) => reads.find((w) => w.name === name)?.requests ?? [];
  return [
    {
      name: STOCK_ROWS.hotReads,
      requests: [
        get(stockProductPage(flip.handle)),
        ...of("product detail"),
        ...of("list first page"),
        ...of("collection page"),
      ],
      ok: [200],
    },
    { name: STOCK_ROWS.browseReads, requests: BROWSE_READS.flatMap((name) => of(name)), ok: [200] },
  ];
}

/**
 * The tracked add (STOCK_ROWS.trackedAdd): the same adds as "add to cart, distinct carts", of one
 * tracked `deny` variant, so each also reads its Stock object (the bench sets that variant's level
 * far above what the run can add first). Undefined when the catalog tracks no variant.
 */
export function trackedAddWorkload(catalog: PublishCatalog, tokens: readonly string[]): Workload | undefined {
  for (let i = 0; i < catalog.products.length; i++) {
    const p = productAt(catalog.products, i);
    const v = p.available ? p.variants.find((x) => x.available && trackedDeny(x)) : undefined;
    if (v)
      return {
        name: STOCK_ROWS.trackedAdd,
        requests: tokens.map((t) => addToCart(t, v.id)),
        ok: [200],
        objectPerRequest: true,
      };
  }
  return undefined;
}

/** The variant a tracked-add workload adds (its first request's body). */
export function addedVariant(workload: Workload): string {
  return (JSON.parse(workload.requests[0]?.body ?? "{}") as { variant_id: string }).variant_id;
}

/** Gives a tracked add's variant far more units than any run adds, so every add (and its checkout's hold) succeeds. */
export async function stockTrackedAdd(origin: URL, operatorSecret: string, tracked: Workload): Promise<void> {
  await setStock(origin, operatorSecret, [{ variant_id: addedVariant(tracked), set: 1_000_000 }]);
}

/** Sets variants' stock levels through the operator surface (POST /operator/stock); throws unless it answers 200. */
export async function setStock(
  origin: URL,
  operatorSecret: string,
  changes: { variant_id: string; set: number }[],
): Promise<void> {
  const res = await fetch(new URL(`${API}/operator/stock`, origin), {
    method: "POST",
    headers: { authorization: `Bearer ${operatorSecret}`, "content-type": "application/json" },
    body: JSON.stringify({ changes }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`POST ${API}/operator/stock answered ${res.status}: ${text}`);
}

/** POST /carts: a new shopper token and an empty cart, no body (what a browser sends). */
export const issueCartWorkload: Workload = {
  name: ISSUE_CART,
  requests: [{ method: "POST", path: `${API}/carts`, headers: {} }],
  ok: [201],
};

/** POST /carts' floor (entry.ts): the bare Worker's answer after the one limiter call issuing makes. */
export const issueCartFloorWorkload: Workload = {
  name: ISSUE_CART_FLOOR,
  requests: [{ method: "POST", path: BARE_LIMITED_PATH, headers: {} }],
  ok: [200],
};

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
    cartCeiling: { name: name("cartCeiling"), requests: objects, ok: [200], objectPerRequest: true },
    cartCeilingHot: { name: name("cartCeilingHot"), requests: [ceilingWrite("hot")], ok: [200] },
  };
}

/** The checkout workloads' names (contract 9.4), measured after the cart workloads. */
export const CHECKOUT_WORKLOADS = {
  create: CHECKOUT_ROWS.create.workload,
  stripe: CHECKOUT_ROWS.stripe.workload,
  complete: CHECKOUT_ROWS.complete.workload,
} as const;

function checkoutOf(token: string): BenchRequest {
  return {
    method: "POST",
    path: `${API}/checkouts`,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: "{}",
  };
}

/** Where Stripe sends the shopper back: a Stripe checkout needs one (contract 10.6), https outside development. */
export const STRIPE_RETURN_URL = "https://shop.example/thanks";

/**
 * The same creates by a Worker with PAYMENT_PROVIDER=stripe (entry.ts STRIPE_HOST), each making
 * a Checkout Session at the runtime's Stripe stand-in and answering its url; each cart's previous
 * checkout is canceled, so its session is expired at the stand-in too (the object's alarm, at once).
 */
export function checkoutStripeWorkload(tokens: readonly string[]): Workload {
  const requests = tokens.map(
    (token): BenchRequest => ({
      ...checkoutOf(token),
      headers: { ...checkoutOf(token).headers, host: STRIPE_HOST },
      body: JSON.stringify({ return_url: STRIPE_RETURN_URL }),
    }),
  );
  return { name: CHECKOUT_WORKLOADS.stripe, requests, ok: [201], amount: requests.length };
}

/**
 * One checkout per token (each cart holds the lines the cart workloads added): every request
 * re-prices a cart, cancels the holder's previous checkout and holds its units.
 */
export function checkoutCreateWorkload(tokens: readonly string[]): Workload {
  const requests = tokens.map(checkoutOf);
  return { name: CHECKOUT_WORKLOADS.create, requests, ok: [201], amount: requests.length };
}

/**
 * The checkout floor's creates (entry.ts), one per cart ceiling object of `round` (made with the
 * carts, and as idle since), as the create row makes one checkout per cart.
 */
export function checkoutFloorWorkload(count: number, round = "a"): Workload {
  const requests = Array.from(
    { length: count },
    (_, i): BenchRequest => ({
      method: "POST",
      path: `${CHECKOUT_FLOOR_PREFIX}${round}-${i}`,
      headers: { "content-type": "application/json" },
      body: "{}",
    }),
  );
  return { name: CHECKOUT_FLOOR_ROW, requests, ok: [201], amount: requests.length };
}

/** An open checkout the complete workload pays: its id and its total (what the payment moves). */
export interface OpenCheckout {
  id: string;
  total: { amount: string; currency: string };
}

/** Completes each checkout once through the operator surface, paying its total: one order written to D1 per request. */
export function checkoutCompleteWorkload(checkouts: readonly OpenCheckout[], operatorSecret: string): Workload {
  const requests = checkouts.map(
    ({ id, total }): BenchRequest => ({
      method: "POST",
      path: `${API}/operator/checkouts/${id}/complete`,
      headers: { authorization: `Bearer ${operatorSecret}`, "content-type": "application/json" },
      body: JSON.stringify({ payment_reference: `bench_${id.slice(-8)}`, ...total }),
    }),
  );
  return { name: CHECKOUT_WORKLOADS.complete, requests, ok: [200], amount: requests.length };
}

/** Opens one checkout per token (unmeasured), `width` at a time, for the complete workload. */
export async function openCheckouts(origin: URL, tokens: readonly string[], width = 16): Promise<OpenCheckout[]> {
  const ids: OpenCheckout[] = [];
  for (let at = 0; at < tokens.length; at += width) {
    const answers = await Promise.all(
      tokens.slice(at, at + width).map(async (token) => {
        const r = checkoutOf(token);
        const res = await fetch(new URL(r.path, origin), {
          method: "POST",
          headers: r.headers ?? {},
          body: r.body ?? null,
        });
        const body = (await res.json()) as { id?: string; cost?: { total: OpenCheckout["total"] } };
        return res.status === 201 && body.id && body.cost ? { id: body.id, total: body.cost.total } : undefined;
      }),
    );
    for (const id of answers) if (id) ids.push(id);
  }
  return ids;
}
