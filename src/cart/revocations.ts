/**
 * Token ids the holder's cart refuses. Stored in the cart object because it is the one
 * strongly consistent place every cart request passes through: KV may serve a revoked token's
 * old record for up to 60 s, this table never does. Not cart data: expiry leaves it alone.
 */
export class Revocations {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  has(tokenId: string): boolean {
    return this.#sql.exec("SELECT 1 FROM revoked_tokens WHERE token_id = ?", tokenId).toArray().length > 0;
  }

  add(tokenId: string, now: number): void {
    this.#sql.exec("INSERT OR IGNORE INTO revoked_tokens (token_id, revoked_at) VALUES (?, ?)", tokenId, now);
  }
}
