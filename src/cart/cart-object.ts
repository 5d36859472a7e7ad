import { DurableObject } from "cloudflare:workers";
import { randomBase62 } from "../auth/token.ts";
import { CatalogStore, type VariantRecord } from "../catalog/store.ts";
import { ApiError } from "../http/errors.ts";
import { MAX_LINE_QUANTITY, MAX_LINES, type Cart as CartView } from "./api.ts";
import { migrate } from "./migrations.ts";
import type { CartFailure, CartReply, IdempotencyClaim } from "./reply.ts";
import { buildCart, type CartTimes, type LineRow } from "./view.ts";

/** A cart expires this long after its last write. */
export const CART_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** Idempotency keys are kept this long. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** Every call names the token it acts for, so a revoked token is refused here, at once. */
interface Caller {
  tokenId: string;
  idempotency?: IdempotencyClaim;
}

export interface AddLineInput extends Caller {
  variantId: string;
  quantity: number;
  handle?: string;
  variantTitle?: string;
}

export interface UpdateLineInput extends Caller {
  lineId: string;
  quantity: number;
}

export interface RemoveLineInput extends Caller {
  lineId: string;
}

/** What an operation produced: `record: false` for transient failures a retry may cure. */
type Outcome = { reply: CartReply; record: boolean };

/**
 * The catalog adapter throws 503 `catalog_unavailable` when a version vanishes under a reader;
 * thrown here it would cross RPC as a bare Error, so it becomes a (not recorded) failure.
 */
async function guarded(operation: () => Promise<Outcome>): Promise<Outcome> {
  try {
    return await operation();
  } catch (error) {
    if (error instanceof ApiError && error.body.code === "catalog_unavailable") {
      return fail("catalog_unavailable", error.body.message, undefined, false);
    }
    throw error;
  }
}

function fail(code: CartFailure["code"], message: string, param?: string, record = true): Outcome {
  return { reply: { ok: false, failure: { code, message, ...(param ? { param } : {}) }, replayed: false }, record };
}

/**
 * One token holder's cart: a SQLite Durable Object named from the token record's `holder`.
 *
 * Why a Durable Object: every write to one cart runs here, one at a time, so 100 concurrent
 * adds cannot lose or double a unit, and the limits (999 per line, 250 lines) are checked
 * against the state they change. The object also keeps the holder's revoked token ids, which
 * is how revocation reaches the very next cart request even while KV still serves the old
 * token record, and the holder's Idempotency-Keys.
 *
 * Every method returns a `CartReply` (data, not exceptions: errors crossing RPC lose their class).
 */
export class Cart extends DurableObject<Env> {
  readonly #sql: SqlStorage;
  readonly #catalog: CatalogStore;
  /** Idempotency-Keys whose first request is still running here, with their fingerprints. */
  readonly #inFlight = new Map<string, string>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#sql = ctx.storage.sql;
    this.#catalog = new CatalogStore(env.CATALOG);
    void ctx.blockConcurrencyWhile(async () => {
      migrate(this.#sql);
    });
  }

