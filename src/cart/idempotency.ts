import type { CartFailure, CartReply, IdempotencyClaim } from "./failure.ts";

/** Idempotency-Keys are kept this long. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * What a key keeps of its first answer: a refusal whole (a few hundred bytes), a success as the
 * mark alone. A success is replayed with the cart as it is at the replay, never a stored copy: a
 * cart's answer can be 700 KB, and one copy per key for 24 h let one token store hundreds of
 * megabytes (issue 42, point 10).
 */
export type StoredAnswer = { ok: true } | { ok: false; failure: CartFailure };

/** What to do with a write that carries an Idempotency-Key. */
export type Admission =
  | { kind: "run" }
  | { kind: "replay"; answer: StoredAnswer }
  | { kind: "reused" }
  | { kind: "in_use" };

/**
 * A recorded answer. Rows recorded before answers were kept small hold the whole reply (its
 * `cartJson`, or older still the Cart itself): a success among them replays as any success does.
 */
function storedAnswer(text: string): StoredAnswer {
  const reply = JSON.parse(text) as { ok: boolean; failure?: CartFailure };
  return reply.ok || !reply.failure ? { ok: true } : { ok: false, failure: reply.failure };
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
    if (stored) return { kind: "replay", answer: storedAnswer(stored.reply) };
    if (seen !== undefined) return { kind: "in_use" };
    this.#running.set(claim.key, claim.fingerprint);
    return { kind: "run" };
  }

  /** Stores what a replay of an admitted request needs (a {@link StoredAnswer}). */
  record(claim: IdempotencyClaim, reply: CartReply, now: number): void {
    this.#sql.exec(
      "INSERT INTO idempotency_keys (key, fingerprint, reply, created_at) VALUES (?, ?, ?, ?)",
      claim.key,
      claim.fingerprint,
      JSON.stringify(reply.ok ? { ok: true } : { ok: false, failure: reply.failure }),
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
