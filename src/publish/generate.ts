import type { SourceCatalog, SourceCollection, SourceProduct } from "../catalog/schema.ts";

/**
 * Synthetic catalogs of any size for scale tests and benchmarks. Deterministic: the same
 * options give byte-identical output, so a benchmark or a failing test can be rerun exactly.
 * The output is valid under SourceCatalogSchema (the tests check that).
 */

export interface GenerateOptions {
  products: number;
  seed?: number;
}

/** mulberry32: tiny, fast, and the same sequence on every runtime. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const STORE = "Northwind Threads";
const SIZES = ["XS", "S", "M", "L", "XL", "2XL", "3XL", "4XL"];
const COLORS = ["Black", "White", "Navy", "Olive", "Sand", "Charcoal", "Forest", "Rust", "Oat", "Heather Grey"];
const ADJECTIVES = ["essential", "heavyweight", "washed", "classic", "relaxed", "slim", "vintage", "everyday", "coastal", "alpine", "urban", "field"];
const SIZED_TYPES: [type: string, noun: string, base: number][] = [
  ["T-Shirts", "tee", 2400],
  ["Hoodies", "hoodie", 5900],
  ["Sweatshirts", "crewneck", 5200],
  ["Jackets", "jacket", 12900],
  ["Pants", "chino", 7800],
  ["Shirts", "shirt", 6900],
  ["Shorts", "short", 4200],
];
const SINGLE_TYPES: [type: string, noun: string, base: number][] = [
  ["Hats", "beanie", 2600],
  ["Bags", "tote", 3600],
  ["Socks", "sock-pack", 1800],
  ["Accessories", "card-holder", 4500],
];
const VENDORS = [STORE, STORE, STORE, "Saltmarsh Supply", "Ridgeline Goods", "Ashford Leatherworks"];

function pick<T>(rand: () => number, items: readonly T[]): T {
  return items[Math.floor(rand() * items.length)] as T;
}

/** A source price: whole dollars, one decimal or two, as real catalogs mix them. */
function sourcePrice(minor: number, rand: () => number): string {
  const style = rand();
  if (style < 0.2) return String(Math.round(minor / 100));
  if (style < 0.4) return (Math.round(minor / 10) / 10).toFixed(1);
  return `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, "0")}`;
}

function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");
}

/** A catalog of `products` products (about 1 in 5 single-variant, 1 in 20 sold out) and collections. */
export function generateCatalog(options: GenerateOptions): SourceCatalog {
  const rand = random(options.seed ?? 20261121);
  const products: SourceProduct[] = [];
  let variantId = 50_000_000_000_000;
  for (let i = 0; i < options.products; i++) {
    const single = rand() < 0.2;
    const [type, noun, base] = pick(rand, single ? SINGLE_TYPES : SIZED_TYPES);
    const adjective = pick(rand, ADJECTIVES);
    const color = pick(rand, COLORS);
    const available = rand() >= 0.05;
    const price = base + Math.floor(rand() * 40) * 50;
    const title = `${adjective[0]?.toUpperCase()}${adjective.slice(1)} ${noun.replace(/-/g, " ")} ${i + 1} - ${color}`;
    const common = {
      id: `gid://shopify/Product/${9_000_000_000_000 + i}`,
      handle: slug(`${adjective} ${noun} ${color} ${i + 1}`),
      title,
      vendor: pick(rand, VENDORS),
      product_type: type,
      tags: [slug(type), adjective],
      available,
    };
    if (single) {
      products.push({ ...common, options: [], variants: [{ id: String(variantId++), options: {}, price: sourcePrice(price, rand), available }] });
      continue;
    }
    const first = Math.floor(rand() * 3);
    const sizes = SIZES.slice(first, first + 3 + Math.floor(rand() * (SIZES.length - first - 2)));
    products.push({
      ...common,
      options: [
        { name: "size", values: sizes },
        { name: "color", values: [color] },
      ],
      variants: sizes.map((size, s) => ({
        id: String(variantId++),
        options: { size, color },
        price: sourcePrice(price + (s >= 5 ? 200 : 0), rand),
        // Every available product keeps its first size in stock.
        available: available && (s === 0 || rand() >= 0.1),
      })),
    });
  }
  const byType = new Map<string, string[]>();
  for (const p of products) {
    const list = byType.get(p.product_type) ?? [];
    list.push(p.handle);
    byType.set(p.product_type, list);
  }
  const collections: SourceCollection[] = [
    { handle: "frontpage", title: "Home page", products: products.slice(0, 24).map((p) => p.handle) },
    ...[...byType].map(([type, handles]) => ({ handle: slug(type), title: type, products: handles })),
  ];
  return { currency: "USD", store: { name: STORE }, products, collections };
}
