import type { Cart } from "./api.ts";
import type { CartReply, IdempotencyClaim } from "./failure.ts";

/** Idempotency-Keys are kept this long. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** What to do with a write that carries an Idempotency-Key. */
export type Admission =
  | { kind: "run" }
  | { kind: "replay"; reply: CartReply }
  | { kind: "reused" }
  | { kind: "in_use" };

/**
 * A recorded reply. Replies recorded before the cart crossed RPC as JSON text hold the Cart
 * object itself (`cart`); they are replayed as the same text, for as long as keys are kept.
 */
function storedReply(text: string): CartReply {
  const reply = JSON.parse(text) as CartReply | { ok: true; cart: Cart; replayed: boolean };
  return "cart" in reply ? { ok: true, cartJson: JSON.stringify(reply.cart), replayed: reply.replayed } : reply;
}

/**
 * The cart object's record of Idempotency-Keys. Finished requests live in SQLite (24 h), so a
 * replay survives eviction; requests still running live only in memory, since they die with
 * the instance that runs them (no stale lock can outlive a crash). Lives inside the holder's
 * Durable Object, which is what scopes keys to the holder.
 */
export class IdempotencyLedger {
  readonly #sql: SqlStorage;
  readonly #running = new Map<string, string>();

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  /**
   * Admits a claim: replay a finished request with the same fingerprint, refuse a different
   * request under the key (finished or running), refuse the same request while it still runs,
   * else mark it running. Synchronous, so two claims cannot both be admitted.
   */
  admit(claim: IdempotencyClaim, now: number): Admission {
    this.purge(now);
    const stored = this.#sql
      .exec<{ fingerprint: string; reply: string }>(
        "SELECT fingerprint, reply FROM idempotency_keys WHERE key = ?",
        claim.key,
      )
      .toArray()[0];
    const seen = stored?.fingerprint ?? this.#running.get(claim.key);
    if (seen !== undefined && seen !== claim.fingerprint) return { kind: "reused" };
    if (stored) return { kind: "replay", reply: { ...storedReply(stored.reply), replayed: true } };
    if (seen !== undefined) return { kind: "in_use" };
    this.#running.set(claim.key, claim.fingerprint);
    return { kind: "run" };
  }

  /** Stores the answer of an admitted request, for replays. */
  record(claim: IdempotencyClaim, reply: CartReply, now: number): void {
    this.#sql.exec(
      "INSERT INTO idempotency_keys (key, fingerprint, reply, created_at) VALUES (?, ?, ?, ?)",
      claim.key,
      claim.fingerprint,
      JSON.stringify(reply),
      now,
    );
  }

  /** Ends an admitted request, recorded or not (a transient failure may be retried under the key). */
  release(claim: IdempotencyClaim): void {
    this.#running.delete(claim.key);
  }

  /** Forgets keys older than 24 h. */
  purge(now: number): void {
    this.#sql.exec("DELETE FROM idempotency_keys WHERE created_at <= ?", now - IDEMPOTENCY_TTL_MS);
  }
}
