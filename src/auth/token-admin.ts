import type { IssuedToken, ShopperRevocation, TokenRecord } from "./api.ts";
import { rotationToken } from "./token.ts";
import { TokenStore, toTokenRecord } from "./token-store.ts";

/**
 * What a rotation did: issued a new token, answered the one a retry with the same Idempotency-Key
 * issued first (`replayed`), or refused because the token is already revoked (only a live token
 * rotates, else every call would mint another live credential for the holder).
 */
export type Rotation =
  | { outcome: "issued" | "replayed"; issued: IssuedToken }
  | { outcome: "revoked" }
  | { outcome: "unknown" };

/** The Idempotency-Key of a rotation with the operator secret that derives its new token. */
export interface RotationKey {
  operatorSecret: string;
  key: string;
}

/** Tells whatever a holder's token guards (its cart) that the token is revoked, before KV learns it. */
export type RevocationNotice = (holder: string, tokenId: string) => Promise<void>;

/**
 * The operator's token operations, behind the operator surface. Revocation tells the holder's
 * cart object first (strongly consistent, so the very next cart request fails everywhere) and
 * then marks the KV record (which other uses see within KV's 60 s).
 */
export class TokenAdmin {
  readonly #store: TokenStore;
  readonly #tellHolder: RevocationNotice;

  /**
   * `tellHolder` is told first of every revocation: the composition root passes the cart's
   * notice, so auth never reaches up into the cart room.
   */
  constructor(tokens: KVNamespace, tellHolder: RevocationNotice) {
    this.#store = new TokenStore(tokens);
    this.#tellHolder = tellHolder;
  }

  /** A token for a new holder (so a new, empty cart); the only time the token is returned. */
  async issue(label: string | undefined): Promise<IssuedToken> {
    const { token, record } = await this.#store.issue({ label: label ?? null });
    return { ...toTokenRecord(record), token };
  }

  /** Every record, for the operator; records hold neither tokens nor hashes. */
  async list(): Promise<TokenRecord[]> {
    return (await this.#store.list()).map(toTokenRecord);
  }

  /** Revokes a token by id; revoking twice is harmless. Null when the id is unknown. */
  async revoke(id: string): Promise<TokenRecord | null> {
    const record = await this.#store.findById(id);
    if (!record) return null;
    await this.#tellHolder(record.holder, record.id);
    const revoked = await this.#store.markRevoked(id);
    return revoked ? toTokenRecord(revoked) : null;
  }

  /**
   * Revokes the token whose SHA-256 (hex) is `hash`: for an operator who holds a leaked token but
   * not its id. The CLI hashes the token locally, so the token never travels. Null when unknown.
   */
  async revokeByHash(hash: string): Promise<TokenRecord | null> {
    const record = await this.#store.findByHash(hash);
    return record ? this.revoke(record.id) : null;
  }

  /**
   * Revokes a shopper token (`sf_cart_…`) by the holder it names. No record exists to mark: the
   * token is self-contained, so the holder's cart object is the one place that refuses it (and
   * every renewal of it, which names the same holder) from the very next request, everywhere.
   */
  async revokeShopper(holder: string, now: Date = new Date()): Promise<ShopperRevocation> {
    await this.#tellHolder(holder, holder);
    return { object: "shopper_token_revocation", holder, revoked_at: now.toISOString() };
  }

  /**
   * Issues a new token for the same holder (so the cart carries over) and revokes the old one.
   * Only a live token rotates: a revoked one (leaked, or rotated already) is refused. With an
   * Idempotency-Key the new token is derived from the operator secret, the old id and the key, so
   * a retry whose first attempt succeeded (the answer lost on the way) gets that same token again,
   * as long as it is still live, and the cart never holds two live tokens from one rotation.
   */
  async rotate(id: string, idempotency?: RotationKey): Promise<Rotation> {
    const record = await this.#store.findById(id);
    if (!record) return { outcome: "unknown" };
    const derived = idempotency ? await rotationToken(idempotency.operatorSecret, id, idempotency.key) : undefined;
    if (derived) {
      const first = await this.#store.findByToken(derived.token);
      if (first && first.holder === record.holder && first.revoked_at === null) {
        return { outcome: "replayed", issued: { ...toTokenRecord(first), token: derived.token } };
      }
    }
    if (record.revoked_at !== null) return { outcome: "revoked" };
    const { token, record: fresh } = await this.#store.issue({
      label: record.label,
      holder: record.holder,
      ...(derived ? { derived } : {}),
    });
    await this.revoke(id);
    return { outcome: "issued", issued: { ...toTokenRecord(fresh), token } };
  }
}
