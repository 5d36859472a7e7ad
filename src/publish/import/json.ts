import { MAX_STOCK_LEVEL, type SourceImage } from "../../catalog/schema.ts";
import { JsonText, Lines } from "../json-text.ts";
import { IssueList } from "./errors.ts";
import {
  type DraftProduct,
  type DraftVariant,
  type ImportReport,
  isTitleOption,
  keptCompareAt,
  type Place,
  readAmount,
  readUrl,
  servedHandle,
  splitTags,
  inventoryOf,
  readGrams,
  readRequiresShipping,
  stockRule,
} from "./model.ts";

/**
 * Shopify `products.json`: `{"products": [...]}` as a storefront's `/products.json` or the Admin
 * REST API returns it, or a bare array of such products. Ids are kept. Availability is the
 * storefront's `available` when present, else the Admin fields (`inventory_management`,
 * `inventory_policy`, `inventory_quantity`). Problems name the line and column in the file and
 * the JSON path.
 */

// --- Reading products --------------------------------------------------------------------------

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const GIFT_CARD_TYPE = /^gift[\s_-]?cards?$/i;

/** Path text for messages: `products[2].variants[0].price`. */
function pathText(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (text, part) => (typeof part === "number" ? `${text}[${part}]` : text ? `${text}.${String(part)}` : String(part)),
    "",
  );
}

export interface JsonReadOptions {
  file: string;
  report: ImportReport;
}

/** Reads products.json text into product drafts in file order; problems thrown together as an ImportError. */
export function readShopifyJson(text: string, opts: JsonReadOptions): DraftProduct[] {
  const { file, report } = opts;
  const issues = new IssueList();
  const lines = new Lines(text);
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const offset = Number(/at position (\d+)/.exec(message)?.[1] ?? text.length);
    issues.add({
      ...lines.at(offset),
      message:
        `not valid JSON: ` +
        `${message.replace(/,? in JSON at position \d+.*$/s, "").replace(/^Unexpected end of JSON input$/, "the file ends before the JSON does")}`,
    });
    issues.throwIfAny(file);
  }
  const rootPath: PropertyKey[] = Array.isArray(root) ? [] : ["products"];
  const list = Array.isArray(root) ? root : isObject(root) && Array.isArray(root.products) ? root.products : null;
  if (list === null) {
    issues.add({
      line: 1,
      column: 1,
      message: 'not a Shopify products.json: expected {"products": [...]} or an array of products',
    });
    issues.throwIfAny(file);
    return [];
  }
  const scanner = new JsonText(text);
  scanner.descend(rootPath);
  const starts = scanner.elements();
  const at = (index: number, path: readonly PropertyKey[]): Place => {
    const offset = new JsonText(text, starts[index] ?? 0).descend(path);
    return { ...lines.at(offset), path: pathText([...rootPath, index, ...path]) };
  };

  const drafts: DraftProduct[] = [];
  list.forEach((item: unknown, index) => {
    report.records += 1;
    const problem = (path: readonly PropertyKey[], message: string) => issues.add({ ...at(index, path), message });
    if (!isObject(item)) return problem([], "not a product object");
    const draft = productOf(item, index, problem, at, report);
    if (draft) drafts.push(draft);
  });
  issues.throwIfAny(file);
  return drafts;
}

function idOf(value: unknown): string | undefined | null {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "number" && Number.isSafeInteger(value) && value > 0) return String(value);
  if (typeof value === "string" && /^\d{1,20}$/.test(value)) return value.replace(/^0+(?=\d)/, "");
  return null;
}

const text = (v: unknown): string | null => (typeof v === "string" ? v : v === null || v === undefined ? "" : null);

