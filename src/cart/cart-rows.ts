import { randomBase62 } from "../random.ts";
import type { VariantRecord } from "../catalog/store.ts";
import type { StockLevel } from "../stock/api.ts";
import { attributeBytes, textBytes } from "./attribute-bytes.ts";
import { type CartHead, EMPTY_HEAD, type LineRow, NO_ATTRIBUTES, NO_CODES } from "./view.ts";

/**
 * The cart's SQLite rows (`cart`, `cart_lines`) behind named operations, every value bound as
 * `?`. Synchronous on purpose: the Durable Object calls these after its last await, so a read
 * and the write that depends on it can never interleave with another request.
 *
 * The rows are also kept in memory: read from SQLite once per instance, then changed together
 * with every write below (after the statement succeeded), so reads cost no SQL and a write only
 * its own statement. This is sound because the object is the only writer of its storage, one
 * request at a time; if a write failed to commit, the runtime resets the object and this copy
 * goes with it. Whatever edits storage behind the object's back (an alarm after a restart,
 * a test) calls `reload()`.
 */
export class CartRows {
  readonly #sql: SqlStorage;
  /** The rows as stored: undefined until first read; lines in `position` order. */
  #kept: { times: CartHead | undefined; lines: LineRow[] } | undefined;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  #rows(): { times: CartHead | undefined; lines: LineRow[] } {
    this.#kept ??= {
      times: this.#sql
        .exec<CartHead & Record<string, SqlStorageValue>>(
          "SELECT created_at, updated_at, expires_at, note, attributes, buyer, shipping_option, discount_codes FROM cart",
        )
        .toArray()[0],
      lines: this.#sql.exec<LineRow>("SELECT * FROM cart_lines ORDER BY position").toArray(),
    };
    return this.#kept;
  }

  /** A new database: no cart row and no lines, known without reading them. */
  startEmpty(): void {
    this.#kept = { times: undefined, lines: [] };
  }

  /** Forgets the rows kept in memory; the next call reads them from SQLite again. */
  reload(): void {
    this.#kept = undefined;
  }

  /** The cart row (timestamps, note, attributes), or undefined before the first write. */
  times(): CartHead | undefined {
    return this.#rows().times;
  }

  /** Creates the cart row if needed and moves `updated_at` / `expires_at`. */
  touch(now: number, expiresAt: number): void {
    const rows = this.#rows();
    this.#sql.exec(
      `INSERT INTO cart (singleton, created_at, updated_at, expires_at) VALUES (1, ?, ?, ?)
       ON CONFLICT (singleton) DO UPDATE SET updated_at = excluded.updated_at, expires_at = excluded.expires_at`,
      now,
      now,
      expiresAt,
    );
    rows.times = {
      ...(rows.times ?? EMPTY_HEAD),
      created_at: rows.times?.created_at ?? now,
      updated_at: now,
      expires_at: expiresAt,
    };
  }

  /**
   * Sets the note and/or the attributes (canonical JSON) of the cart row, which `touch` has
   * created: `undefined` leaves a field as it is.
   */
  setDetails(note: string | null | undefined, attributes: string | undefined): void {
    const rows = this.#rows();
    const head = rows.times;
    if (!head) throw new Error("setDetails before touch: the cart row does not exist yet");
    const next = { ...head, note: note === undefined ? head.note : note, attributes: attributes ?? head.attributes };
    this.#sql.exec("UPDATE cart SET note = ?, attributes = ?", next.note, next.attributes);
    rows.times = next;
  }

  /**
   * Sets what prices the cart (contract 10.2-10.4) on the cart row, which `touch` has created:
   * the buyer and the shipping option (JSON / id, `null` clears), the entered codes (JSON);
   * `undefined` leaves a field as it is.
   */
  setPricing(
    buyer: string | null | undefined,
    shippingOption: string | null | undefined,
    codes: string | undefined,
  ): void {
    const rows = this.#rows();
    const head = rows.times;
    if (!head) throw new Error("setPricing before touch: the cart row does not exist yet");
    const next = {
      ...head,
      buyer: buyer === undefined ? head.buyer : buyer,
      shipping_option: shippingOption === undefined ? head.shipping_option : shippingOption,
      discount_codes: codes ?? head.discount_codes,
    };
    this.#sql.exec(
      "UPDATE cart SET buyer = ?, shipping_option = ?, discount_codes = ?",
      next.buyer,
      next.shipping_option,
      next.discount_codes,
    );
    rows.times = next;
  }

  /** Whether the cart has no note, attributes, buyer, shipping option or codes (or no row at all yet). */
  isBare(): boolean {
    const head = this.#rows().times;
    return (
      !head ||
      (head.note === null &&
        head.attributes === NO_ATTRIBUTES &&
        head.buyer === null &&
        head.shipping_option === null &&
        head.discount_codes === NO_CODES)
    );
  }

  /** Deletes the cart and its lines (expiry). */
  deleteCart(): void {
    const rows = this.#rows();
    this.#sql.exec("DELETE FROM cart_lines");
    this.#sql.exec("DELETE FROM cart");
    rows.lines = [];
    rows.times = undefined;
  }

  lines(): readonly LineRow[] {
    return this.#rows().lines;
  }

  line(lineId: string): LineRow | undefined {
    return this.#rows().lines.find((l) => l.id === lineId);
  }

  /** The line of `variantId` with exactly these attributes (canonical JSON), if any. */
  lineFor(variantId: string, attributes: string): LineRow | undefined {
    return this.#rows().lines.find((l) => l.variant_id === variantId && l.attributes === attributes);
  }

  /** Whether a line of `variantId` is a tracked one (its stock is checked on every add). */
  isTracked(variantId: string): boolean {
    return this.#rows().lines.some((l) => l.variant_id === variantId && l.tracked === 1);
  }

  /** UTF-8 bytes of the note and of every attribute key and value, the cart's and its lines' (MAX_CART_ATTRIBUTE_BYTES). */
  attributeBytes(): number {
    const { times, lines } = this.#rows();
    let bytes = textBytes(times?.note) + attributeBytes(times?.attributes ?? NO_ATTRIBUTES);
    for (const line of lines) bytes += attributeBytes(line.attributes);
    return bytes;
  }

  lineCount(): number {
    return this.#rows().lines.length;
  }

  /** Replaces the kept line `lineId` by `change` applied to it. */
  #changeLine(lineId: string, change: (line: LineRow) => LineRow): void {
    const lines = this.#rows().lines;
    const at = lines.findIndex((l) => l.id === lineId);
    if (at >= 0) lines[at] = change(lines[at]!);
  }

  /**
   * Appends a line for `variant` with `attributes` (canonical JSON), priced under `version`;
   * `tracked`: live stock tracks the variant (the catalog or the operator).
   */
  insertLine(variant: VariantRecord, version: string, quantity: number, attributes: string, tracked: boolean): void {
    const lines = this.#rows().lines;
    const line: LineRow = {
      id: `cl_${randomBase62(20)}`,
      variant_id: variant.id,
      attributes,
      position: (lines.at(-1)?.position ?? 0) + 1,
      quantity,
      ...priced(variant, version),
      available: 1,
      // Tracked by the catalog or by the operator (the level said so), whatever the variant record says.
      tracked: tracked ? 1 : 0,
      in_stock: 1,
    };
    const columns = Object.keys(line);
    this.#sql.exec(
      `INSERT INTO cart_lines (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`,
      ...Object.values(line),
    );
    lines.push(line);
  }

  /** Sets a line's quantity and refreshes its price and labels from `variant` (`tracked` as insertLine). */
  growLine(lineId: string, variant: VariantRecord, version: string, quantity: number, tracked: boolean): void {
    const change = { ...priced(variant, version), available: 1, quantity, tracked: tracked ? 1 : 0 };
    this.#update("id = ?", change, lineId);
    this.#changeLine(lineId, (line) => ({ ...line, ...change }));
  }

  /** `UPDATE cart_lines SET <each column of change> = ? WHERE <where>`, every value bound. */
  #update(where: string, change: Partial<LineRow>, ...args: SqlStorageValue[]): void {
    const columns = Object.keys(change);
    this.#sql.exec(
      `UPDATE cart_lines SET ${columns.map((c) => `${c} = ?`).join(", ")} WHERE ${where}`,
      ...Object.values(change),
      ...args,
    );
  }

  setQuantity(lineId: string, quantity: number): void {
    this.#sql.exec("UPDATE cart_lines SET quantity = ? WHERE id = ?", quantity, lineId);
    this.#changeLine(lineId, (line) => ({ ...line, quantity }));
  }

  removeLine(lineId: string): void {
    const rows = this.#rows();
    this.#sql.exec("DELETE FROM cart_lines WHERE id = ?", lineId);
    rows.lines = rows.lines.filter((l) => l.id !== lineId);
  }

  removeAllLines(): void {
    const rows = this.#rows();
    this.#sql.exec("DELETE FROM cart_lines");
    rows.lines = [];
  }

  /**
   * Variant ids (each once) of the lines whose stock is tracked: marked so, or among `alsoTracked`
   * (variants the operator tracks, which the catalog does not mark).
   */
  trackedVariants(alsoTracked: readonly string[] = []): string[] {
    const operator = new Set(alsoTracked);
    return [
      ...new Set(
        this.#rows()
          .lines.filter((l) => l.tracked === 1 || operator.has(l.variant_id))
          .map((l) => l.variant_id),
      ),
    ];
  }

  /** Units of `variantId` over every line that holds it (one line per set of line attributes). */
  quantityOfVariant(variantId: string): number {
    let units = 0;
    for (const line of this.#rows().lines) if (line.variant_id === variantId) units += line.quantity;
    return units;
  }

  /**
   * Live stock on tracked lines, as read for this cart's holder (its own held units count as
   * left): `available` follows whether anything is left (stock decides for a tracked variant,
   * section 9.3), `in_stock` whether what the cart holds of the variant, over all its lines, is
   * covered. A line whose variant is no longer tracked is marked stale (re-priced from the
   * catalog on the next read, which decides its availability again): true when there was one.
   * Only rows that change are written (and re-rendered).
   */
  applyStock(levels: ReadonlyMap<string, StockLevel>): boolean {
    let untracked = false;
    for (const line of this.#rows().lines) {
      const level = levels.get(line.variant_id);
      if (!level) continue;
      if (!level.tracked) {
        if (line.tracked !== 1) continue;
        this.#sql.exec("UPDATE cart_lines SET tracked = 0, in_stock = 1, catalog_version = '' WHERE id = ?", line.id);
        this.#changeLine(line.id, (l) => ({ ...l, tracked: 0, in_stock: 1, catalog_version: "" }));
        untracked = true;
        continue;
      }
      const available = level.in_stock ? 1 : 0;
      const units = this.quantityOfVariant(line.variant_id);
      const inStock = level.policy === "continue" || level.available_quantity >= units ? 1 : 0;
      if (available === line.available && inStock === line.in_stock && line.tracked === 1) continue;
      this.#sql.exec(
        "UPDATE cart_lines SET available = ?, in_stock = ?, tracked = 1 WHERE id = ?",
        available,
        inStock,
        line.id,
      );
      this.#changeLine(line.id, (l) => ({ ...l, available, in_stock: inStock, tracked: 1 }));
    }
    return untracked;
  }

  /** Variant ids (each once) of lines priced under another catalog version than `version`. */
  stalePricing(version: string): string[] {
    return [
      ...new Set(
        this.#rows()
          .lines.filter((l) => l.catalog_version !== version)
          .map((l) => l.variant_id),
      ),
    ];
  }

  /**
   * Re-prices the lines of `asked` that are still stale: from `found` when the variant exists,
   * else (gone from the catalog) marked unavailable at their last price.
   */
  applyPricing(version: string, asked: readonly string[], found: ReadonlyMap<string, VariantRecord>): void {
    for (const variantId of asked) {
      const variant = found.get(variantId);
      if (variant) {
        this.#update("variant_id = ? AND catalog_version != ?", priced(variant, version), variantId, version);
      } else {
        this.#sql.exec(
          // Gone from the catalog: live stock no longer speaks for it (tracked = 0).
          "UPDATE cart_lines SET available = 0, tracked = 0, catalog_version = ? WHERE variant_id = ? AND catalog_version != ?",
          version,
          variantId,
          version,
        );
      }
      // Every line of the variant (one per set of attributes) was updated above.
      for (const line of this.#rows().lines) {
        if (line.variant_id !== variantId || line.catalog_version === version) continue;
        this.#changeLine(line.id, (l) =>
          variant
            ? { ...l, ...priced(variant, version) }
            : { ...l, available: 0, tracked: 0, catalog_version: version },
        );
      }
    }
  }
}

