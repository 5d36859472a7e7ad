/**
 * Token ids the holder's cart refuses. Stored in the cart object because it is the one
 * strongly consistent place every cart request passes through: KV may serve a revoked token's
 * old record for up to 60 s, this table never does. Not cart data: expiry leaves it alone.
 */
export class Revocations {
  readonly #sql: SqlStorage;
  /**
   * The table's ids, read once per instance: every cart request asks, and only `add` (this
   * object, the one writer) changes the table, so the set is the table without an SQL read.
   */
  #ids: Set<string> | undefined;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  #revoked(): Set<string> {
    this.#ids ??= new Set(
      this.#sql
        .exec<{ token_id: string }>("SELECT token_id FROM revoked_tokens")
        .toArray()
        .map((r) => r.token_id),
    );
    return this.#ids;
  }

  /** A new database: no revoked ids, known without reading the table. */
  startEmpty(): void {
    this.#ids = new Set();
  }

  has(tokenId: string): boolean {
    return this.#revoked().has(tokenId);
  }

  add(tokenId: string, now: number): void {
    const ids = this.#revoked();
    this.#sql.exec("INSERT OR IGNORE INTO revoked_tokens (token_id, revoked_at) VALUES (?, ?)", tokenId, now);
    ids.add(tokenId);
  }
}
