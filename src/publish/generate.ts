import type { SourceCatalog, SourceCollection, SourceImage, SourceProduct, SourceVariant } from "../catalog/schema.ts";
import { fnv1a } from "../catalog/layout.ts";

/**
 * Synthetic catalogs of any size for scale tests and benchmarks. Deterministic: the same
 * options give byte-identical output, so a benchmark or a failing test can be rerun exactly.
 * The output is valid under SourceCatalogSchema (the tests check that).
 *
 * The content is shaped like a real store's so that browse, content and import are measured on
 * what they will meet: types, vendors and tags drawn from skewed (Zipf-like) distributions, HTML
 * descriptions of varying length (some with none), 0-5 images, SKUs, compare-at prices on about
 * one product in six, created_at dates over seven years, and option names beyond size and colour
 * (Frame style, Material, Metal, Ring size, Scent, Finish...), spelled as a store spells them.
 */

export interface GenerateOptions {
  products: number;
  seed?: number;
}

/** mulberry32: tiny, fast, and the same sequence on every runtime (the generator, the soak's plans). */
export function seededRandom(seed: number): () => number {
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
const ADJECTIVES = [
  "essential",
  "heavyweight",
  "washed",
  "classic",
  "relaxed",
  "slim",
  "vintage",
  "everyday",
  "coastal",
  "alpine",
  "urban",
  "field",
];

/** A product family: its type, the noun in titles, a base price in cents, and how its variants differ. */
interface Family {
  type: string;
  noun: string;
  base: number;
  /** Relative frequency; the list is ordered from most to least common. */
  weight: number;
  /** `sized`: Size x one Color (the seed's shape). `single`: Default Title. `options`: these names and values. */
  kind: "sized" | "single" | "options";
  options?: [name: string, values: string[]][];
  code: string;
}

const FAMILIES: Family[] = [
  { type: "T-Shirts", noun: "tee", base: 2400, weight: 24, kind: "sized", code: "TEE" },
  { type: "Hoodies", noun: "hoodie", base: 5900, weight: 11, kind: "sized", code: "HOOD" },
  { type: "Shirts", noun: "shirt", base: 6900, weight: 9, kind: "sized", code: "SHRT" },
  { type: "Pants", noun: "chino", base: 7800, weight: 8, kind: "sized", code: "PANT" },
  { type: "Sweatshirts", noun: "crewneck", base: 5200, weight: 7, kind: "sized", code: "SWT" },
  { type: "Hats", noun: "beanie", base: 2600, weight: 6, kind: "single", code: "HAT" },
  { type: "Jackets", noun: "jacket", base: 12900, weight: 5, kind: "sized", code: "JKT" },
  { type: "Bags", noun: "tote", base: 3600, weight: 4, kind: "single", code: "BAG" },
  { type: "Shorts", noun: "short", base: 4200, weight: 4, kind: "sized", code: "SHRT" },
  { type: "Socks", noun: "sock-pack", base: 1800, weight: 3, kind: "single", code: "SOCK" },
  {
    type: "Picture Frames",
    noun: "frame",
    base: 2900,
    weight: 3,
    kind: "options",
    code: "FRM",
    options: [
      ["Frame style", ["Round", "Square", "Oval", "Gallery"]],
      ["Size", ["5x7", "8x10", "11x14", "16x20"]],
    ],
  },
  { type: "Accessories", noun: "card-holder", base: 4500, weight: 3, kind: "single", code: "ACC" },
  {
    type: "Mugs",
    noun: "mug",
    base: 1800,
    weight: 2,
    kind: "options",
    code: "MUG",
    options: [["Colour", ["Speckled White", "Slate", "Moss", "Clay"]]],
  },
  {
    type: "Rugs",
    noun: "rug",
    base: 14900,
    weight: 2,
    kind: "options",
    code: "RUG",
    options: [
      ["Size", ["2x3", "3x5", "5x8", "8x10"]],
      ["Material", ["Wool", "Jute", "Cotton"]],
    ],
  },
  {
    type: "Candles",
    noun: "candle",
    base: 2400,
    weight: 2,
    kind: "options",
    code: "CND",
    options: [["Scent", ["Cedar", "Fig", "Sea Salt", "Amber", "Vetiver"]]],
  },
  {
    type: "Jewelry",
    noun: "ring",
    base: 8900,
    weight: 1,
    kind: "options",
    code: "RNG",
    options: [
      ["Metal", ["Sterling Silver", "Gold Vermeil", "14k Gold"]],
      ["Ring size", ["5", "6", "7", "8", "9"]],
    ],
  },
  {
    type: "Furniture",
    noun: "stool",
    base: 24900,
    weight: 1,
    kind: "options",
    code: "FRN",
    options: [
      ["Material", ["Oak", "Walnut", "Ash"]],
      ["Finish", ["Matte", "Oiled"]],
      ["Height", ["Counter", "Bar"]],
    ],
  },
];
const FAMILY_WEIGHT = FAMILIES.reduce((sum, f) => sum + f.weight, 0);

/** The store's own label most of the time, then a long tail of brands it stocks. */
const VENDORS: [string, number][] = [
  [STORE, 50],
  ["Saltmarsh Supply", 14],
  ["Ridgeline Goods", 10],
  ["Ashford Leatherworks", 7],
  ["Framewright", 5],
  ["Harbor & Pine", 4],
  ["Kiln Street Ceramics", 3],
  ["Loom & Lantern", 3],
  ["Juniper Home", 2],
  ["Old Mill Co.", 2],
];
const VENDOR_WEIGHT = VENDORS.reduce((sum, [, w]) => sum + w, 0);

/** Tags in order of popularity: a Zipf draw picks the first ones far more often. */
const TAGS = [
  "new",
  "bestseller",
  "organic-cotton",
  "sale",
  "gift",
  "summer",
  "winter",
  "unisex",
  "recycled",
  "limited",
  "made-in-usa",
  "staff-pick",
  "eco",
  "classic",
  "layering",
  "outdoor",
  "travel",
  "minimal",
  "handmade",
  "vegan",
  "workwear",
  "lounge",
  "heritage",
  "small-batch",
  "fair-trade",
];

const SENTENCES = [
  "Cut for an easy fit that works on its own or layered.",
  "Made from materials we would wear ourselves, finished by hand.",
  "Built to soften with every wash and last for years.",
  "Designed in our studio and made in small runs.",
  "A quiet staple that goes with everything in the cupboard.",
  "Pre-washed, so what you order is the size you keep.",
  "Every piece is checked before it leaves the workshop.",
  "Our most requested piece, back in a new season's colours.",
];
const FEATURES = [
  "Double-needle stitching",
  "Reinforced seams",
  "Garment-dyed",
  "Responsibly sourced",
  "Ribbed cuffs",
  "Hidden pocket",
  "Tagless label",
  "Machine washable",
  "Lead-free glaze",
  "Kiln-fired",
  "FSC-certified wood",
  "Hand-poured",
];

function pick<T>(rand: () => number, items: readonly T[]): T {
  return items[Math.floor(rand() * items.length)] as T;
}

function weighted<T>(rand: () => number, items: readonly T[], weightOf: (item: T) => number, total: number): T {
  let r = rand() * total;
  for (const item of items) {
    r -= weightOf(item);
    if (r < 0) return item;
  }
  return items[items.length - 1] as T;
}

/** Index 0..n-1 with P(k) proportional to 1/(k+1). */
function zipf(rand: () => number, n: number): number {
  return Math.min(n - 1, Math.floor(Math.exp(rand() * Math.log(n + 1)) - 1));
}

/** A source price: whole dollars, one decimal or two, as real catalogs mix them. */
function sourcePrice(minor: number, rand: () => number): string {
  const style = rand();
  if (style < 0.2 && minor % 100 === 0) return String(minor / 100);
  if (style < 0.4 && minor % 10 === 0) return (minor / 100).toFixed(1);
  return `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, "0")}`;
}

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
}