/** The columns of a line that come from the catalog (the rest are the line's own: id, quantity, attributes...). */
type CatalogColumn =
  | "handle"
  | "title"
  | "variant_title"
  | "unit_price_minor"
  | "currency"
  | "available"
  | "catalog_version"
  | "tracked"
  | "options"
  | "sku"
  | "image"
  | "compare_at_minor"
  | "requires_shipping"
  | "weight_grams"
  | "collections";

/**
 * Everything a line takes from the catalog's variant record, priced under `version`: the one
 * place a variant becomes line columns (an add, a grown line and a re-pricing all write these).
 */
function priced(variant: VariantRecord, version: string): Pick<LineRow, CatalogColumn> {
  return {
    handle: variant.product_handle,
    title: variant.product_title,
    variant_title: variant.title,
    unit_price_minor: variant.price_minor,
    currency: variant.currency,
    available: variant.available ? 1 : 0,
    catalog_version: version,
    tracked: variant.tracked ? 1 : 0,
    options: JSON.stringify(variant.options),
    sku: variant.sku,
    image: variant.image === null ? null : JSON.stringify(variant.image),
    compare_at_minor: variant.compare_at_minor,
    requires_shipping: variant.requires_shipping ? 1 : 0,
    weight_grams: variant.weight_grams,
    collections: JSON.stringify(variant.collections),
  };
}
