import { randomBase62 } from "../auth/token.ts";
import type { VariantRecord } from "../catalog/store.ts";
import type { CartTimes, LineRow } from "./view.ts";

/**
 * The cart's SQLite rows (`cart`, `cart_lines`) behind named operations, every value bound as
 * `?`. Synchronous on purpose: the Durable Object calls these after its last await, so a read
 * and the write that depends on it can never interleave with another request.
 */
export class CartRows {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  times(): CartTimes | undefined {
    return this.#sql.exec<CartTimes & Record<string, number>>("SELECT created_at, updated_at, expires_at FROM cart").toArray()[0];
  }

  /** Creates the cart row if needed and moves `updated_at` / `expires_at`. */
  touch(now: number, expiresAt: number): void {
    this.#sql.exec(
      `INSERT INTO cart (singleton, created_at, updated_at, expires_at) VALUES (1, ?, ?, ?)
       ON CONFLICT (singleton) DO UPDATE SET updated_at = excluded.updated_at, expires_at = excluded.expires_at`,
      now,
      now,
      expiresAt,
    );
  }

  /** Deletes the cart and its lines (expiry). */
  deleteCart(): void {
    this.#sql.exec("DELETE FROM cart_lines");
    this.#sql.exec("DELETE FROM cart");
  }

  lines(): LineRow[] {
    return this.#sql.exec<LineRow>("SELECT * FROM cart_lines ORDER BY position").toArray();
  }

  line(lineId: string): LineRow | undefined {
    return this.#sql.exec<LineRow>("SELECT * FROM cart_lines WHERE id = ?", lineId).toArray()[0];
  }

  lineForVariant(variantId: string): LineRow | undefined {
    return this.#sql.exec<LineRow>("SELECT * FROM cart_lines WHERE variant_id = ?", variantId).toArray()[0];
  }

  lineCount(): number {
    return this.#sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM cart_lines").one().n;
  }

  /** Appends a line for `variant`, priced under `version`. */
  insertLine(variant: VariantRecord, version: string, quantity: number): void {
    const position = this.#sql.exec<{ p: number }>("SELECT COALESCE(MAX(position), 0) + 1 AS p FROM cart_lines").one().p;
    this.#sql.exec(
      `INSERT INTO cart_lines (id, variant_id, position, quantity, handle, title, variant_title, unit_price_minor,
         currency, available, catalog_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?)`,
      `cl_${randomBase62(20)}`,
      variant.id,
      position,
      quantity,
      variant.product_handle,
      variant.product_title,
      variant.title,
      variant.price_minor,
      variant.currency,
      version,
    );
  }

  /** Sets a line's quantity and refreshes its price and labels from `variant`. */
  growLine(lineId: string, variant: VariantRecord, version: string, quantity: number): void {
    this.#sql.exec(
      `UPDATE cart_lines SET quantity = ?, handle = ?, title = ?, variant_title = ?, unit_price_minor = ?,
         currency = ?, available = 1, catalog_version = ? WHERE id = ?`,
      quantity,
      variant.product_handle,
      variant.product_title,
      variant.title,
      variant.price_minor,
      variant.currency,
      version,
      lineId,
    );
  }

  setQuantity(lineId: string, quantity: number): void {
    this.#sql.exec("UPDATE cart_lines SET quantity = ? WHERE id = ?", quantity, lineId);
  }

  removeLine(lineId: string): void {
    this.#sql.exec("DELETE FROM cart_lines WHERE id = ?", lineId);
  }

  removeAllLines(): void {
    this.#sql.exec("DELETE FROM cart_lines");
  }

  /** Variant ids of lines priced under another catalog version than `version`. */
  stalePricing(version: string): string[] {
    return this.#sql
      .exec<{ variant_id: string }>("SELECT variant_id FROM cart_lines WHERE catalog_version != ?", version)
      .toArray()
      .map((row) => row.variant_id);
  }

  /**
   * Re-prices the lines of `asked` that are still stale: from `found` when the variant exists,
   * else (gone from the catalog) marked unavailable at their last price.
   */
  applyPricing(version: string, asked: readonly string[], found: ReadonlyMap<string, VariantRecord>): void {
    for (const variantId of asked) {
      const variant = found.get(variantId);
      if (variant) {
        this.#sql.exec(
          `UPDATE cart_lines SET handle = ?, title = ?, variant_title = ?, unit_price_minor = ?, currency = ?,
             available = ?, catalog_version = ? WHERE variant_id = ? AND catalog_version != ?`,
          variant.product_handle,
          variant.product_title,
          variant.title,
          variant.price_minor,
          variant.currency,
          variant.available ? 1 : 0,
          version,
          variantId,
          version,
        );
      } else {
        this.#sql.exec(
          "UPDATE cart_lines SET available = 0, catalog_version = ? WHERE variant_id = ? AND catalog_version != ?",
          version,
          variantId,
          version,
        );
      }
    }
  }
}
