import type { TokenRecord } from "./api.ts";
import { hashToken, newHolderId, newToken, newTokenId } from "./token.ts";

/** The stored form of a token record (the API adds `object: "token"`). */
export interface StoredToken {
  id: string;
  holder: string;
  label: string | null;
  created_at: string;
  revoked_at: string | null;
}

const HASH_PREFIX = "hash:";
const ID_PREFIX = "id:";

/** The API view of a stored record. */
export function toTokenRecord(stored: StoredToken): TokenRecord {
  return { object: "token", ...stored };
}

function isStoredToken(value: unknown): value is StoredToken {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.id === "string" && typeof v.holder === "string" && typeof v.created_at === "string";
}

/**
 * The TOKENS KV adapter. Records live under `hash:<sha256 of token>` (the token is never
 * stored), with the record also as key metadata so listing needs no extra reads, and an index
 * `id:<token id>` → hash so the operator can revoke by id without ever handling the token.
 */
export class TokenStore {
  readonly #kv: KVNamespace;

  constructor(kv: KVNamespace) {
    this.#kv = kv;
  }

  /** The record for a presented token, or null. One KV read: the hot path of every cart call. */
  async findByToken(token: string): Promise<StoredToken | null> {
    const value = await this.#kv.get(HASH_PREFIX + (await hashToken(token)), "json");
    return isStoredToken(value) ? value : null;
  }

  /** The record for a token id, or null. */
  async findById(id: string): Promise<StoredToken | null> {
    const hash = await this.#kv.get(ID_PREFIX + id);
    return hash ? this.findByHash(hash) : null;
  }

  /**
   * The record stored under a token's SHA-256 (hex), or null: how an operator holding a leaked
   * token finds it without the token ever leaving their machine.
   */
  async findByHash(hash: string): Promise<StoredToken | null> {
    const value = await this.#kv.get(HASH_PREFIX + hash.toLowerCase(), "json");
    return isStoredToken(value) ? value : null;
  }

  /**
   * Issues a live token for `holder` (a new holder unless rotating). Returns the token once (a
   * rotation's derived token can be derived again by its retry, never read back).
   */
  async issue(options: {
    label?: string | null;
    holder?: string;
    now?: Date;
    /** A rotation's derived token and id (token.ts rotationToken); random ones otherwise. */
    derived?: { token: string; id: string };
  }): Promise<{ token: string; record: StoredToken }> {
    const token = options.derived?.token ?? newToken();
    const record: StoredToken = {
      id: options.derived?.id ?? newTokenId(),
      holder: options.holder ?? newHolderId(),
      label: options.label ?? null,
      created_at: (options.now ?? new Date()).toISOString(),
      revoked_at: null,
    };
    await this.#write(await hashToken(token), record);
    return { token, record };
  }

  /**
   * Stores a fixed token (development seeding) unless a record for it already exists, so it is
   * safe to run on every `npm run dev`.
   */
  async seed(token: string, record: Omit<StoredToken, "created_at" | "revoked_at">): Promise<boolean> {
    if (await this.findByToken(token)) return false;
    await this.#write(await hashToken(token), { ...record, created_at: new Date().toISOString(), revoked_at: null });
    return true;
  }

  /** Marks a record revoked (keeping its first revocation time). Null when the id is unknown. */
  async markRevoked(id: string, now: Date = new Date()): Promise<StoredToken | null> {
    const hash = await this.#kv.get(ID_PREFIX + id);
    if (!hash) return null;
    const value = await this.#kv.get(HASH_PREFIX + hash, "json");
    if (!isStoredToken(value)) return null;
    if (value.revoked_at) return value;
    const revoked = { ...value, revoked_at: now.toISOString() };
    await this.#write(hash, revoked);
    return revoked;
  }

  /** Every record, newest first, read from key metadata (never from the hash in the key name). */
  async list(): Promise<StoredToken[]> {
    const records: StoredToken[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.#kv.list<StoredToken>({ prefix: HASH_PREFIX, ...(cursor ? { cursor } : {}) });
      for (const key of page.keys) if (isStoredToken(key.metadata)) records.push(key.metadata);
      cursor = page.list_complete ? undefined : page.cursor;
    } while (cursor);
    return records.sort((a, b) => b.created_at.localeCompare(a.created_at) || a.id.localeCompare(b.id));
  }

  async #write(hash: string, record: StoredToken): Promise<void> {
    await this.#kv.put(HASH_PREFIX + hash, JSON.stringify(record), { metadata: record });
    await this.#kv.put(ID_PREFIX + record.id, hash);
  }
}