function description(rand: () => number, title: string): string | undefined {
  const style = rand();
  if (style < 0.08) return undefined;
  const a = Math.floor(rand() * SENTENCES.length);
  const b = (a + 1 + Math.floor(rand() * (SENTENCES.length - 1))) % SENTENCES.length;
  const first = `<p>The <strong>${title}</strong>. ${SENTENCES[a]} ${SENTENCES[b]}</p>`;
  if (style < 0.3) return first;
  const features = Array.from({ length: 2 + Math.floor(rand() * 3) }, () => `<li>${pick(rand, FEATURES)}</li>`);
  const care =
    rand() < 0.5
      ? `\n<h3>Care</h3>\n<p>Wash cold, <em>hang to dry</em>. See our <a ` +
        `href="https://northwind.example/care">care guide</a>.</p>`
      : "";
  return `${first}\n<ul>\n${features.join("\n")}\n</ul>${care}`;
}

function imagesOf(rand: () => number, handle: string, title: string): SourceImage[] {
  const count = rand() < 0.1 ? 0 : 1 + zipf(rand, 5);
  const known = rand() < 0.8;
  return Array.from({ length: count }, (_, k) => ({
    url: `https://cdn.northwind.example/products/${handle}-${k + 1}.jpg`,
    alt: rand() < 0.7 ? `${title}, view ${k + 1}` : null,
    width: known ? 2048 : null,
    height: known ? (k === 0 ? 2560 : 2048) : null,
  }));
}