function productOf(
  p: Json,
  index: number,
  problem: (path: readonly PropertyKey[], message: string) => void,
  at: (index: number, path: readonly PropertyKey[]) => Place,
  report: ImportReport,
): DraftProduct | null {
  let ok = true;
  const fail = (path: readonly PropertyKey[], message: string) => {
    ok = false;
    problem(path, message);
  };
  const handle = typeof p.handle === "string" ? p.handle.trim() : "";
  if (handle === "") fail(["handle"], "the handle is missing");
  const title = typeof p.title === "string" ? p.title.trim() : "";
  if (title === "") fail(["title"], "the title is missing");
  const id = idOf(p.id);
  if (id === null) fail(["id"], `${JSON.stringify(p.id)} is not a Shopify id (digits)`);
  if (!ok || id === null) return null;

  const status = typeof p.status === "string" ? p.status.toLowerCase() : "active";
  const productType = text(p.product_type) ?? "";
  const giftCard =
    p.gift_card === true ||
    GIFT_CARD_TYPE.test(productType.trim()) ||
    (Array.isArray(p.variants) && p.variants.some((v) => isObject(v) && v.gift_card === true));
  const reason = giftCard
    ? "gift card"
    : status !== "active"
      ? `status ${status}`
      : "published_at" in p && p.published_at === null
        ? "not published"
        : null;
  if (reason) {
    report.skipped.push({ handle, lines: [at(index, []).line ?? 0], reason });
    report.skippedRecords += 1;
    return null;
  }

  for (const field of ["vendor", "product_type", "body_html", "created_at"] as const) {
    if (text(p[field]) === null) fail([field], `${JSON.stringify(p[field])} is not a string`);
  }
  let tags: string[] = [];
  if (typeof p.tags === "string") tags = splitTags(p.tags);
  else if (Array.isArray(p.tags) && p.tags.every((t) => typeof t === "string"))
    tags = [...new Set(p.tags.map((t: string) => t.trim()).filter((t) => t !== ""))];
  else if (p.tags !== undefined && p.tags !== null)
    fail(["tags"], "tags are an array of strings or one comma-separated string");

  // Options, by position; Shopify's "Title: Default Title" means none.
  const rawOptions = Array.isArray(p.options) ? p.options : [];
  const options = rawOptions
    .map((o, k) => ({ o, k }))
    .filter(({ o, k }) => {
      if (isObject(o) && typeof o.name === "string" && o.name.trim() !== "") return true;
      fail(["options", k, "name"], "an option needs a name");
      return false;
    }) as { o: Json; k: number }[];
  if (options.every(({ o }) => typeof o.position === "number"))
    options.sort((a, b) => (a.o.position as number) - (b.o.position as number));
  const names = options.map(({ o }) => (o.name as string).trim());
  const variantsRaw = Array.isArray(p.variants) ? p.variants : [];
  if (variantsRaw.length === 0) fail(["variants"], "a product needs at least one variant");
  // A lone option named Title on a single variant is no option, whatever its value ("Olive"):
  // Any other option named Title is kept, and served as `title-1`.
  const allDefault = variantsRaw.every(
    (v) => isObject(v) && (v.option1 === undefined || v.option1 === null || v.option1 === "Default Title"),
  );
  const loneTitle = names.length === 1 && isTitleOption(names[0]!) && variantsRaw.length === 1 && !allDefault;
  const defaultTitle =
    (names.length === 0 || (names.length === 1 && isTitleOption(names[0]!))) && (allDefault || loneTitle);
  if (loneTitle) report.titleOptions.dropped += 1;
  const used = defaultTitle ? [] : names;
  if (used.length > 3) fail(["options"], `${used.length} options: Shopify products have at most 3`);

  // Images, by position; variant images from featured_image, image_id or variant_ids.
  const rawImages = Array.isArray(p.images) ? p.images : [];
  const found: { image: SourceImage; id: unknown; variantIds: unknown[]; position: number; k: number }[] = [];
  rawImages.forEach((img: unknown, k) => {
    if (!isObject(img)) return fail(["images", k], "not an image object");
    const url = readUrl(typeof img.src === "string" ? img.src : "");
    if ("error" in url || url.url === null)
      return fail(["images", k, "src"], "error" in url ? url.error : "the image has no src");
    const size = (v: unknown, field: string) => {
      if (v === undefined || v === null) return null;
      if (typeof v === "number" && Number.isSafeInteger(v) && v > 0) return v;
      fail(["images", k, field], `${JSON.stringify(v)} is not a positive whole number`);
      return null;
    };
    found.push({
      image: {
        url: url.url,
        alt: typeof img.alt === "string" && img.alt.trim() !== "" ? img.alt : null,
        width: size(img.width, "width"),
        height: size(img.height, "height"),
      },
      id: img.id,
      variantIds: Array.isArray(img.variant_ids) ? img.variant_ids : [],
      position: typeof img.position === "number" ? img.position : Number.POSITIVE_INFINITY,
      k,
    });
  });
  found.sort((a, b) => a.position - b.position);
  const seen = new Set<string>();
  const images = found.filter(({ image }) => !seen.has(image.url) && seen.add(image.url));

  const variants: DraftVariant[] = [];
  variantsRaw.forEach((v: unknown, k) => {
    if (!isObject(v)) return fail(["variants", k], "not a variant object");
    const vid = idOf(v.id);
    if (vid === null) fail(["variants", k, "id"], `${JSON.stringify(v.id)} is not a Shopify id (digits)`);
    const values: string[] = [];
    used.forEach((name, o) => {
      const value = v[`option${o + 1}`];
      if (typeof value === "string" && value.trim() !== "") values.push(value.trim());
      else fail(["variants", k, `option${o + 1}`], `the value of option "${name}" is missing`);
    });
    const priceText = typeof v.price === "number" ? String(v.price) : typeof v.price === "string" ? v.price : "";
    const price = priceText === "" ? { error: "the price is missing" } : readAmount(priceText, report.currency);
    if ("error" in price) fail(["variants", k, "price"], price.error);
    let compareAt: string | null = null;
    const compareRaw = v.compare_at_price;
    if (compareRaw !== undefined && compareRaw !== null && compareRaw !== "") {
      const read = readAmount(
        typeof compareRaw === "number" ? String(compareRaw) : typeof compareRaw === "string" ? compareRaw : "?",
        report.currency,
      );
      if ("error" in read) fail(["variants", k, "compare_at_price"], read.error);
      else compareAt = read.amount;
    }
    // The storefront's `available` when present; else the Admin fields, where a missing
    // inventory_quantity is unknown stock, not zero.
    let availability: Pick<DraftVariant, "available" | "stock" | "inventory">;
    if (typeof v.available === "boolean")
      availability = { available: v.available, stock: v.available ? "explicit" : "explicitSoldOut" };
    else {
      const tracked =
        typeof v.inventory_management === "string"
          ? v.inventory_management !== ""
          : v.inventory_management === undefined && typeof v.inventory_quantity === "number";
      let quantity: number | null = null;
      const raw = v.inventory_quantity;
      if (raw !== undefined && raw !== null) {
        if (typeof raw !== "number" || !Number.isInteger(raw))
          fail(["variants", k, "inventory_quantity"], `${JSON.stringify(raw)} is not a whole number`);
        else if (Math.abs(raw) > MAX_STOCK_LEVEL)
          fail(["variants", k, "inventory_quantity"], `${raw} is out of range (at most ${MAX_STOCK_LEVEL} either way)`);
        else quantity = raw;
      }
      availability = stockRule(tracked, v.inventory_policy === "continue", quantity, !("inventory_quantity" in v));
      Object.assign(availability, inventoryOf(tracked, v.inventory_policy === "continue", quantity));
    }
    const featured =
      isObject(v.featured_image) && typeof v.featured_image.src === "string" ? v.featured_image.src : null;
    const linked = found.find(
      ({ id, variantIds }) =>
        (v.image_id !== undefined && v.image_id !== null && id === v.image_id) || variantIds.includes(v.id),
    );
    const image = featured !== null ? readUrl(featured) : { url: linked?.image.url ?? null };
    if ("error" in image) fail(["variants", k, "featured_image", "src"], image.error);
    const grams = readGrams(v.grams);
    if ("error" in grams) fail(["variants", k, "grams"], grams.error);
    const shipped = readRequiresShipping(v.requires_shipping);
    if ("error" in shipped) fail(["variants", k, "requires_shipping"], shipped.error);
    if ("error" in price || vid === null || "error" in image || "error" in grams || "error" in shipped) return;
    const kept = keptCompareAt(price.amount, compareAt, report.currency);
    if (compareAt !== null && kept === null) report.compareAtDropped += 1;
    variants.push({
      ...(vid !== undefined ? { id: vid } : {}),
      values,
      price: price.amount,
      compare_at_price: kept,
      ...availability,
      sku: typeof v.sku === "string" && v.sku.trim() !== "" ? v.sku.trim() : null,
      image: image.url,
      requires_shipping: shipped.value,
      weight_grams: grams.grams,
    });
  });
  if (!ok) return null;

  const optionSource = options.map(({ k }) => k);
  const fieldOf: Record<string, string> = { description_html: "body_html" };
  const variantFieldOf: Record<string, string> = {
    options: "option1",
    image: "featured_image",
    weight_grams: "grams",
  };
  const body = text(p.body_html) ?? "";
  const createdAt = text(p.created_at) ?? "";
  return {
    ...(id !== undefined ? { id } : {}),
    sourceHandle: handle,
    handle: servedHandle(handle),
    title,
    vendor: (text(p.vendor) ?? "").trim(),
    product_type: productType.trim(),
    tags,
    optionNames: used,
    variants,
    ...(body.trim() !== "" ? { description_html: body } : {}),
    images: images.map(({ image }) => image),
    ...(createdAt !== "" ? { created_at: createdAt } : {}),
    locate(path) {
      const [field, k, sub] = path;
      if (field === "variants" && typeof k === "number")
        return at(index, ["variants", k, ...(sub === undefined ? [] : [variantFieldOf[String(sub)] ?? sub])]);
      if (field === "images" && typeof k === "number")
        return at(index, ["images", images[k]?.k ?? k, ...(sub === "url" ? ["src"] : sub === undefined ? [] : [sub])]);
      if (field === "options" && typeof k === "number")
        return at(index, ["options", optionSource[k] ?? k, ...path.slice(2)]);
      if (field === undefined) return at(index, []);
      return at(index, [fieldOf[String(field)] ?? field, ...path.slice(1)]);
    },
  };
}