  /** The cart, re-priced against the current catalog if a publish happened since the last call. */
  async getCart(caller: Caller): Promise<CartReply> {
    if (this.#isRevoked(caller.tokenId)) return this.#revoked().reply;
    this.#expireIfDue(Date.now());
    const outcome = await guarded(async () => {
      const version = await this.#catalog.currentVersion();
      if (version) await this.#reprice(version);
      return { reply: { ok: true, cart: this.#view(), replayed: false }, record: false };
    });
    return outcome.reply;
  }

  /** Adds units of a variant; an existing line for that variant grows instead of a new line. */
  async addLine(input: AddLineInput): Promise<CartReply> {
    return this.#write(input, async () => {
      const version = await this.#catalog.currentVersion();
      if (!version) return fail("catalog_unavailable", "No catalog has been published yet.", undefined, false);
      const [variant] = await Promise.all([this.#catalog.getVariant(version, input.variantId), this.#reprice(version)]);
      if (!variant) return fail("resource_missing", `No variant ${input.variantId}.`, "variant_id");
      if (input.handle !== undefined && input.handle !== variant.product_handle) {
        return fail("parameter_invalid", `Variant ${variant.id} belongs to ${variant.product_handle}, not ${input.handle}.`, "handle");
      }
      if (input.variantTitle !== undefined && input.variantTitle !== variant.title) {
        return fail("parameter_invalid", `Variant ${variant.id} is ${variant.title}, not ${input.variantTitle}.`, "variant_title");
      }
      if (!variant.available) return fail("sold_out", "Sold out", "variant_id");
      return this.#applyAdd(variant, version, input.quantity);
    });
  }

  /** Sets a line's quantity; 0 removes it. A sold-out line can shrink but not grow. */
  async updateLine(input: UpdateLineInput): Promise<CartReply> {
    return this.#write(input, async () => {
      const version = await this.#catalog.currentVersion();
      if (version) await this.#reprice(version);
      const line = this.#line(input.lineId);
      if (!line) return fail("resource_missing", `No line ${input.lineId} in this cart.`, "line_id");
      if (input.quantity === 0) {
        this.#sql.exec("DELETE FROM cart_lines WHERE id = ?", input.lineId);
      } else {
        if (line.available !== 1 && input.quantity > line.quantity) return fail("sold_out", "Sold out", "line_id");
        this.#sql.exec("UPDATE cart_lines SET quantity = ? WHERE id = ?", input.quantity, input.lineId);
      }
      return this.#touched();
    });
  }

  /** Removes one line. */
  async removeLine(input: RemoveLineInput): Promise<CartReply> {
    return this.#write(input, async () => {
      const version = await this.#catalog.currentVersion();
      if (version) await this.#reprice(version);
      if (!this.#line(input.lineId)) return fail("resource_missing", `No line ${input.lineId} in this cart.`, "line_id");
      this.#sql.exec("DELETE FROM cart_lines WHERE id = ?", input.lineId);
      return this.#touched();
    });
  }