/** An ISO 8601 timestamp between 2019-01-01 and 2026-01-01, to the second. */
function createdAt(rand: () => number): string {
  const start = Date.UTC(2019, 0, 1);
  const span = Date.UTC(2026, 0, 1) - start;
  return new Date(start + Math.floor((rand() * span) / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

/** Every combination of the option values, in option order (the first option varies slowest). */
function combinations(options: [string, string[]][]): string[][] {
  return options.reduce<string[][]>((combos, [, values]) => combos.flatMap((c) => values.map((v) => [...c, v])), [[]]);
}

/** A catalog of `products` products (about 1 in 6 single-variant, 1 in 20 sold out) and collections. */
export function generateCatalog(options: GenerateOptions): SourceCatalog {
  const rand = seededRandom(options.seed ?? 20261121);
  const products: SourceProduct[] = [];
  let variantId = 50_000_000_000_000;
  for (let i = 0; i < options.products; i++) {
    const family = weighted(rand, FAMILIES, (f) => f.weight, FAMILY_WEIGHT);
    const adjective = pick(rand, ADJECTIVES);
    const color = pick(rand, COLORS);
    const available = rand() >= 0.05;
    const price = family.base + Math.floor(rand() * 40) * 50;
    const onSale = rand() < 0.16;
    const noun = family.noun.replace(/-/g, " ");
    const capital = `${adjective[0]?.toUpperCase()}${adjective.slice(1)}`;
    const title = family.kind === "options" ? `${capital} ${noun} ${i + 1}` : `${capital} ${noun} ${i + 1} - ${color}`;
    const handle =
      family.kind === "options"
        ? slug(`${adjective} ${family.noun} ${i + 1}`)
        : slug(`${adjective} ${family.noun} ${color} ${i + 1}`);
    const tagCount = rand() < 0.03 ? 0 : 1 + zipf(rand, 5);
    const tags = [
      ...new Set([
        slug(family.type),
        adjective,
        ...Array.from({ length: tagCount }, () => TAGS[zipf(rand, TAGS.length)] as string),
      ]),
    ].slice(0, 2 + tagCount);
    const body = description(rand, title);
    const images = imagesOf(rand, handle, title);
    const seo =
      rand() < 0.3 ? { title: `${title} | ${STORE}`, description: `${title}: ${pick(rand, SENTENCES)}` } : undefined;

    let optionList: [string, string[]][];
    if (family.kind === "single") optionList = [];
    else if (family.kind === "sized") {
      const first = Math.floor(rand() * 3);
      optionList = [
        ["Size", SIZES.slice(first, first + 3 + Math.floor(rand() * (SIZES.length - first - 2)))],
        ["Color", [color]],
      ];
    } else {
      // A subset of each option's values (at least one, in order), so products differ.
      optionList = (family.options ?? []).map(([name, values]) => {
        const from = Math.floor(rand() * Math.max(1, values.length - 1));
        return [name, values.slice(from, from + 1 + Math.floor(rand() * (values.length - from)))];
      });
    }
    const combos = combinations(optionList);
    const variants: SourceVariant[] = combos.map((values, v) => {
      const minor =
        price + (optionList[0]?.[0] === "Size" && v >= 5 ? 200 : 0) + (family.kind === "options" ? v * 300 : 0);
      const sku =
        rand() < 0.9 ? [family.code, String(i + 1), ...values.map((x) => slug(x).toUpperCase())].join("-") : null;
      const image =
        images.length > 1 && family.kind === "options" && rand() < 0.5
          ? (images[v % images.length]?.url ?? null)
          : null;
      const id = String(variantId++);
      // Every available product keeps its first variant in stock.
      const inStock = available && (v === 0 || rand() >= 0.1);
      return {
        id,
        options: Object.fromEntries(optionList.map(([name], o) => [name, values[o] as string])),
        price: sourcePrice(minor, rand),
        available: inStock,
        ...generatedStock(id, inStock),
        ...(sku !== null ? { sku } : {}),
        ...(onSale
          ? {
              compare_at_price: sourcePrice(
                Math.round((minor * (125 + Math.floor(rand() * 4) * 10)) / 10000) * 100,
                rand,
              ),
            }
          : {}),
        ...(image !== null ? { image } : {}),
      };
    });
    products.push({
      id: `gid://shopify/Product/${9_000_000_000_000 + i}`,
      handle,
      title,
      vendor: weighted(rand, VENDORS, ([, w]) => w, VENDOR_WEIGHT)[0],
      product_type: family.type,
      tags,
      available,
      options: optionList.map(([name, values]) => ({ name, values })),
      variants,
      ...(body !== undefined ? { description_html: body } : {}),
      ...(images.length > 0 ? { images } : {}),
      ...(seo ? { seo } : {}),
      created_at: createdAt(rand),
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

// --- Shopify CSV (current header generation) ----------------------------------------------------

/** The columns Shopify's current product export writes, in its order (those this project reads, and a few it ignores). */
const CSV_HEADER = [
  "Title",
  "URL handle",
  "Description",
  "Vendor",
  "Product category",
  "Type",
  "Tags",
  "Published on online store",
  "Status",
  "SKU",
  "Barcode",
  "Option1 name",
  "Option1 value",
  "Option2 name",
  "Option2 value",
  "Option3 name",
  "Option3 value",
  "Price",
  "Compare-at price",
  "Cost per item",
  "Charge tax",
  "Inventory tracker",
  "Inventory quantity",
  "Continue selling when out of stock",
  "Weight value (grams)",
  "Weight unit for display",
  "Requires shipping",
  "Fulfillment service",
  "Product image URL",
  "Image position",
  "Image alt text",
  "Variant image URL",
  "Gift card",
  "SEO title",
  "SEO description",
];
const COLUMN = Object.fromEntries(CSV_HEADER.map((h, i) => [h, i])) as Record<string, number>;

function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

function csvRow(cells: Record<string, string>): string {
  const row = new Array<string>(CSV_HEADER.length).fill("");
  for (const [name, value] of Object.entries(cells)) row[COLUMN[name] as number] = value;
  return `${row.map(csvField).join(",")}\n`;
}

/**
 * A generated variant's stock, as a store tracks it: sold-out variants tracked at 0, about 70% of
 * the others tracked with 1-40 units, the rest untracked. Drawn from a hash of the variant id, not
 * from the catalog's random sequence, so every other generated field stays as it was.
 */
function generatedStock(id: string, inStock: boolean): { inventory_quantity?: number } {
  if (!inStock) return { inventory_quantity: 0 };
  const h = fnv1a(`stock:${id}`);
  return h % 10 < 7 ? { inventory_quantity: 1 + ((h >>> 8) % 40) } : {};
}

/**
 * A catalog as a Shopify product CSV of the current header generation, one chunk of rows per
 * product: the first row carries the product and its first variant and image, later rows the
 * other variants (with the next images), then image-only rows. Availability is written the way
 * Shopify does (tracked, quantity, continue selling), so importing it gives the same catalog
 * back, except for ids (a CSV has none; the importer derives them) and image sizes (a CSV has
 * none). Barcodes come Excel-mangled (`8.40E+11`), as in real exports; the importer ignores them.
 */
export function* shopifyCsvChunks(catalog: SourceCatalog, seed = 1): Generator<string> {
  const rand = seededRandom(seed);
  yield `${CSV_HEADER.map(csvField).join(",")}\n`;
  for (const p of catalog.products) {
    const images = p.images ?? [];
    let text = "";
    p.variants.forEach((v, k) => {
      rand(); // once decided whether the variant is tracked; kept so barcodes stay as they were
      const tracked = v.inventory_quantity !== undefined;
      const cells: Record<string, string> = {
        "URL handle": p.handle,
        SKU: v.sku ?? "",
        Barcode:
          rand() < 0.3
            ? `${(1 + Math.floor(rand() * 9)).toString()}.${Math.floor(rand() * 99)
                .toString()
                .padStart(2, "0")}E+11`
            : "",
        Price: v.price,
        "Compare-at price": v.compare_at_price ?? "",
        "Charge tax": "TRUE",
        "Inventory tracker": tracked ? "shopify" : "",
        "Inventory quantity": tracked ? String(v.inventory_quantity) : "0",
        "Continue selling when out of stock": v.inventory_policy === "continue" ? "TRUE" : "DENY",
        "Weight value (grams)": v.weight_grams === undefined ? "" : String(v.weight_grams),
        "Weight unit for display": "g",
        "Requires shipping": v.requires_shipping === false ? "FALSE" : "TRUE",
        "Fulfillment service": "manual",
        "Variant image URL": v.image ?? "",
      };
      p.options.forEach((o, n) => {
        cells[`Option${n + 1} value`] = v.options[o.name] ?? "";
        if (k === 0) cells[`Option${n + 1} name`] = o.name;
      });
      if (p.options.length === 0) {
        cells["Option1 value"] = "Default Title";
        if (k === 0) cells["Option1 name"] = "Title";
      }
      if (k === 0) {
        Object.assign(cells, {
          Title: p.title,
          Description: p.description_html ?? "",
          Vendor: p.vendor,
          "Product category": "Apparel & Accessories",
          Type: p.product_type,
          Tags: p.tags.join(", "),
          "Published on online store": "TRUE",
          Status: "Active",
          "Gift card": "FALSE",
          "SEO title": p.seo?.title ?? "",
          "SEO description": p.seo?.description ?? "",
        });
      }
      const image = images[k];
      if (image)
        Object.assign(cells, {
          "Product image URL": image.url,
          "Image position": String(k + 1),
          "Image alt text": image.alt ?? "",
        });
      text += csvRow(cells);
    });
    for (let k = p.variants.length; k < images.length; k++) {
      const image = images[k] as SourceImage;
      text += csvRow({
        "URL handle": p.handle,
        "Product image URL": image.url,
        "Image position": String(k + 1),
        "Image alt text": image.alt ?? "",
      });
    }
    yield text;
  }
}
