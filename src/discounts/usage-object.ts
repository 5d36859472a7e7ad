import { DurableObject } from "cloudflare:workers";
import { applyMigrations } from "../sqlite-migrations.ts";
import { markExhausted } from "./usage-marks.ts";

const MIGRATIONS: readonly (readonly string[])[] = [
  [
    // One row per checkout that reserved (held) or spent (committed) a use; buyer: the hash of the
    // buyer's normalised email (usage.ts buyerKey), only for a once_per_buyer discount.
    `CREATE TABLE uses (
       checkout_id TEXT PRIMARY KEY,
       state TEXT NOT NULL CHECK (state IN ('held', 'committed')),
       buyer TEXT,
       expires_at INTEGER NOT NULL,
       at INTEGER NOT NULL
     )`,
    `CREATE INDEX uses_by_buyer ON uses (buyer)`,
    // Whether this discount's exhausted mark is in KV (so a use given back clears it once).
    `CREATE TABLE mark (singleton INTEGER PRIMARY KEY CHECK (singleton = 1), marked INTEGER NOT NULL)`,
  ],
];

/** A use to reserve for a checkout. */
export interface UseRequest {
  discountId: string;
  checkoutId: string;
  /** The live rules' usage_limit; null: unlimited (a once_per_buyer discount only). */
  limit: number | null;
  /** The buyer's key for a once_per_buyer discount, else null. */
  buyer: string | null;
  /** When the reservation lapses by itself if nobody releases or commits it (ms). */
  expiresAt: number;
  /** The holder's open checkouts this one replaces: their uses count for this one. */
  replaces: readonly string[];
}

export type UseOutcome = { ok: true } | { ok: false; reason: "usage_limit_reached" | "once_per_buyer" };

export interface UsageCounts {
  committed: number;
  held: number;
}

/**
 * One limited or once-per-buyer discount's uses (contract 10.3): the one strongly consistent
 * writer of its count, named by the discount id. A use is reserved by a checkout (held), given
 * back by its release (cancel, replacement, expiry) or lapses at its `expiresAt`, and committed by
 * its order: the reserve / release / commit shape of the stock holds, every call idempotent by the
 * checkout id. Each method decides in one synchronous stretch of SQL (no await in between), so
 * 1,000 racing reservations of 10 uses give exactly 10.
 */
export class DiscountUsage extends DurableObject<Env> {
  readonly #sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#sql = ctx.storage.sql;
    void ctx.blockConcurrencyWhile(async () => applyMigrations(ctx.storage.sql, MIGRATIONS));
  }

  /** Holds a use for the checkout, or says why not; a checkout that holds or spent one already keeps it. */
  async reserve(request: UseRequest): Promise<UseOutcome> {
    const now = Date.now();
    const own = this.#sql.exec<{ state: string }>("SELECT state FROM uses WHERE checkout_id = ?", request.checkoutId);
    if (own.toArray().length > 0) {
      this.#sql.exec(
        "UPDATE uses SET expires_at = MAX(expires_at, ?) WHERE checkout_id = ? AND state = 'held'",
        request.expiresAt,
        request.checkoutId,
      );
      return { ok: true };
    }
    this.#sql.exec("DELETE FROM uses WHERE state = 'held' AND expires_at <= ?", now);
    const others = this.#others(request.replaces);
    if (request.buyer !== null) {
      const used = this.#sql
        .exec<{ checkout_id: string }>("SELECT checkout_id FROM uses WHERE buyer = ?", request.buyer)
        .toArray()
        .some((row) => !request.replaces.includes(row.checkout_id));
      if (used) return { ok: false, reason: "once_per_buyer" };
    }
    if (request.limit !== null && others >= request.limit) {
      await this.#mark(request.discountId, true);
      return { ok: false, reason: "usage_limit_reached" };
    }
    this.#sql.exec(
      "INSERT INTO uses (checkout_id, state, buyer, expires_at, at) VALUES (?, 'held', ?, ?, ?)",
      request.checkoutId,
      request.buyer,
      request.expiresAt,
      now,
    );
    if (request.limit !== null) await this.#mark(request.discountId, others + 1 >= request.limit);
    return { ok: true };
  }

  /** Gives back a checkout's held use (a committed one stays spent). */
  async release(discountId: string, checkoutId: string): Promise<void> {
    const gone = this.#sql.exec("DELETE FROM uses WHERE checkout_id = ? AND state = 'held'", checkoutId).rowsWritten;
    if (gone > 0) await this.#mark(discountId, false);
  }

  /**
   * Spends the checkout's use: its order was written. A use that lapsed or was released first is
   * spent all the same (the payment is real), so committed uses always equal orders carrying it.
   */
  async commit(checkoutId: string, buyer: string | null): Promise<void> {
    this.#sql.exec(
      `INSERT INTO uses (checkout_id, state, buyer, expires_at, at) VALUES (?, 'committed', ?, 0, ?)
       ON CONFLICT (checkout_id) DO UPDATE SET state = 'committed', buyer = COALESCE(excluded.buyer, buyer)`,
      checkoutId,
      buyer,
      Date.now(),
    );
  }

  /** Whether the buyer used (or holds) this once_per_buyer discount on a checkout other than `replaces`. */
  async usedBy(buyer: string, replaces: readonly string[]): Promise<boolean> {
    const now = Date.now();
    return this.#sql
      .exec<{ checkout_id: string }>(
        "SELECT checkout_id FROM uses WHERE buyer = ? AND (state = 'committed' OR expires_at > ?)",
        buyer,
        now,
      )
      .toArray()
      .some((row) => !replaces.includes(row.checkout_id));
  }

  /** Committed uses and live holds. */
  async counts(): Promise<UsageCounts> {
    const row = this.#sql
      .exec<{ committed: number; held: number }>(
        `SELECT COALESCE(SUM(state = 'committed'), 0) AS committed,
                COALESCE(SUM(state = 'held' AND expires_at > ?), 0) AS held FROM uses`,
        Date.now(),
      )
      .one();
    return { committed: row.committed, held: row.held };
  }

  /** The checkouts whose use is committed: what `orders -- check` compares with the orders carrying the discount. */
  async committed(): Promise<string[]> {
    return this.#sql
      .exec<{ checkout_id: string }>("SELECT checkout_id FROM uses WHERE state = 'committed' ORDER BY checkout_id")
      .toArray()
      .map((row) => row.checkout_id);
  }

  /** Uses counted against the limit: committed, and held by checkouts other than `replaces`. */
  #others(replaces: readonly string[]): number {
    let count = this.#sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM uses").one().n;
    for (const id of replaces) count -= this.#sql.exec("SELECT 1 FROM uses WHERE checkout_id = ?", id).toArray().length;
    return count;
  }

  /** Keeps the KV mark carts read (usage-marks.ts) in step: set when no use is left, cleared when one comes back. */
  async #mark(discountId: string, exhausted: boolean): Promise<void> {
    const row = this.#sql.exec<{ marked: number }>("SELECT marked FROM mark").toArray()[0];
    if ((row?.marked === 1) === exhausted) return;
    this.#sql.exec("INSERT OR REPLACE INTO mark (singleton, marked) VALUES (1, ?)", exhausted ? 1 : 0);
    await markExhausted(this.env.CATALOG, discountId, exhausted);
  }
}
