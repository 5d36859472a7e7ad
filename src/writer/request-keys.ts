import type { ChangesReply } from "../catalog/changes-api.ts";

/** How long a key's answer is kept and replayed (as the cart's keys, contract section 2). */
export const KEY_KEPT_MS = 24 * 60 * 60 * 1000;
/** A run this old that never answered (its Worker died) no longer holds its key: a retry runs the batch. */
export const RUN_LEASE_MS = 15 * 60 * 1000;

/** What a key says about a request that carries it. */
export type KeyClaim =
  | { kind: "run"; settle: (reply: ChangesReply) => Promise<void> }
  | { kind: "replay"; reply: ChangesReply }
  | { kind: "reused" }
  | { kind: "in_use" };

/**
 * The Idempotency-Keys of `POST /operator/catalog/changes`, one row each in the BROWSE database
 * (beside the catalog lock): the body's fingerprint, the request running it, and its answer once
 * given. Claiming a key is one upsert that only takes over a row whose run died (no answer within
 * RUN_LEASE_MS), then a read-back, as the lock is taken (src/publish/lock.ts sqlLock).
 */
export class RequestKeys {
  readonly #db: D1Database;

  constructor(db: D1Database) {
    this.#db = db;
  }

  async claim(key: string, fingerprint: string, now = Date.now()): Promise<KeyClaim> {
    const token = crypto.randomUUID();
    await this.#db.batch([
      this.#db.prepare(
        "CREATE TABLE IF NOT EXISTS catalog_change_keys (key TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, " +
          "token TEXT NOT NULL, reply TEXT, started_at INTEGER NOT NULL)",
      ),
      this.#db.prepare("DELETE FROM catalog_change_keys WHERE started_at < ?").bind(now - KEY_KEPT_MS),
      this.#db
        .prepare(
          "INSERT INTO catalog_change_keys (key, fingerprint, token, reply, started_at) VALUES (?, ?, ?, NULL, ?) " +
            "ON CONFLICT (key) DO UPDATE SET fingerprint = excluded.fingerprint, token = excluded.token, " +
            "started_at = excluded.started_at WHERE catalog_change_keys.reply IS NULL AND catalog_change_keys.started_at < ?",
        )
        .bind(key, fingerprint, token, now, now - RUN_LEASE_MS),
    ]);
    const row = await this.#db
      .prepare("SELECT fingerprint, token, reply FROM catalog_change_keys WHERE key = ?")
      .bind(key)
      .first<{ fingerprint: string; token: string; reply: string | null }>();
    if (!row) throw new Error("The Idempotency-Key's row was not written.");
    if (row.fingerprint !== fingerprint) return { kind: "reused" };
    if (row.reply !== null) return { kind: "replay", reply: JSON.parse(row.reply) as ChangesReply };
    if (row.token !== token) return { kind: "in_use" };
    return {
      kind: "run",
      settle: async (reply) => {
        // An answer that depends on the moment (the lock was busy, a failure) is not kept: a retry runs again.
        const kept = reply.ok || reply.status === 400;
        await (kept
          ? this.#db
              .prepare("UPDATE catalog_change_keys SET reply = ? WHERE key = ? AND token = ?")
              .bind(JSON.stringify(reply), key, token)
          : this.#db.prepare("DELETE FROM catalog_change_keys WHERE key = ? AND token = ?").bind(key, token)
        ).run();
      },
    };
  }
}