  /** Removes every line; the cart itself (id, created_at) stays. */
  async clear(caller: Caller): Promise<CartReply> {
    return this.#write(caller, async () => {
      this.#sql.exec("DELETE FROM cart_lines");
      return this.#touched();
    });
  }

  /**
   * Refuses `tokenId` from now on. Called by the operator surface before the KV record is
   * marked, so the refusal holds on the next request even where KV still has the old record.
   * Kept when the cart expires: revocation is not cart data.
   */
  async revokeToken(tokenId: string): Promise<void> {
    this.#sql.exec("INSERT OR IGNORE INTO revoked_tokens (token_id, revoked_at) VALUES (?, ?)", tokenId, Date.now());
  }

  /** Expiry: 30 days after the last write the lines and the cart go. Early wake-ups re-arm. */
  override async alarm(): Promise<void> {
    const now = Date.now();
    const times = this.#times();
    if (times && times.expires_at > now) {
      await this.ctx.storage.setAlarm(times.expires_at);
      return;
    }
    this.#expireIfDue(now);
    this.#sql.exec("DELETE FROM idempotency_keys WHERE created_at <= ?", now - IDEMPOTENCY_TTL_MS);
  }

  /**
   * The frame of every write: refuse revoked tokens, expire a stale cart, then resolve the
   * Idempotency-Key (replay, 422 for a different request, 409 while the first still runs) before
   * running `operation` and recording its reply under the key.
   */
  async #write(caller: Caller, operation: () => Promise<Outcome>): Promise<CartReply> {
    if (this.#isRevoked(caller.tokenId)) return this.#revoked().reply;
    const now = Date.now();
    this.#expireIfDue(now);
    const claim = caller.idempotency;
    if (!claim) return (await guarded(operation)).reply;

    this.#sql.exec("DELETE FROM idempotency_keys WHERE created_at <= ?", now - IDEMPOTENCY_TTL_MS);
    const stored = this.#sql
      .exec<{ fingerprint: string; reply: string }>("SELECT fingerprint, reply FROM idempotency_keys WHERE key = ?", claim.key)
      .toArray()[0];
    const running = this.#inFlight.get(claim.key);
    const seen = stored?.fingerprint ?? running;
    if (seen !== undefined && seen !== claim.fingerprint) {
      return fail("idempotency_key_reused", "This Idempotency-Key was used with a different request.", undefined, false).reply;
    }
    if (stored) return { ...(JSON.parse(stored.reply) as CartReply), replayed: true };
    if (running !== undefined) {
      return fail("idempotency_key_in_use", "A request with this Idempotency-Key is still running. Retry later.", undefined, false).reply;
    }

    this.#inFlight.set(claim.key, claim.fingerprint);
    try {
      const outcome = await guarded(operation);
      if (outcome.record) {
        this.#sql.exec(
          "INSERT INTO idempotency_keys (key, fingerprint, reply, created_at) VALUES (?, ?, ?, ?)",
          claim.key,
          claim.fingerprint,
          JSON.stringify(outcome.reply),
          Date.now(),
        );
      }
      return outcome.reply;
    } finally {
      this.#inFlight.delete(claim.key);
    }
  }

  /** The synchronous part of an add: no await between reading the line and writing it. */
  #applyAdd(variant: VariantRecord, version: string, quantity: number): Outcome {
    const existing = this.#sql.exec<LineRow>("SELECT * FROM cart_lines WHERE variant_id = ?", variant.id).toArray()[0];
    if (existing) {
      const total = existing.quantity + quantity;
      if (total > MAX_LINE_QUANTITY) {
        return fail("quantity_exceeded", `A line holds at most ${MAX_LINE_QUANTITY} units; this one would hold ${total}.`, "quantity");
      }
      this.#sql.exec(
        `UPDATE cart_lines SET quantity = ?, handle = ?, title = ?, variant_title = ?, unit_price_minor = ?,
           currency = ?, available = 1, catalog_version = ? WHERE id = ?`,
        total,
        variant.product_handle,
        variant.product_title,
        variant.title,
        variant.price_minor,
        variant.currency,
        version,
        existing.id,
      );
      return this.#touched();
    }
    const count = this.#sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM cart_lines").one().n;
    if (count >= MAX_LINES) return fail("cart_full", `A cart holds at most ${MAX_LINES} lines.`, "variant_id");
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
    return this.#touched();
  }

  /**
   * Re-prices lines priced under another catalog version. Only the lines read before the await
   * are updated, so a line added meanwhile (already at `version`) is never marked missing.
   * A variant gone or sold out stays in the cart with `available: false`.
   */
  async #reprice(version: string): Promise<void> {
    const stale = this.#sql
      .exec<{ variant_id: string }>("SELECT variant_id FROM cart_lines WHERE catalog_version != ?", version)
      .toArray()
      .map((row) => row.variant_id);
    if (stale.length === 0) return;
    const variants = await this.#catalog.getVariants(version, stale);
    for (const variantId of stale) {
      const variant = variants.get(variantId);
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

  /** Marks a successful write: creates the cart row if needed, pushes expiry 30 days out. */
  #touched(): Outcome {
    const now = Date.now();
    const expiresAt = now + CART_TTL_MS;
    this.#sql.exec(
      `INSERT INTO cart (singleton, created_at, updated_at, expires_at) VALUES (1, ?, ?, ?)
       ON CONFLICT (singleton) DO UPDATE SET updated_at = excluded.updated_at, expires_at = excluded.expires_at`,
      now,
      now,
      expiresAt,
    );
    void this.ctx.storage.setAlarm(expiresAt);
    return { reply: { ok: true, cart: this.#view(), replayed: false }, record: true };
  }

  /** Deletes the cart and its lines once `expires_at` has passed, so an expired cart reads empty. */
  #expireIfDue(now: number): void {
    const times = this.#times();
    if (!times || times.expires_at > now) return;
    this.#sql.exec("DELETE FROM cart_lines");
    this.#sql.exec("DELETE FROM cart");
  }

  #times(): CartTimes | undefined {
    return this.#sql.exec<CartTimes & Record<string, number>>("SELECT created_at, updated_at, expires_at FROM cart").toArray()[0];
  }

  #line(lineId: string): LineRow | undefined {
    return this.#sql.exec<LineRow>("SELECT * FROM cart_lines WHERE id = ?", lineId).toArray()[0];
  }

  #isRevoked(tokenId: string): boolean {
    return this.#sql.exec("SELECT 1 FROM revoked_tokens WHERE token_id = ?", tokenId).toArray().length > 0;
  }

  #revoked(): Outcome {
    return fail("token_revoked", "The token has been revoked.", undefined, false);
  }

  /** The cart as the API shows it; a cart never written reads as empty, expiring 30 days from now. */
  #view(): CartView {
    const now = Date.now();
    const times = this.#times() ?? { created_at: now, updated_at: now, expires_at: now + CART_TTL_MS };
    const rows = this.#sql.exec<LineRow>("SELECT * FROM cart_lines ORDER BY position").toArray();
    return buildCart(`cart_${this.ctx.id.toString().slice(0, 24)}`, times, rows);
  }
}
