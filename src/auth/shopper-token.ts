/**
 * Shopper tokens (`sf_cart_…`, contract 9.1): what `POST /carts` hands every visitor. A shopper
 * token is self-contained: it names its holder and its expiry and is signed by the worker with
 * HMAC-SHA256, so issuing one writes nothing and checking one reads nothing (no KV record, no
 * hash of a stored record). Revocation is the holder's cart object's business, as for live tokens.
 *
 * Layout, as lower-case hex after the prefix (so the token stays in the `sf_[A-Za-z0-9_]` alphabet
 * every redaction rule knows, and has exactly one spelling: a re-encoded token is refused):
 *
 *     version (1 byte, 1) | holder (16 random bytes) | expires_at (4 bytes, Unix seconds, big endian) | HMAC-SHA256 (32 bytes)
 *
 * The MAC covers the prefix and the first 21 bytes, so a token moved to another prefix fails.
 */

export const SHOPPER_PREFIX = "sf_cart_";
/** A shopper token lives 30 days, as long as a cart lives after its last write. */
export const SHOPPER_TOKEN_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;
/** Past half its life, every cart answer carries a fresh token for the same holder. */
export const SHOPPER_RENEW_AFTER_MS = SHOPPER_TOKEN_LIFETIME_MS / 2;
/** The fixed development value of CART_TOKEN_SECRET (contract 9.1): `npm run dev` and the tests use it. */
export const DEV_CART_TOKEN_SECRET = "dev-cart-token-secret-0123456789abcdef";
/** The contract's minimum for CART_TOKEN_SECRET, in bytes of UTF-8. */
export const MIN_CART_SECRET_BYTES = 32;

const VERSION = 1;
const HOLDER_BYTES = 16;
const PAYLOAD_BYTES = 1 + HOLDER_BYTES + 4;
const MAC_BYTES = 32;
const TOKEN_HEX = (PAYLOAD_BYTES + MAC_BYTES) * 2;
const SHOPPER_SHAPE = new RegExp(`^${SHOPPER_PREFIX}[0-9a-f]{${TOKEN_HEX}}$`);
/** Holder names of shopper carts: never a live token's `hld_…`, so neither kind reaches the other's carts. */
const HOLDER_PREFIX = "shp_";

const encoder = new TextEncoder();
const PREFIX_BYTES = encoder.encode(SHOPPER_PREFIX);

/** Whether `token` claims to be a shopper token (its prefix); its shape and MAC are checked by `verifyShopperToken`. */
export function isShopperToken(token: string): boolean {
  return token.startsWith(SHOPPER_PREFIX);
}

/** A shopper token that was issued or verified: its holder (the cart's name) and expiry. */
export interface ShopperClaims {
  /** `shp_<32 hex>`: names the cart's Durable Object, and is the token id its cart revokes. */
  holder: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

export type ShopperVerdict =
  | {
      ok: true;
      claims: ShopperClaims /** Signed with CART_TOKEN_SECRET_PREVIOUS (a rotation is under way). */;
      previous: boolean;
    }
  | { ok: false; code: "token_invalid" | "token_expired" };

/** HMAC keys by secret: importing one costs more than the MAC itself, and secrets rarely change. */
const keys = new Map<string, Promise<CryptoKey>>();

function keyFor(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    if (keys.size >= 8) keys.clear();
    key = crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    keys.set(secret, key);
  }
  return key;
}

async function mac(secret: string, payload: Uint8Array): Promise<Uint8Array> {
  const signed = new Uint8Array(PREFIX_BYTES.length + payload.length);
  signed.set(PREFIX_BYTES);
  signed.set(payload, PREFIX_BYTES.length);
  return new Uint8Array(await crypto.subtle.sign("HMAC", await keyFor(secret), signed));
}

function toHex(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) out += b.toString(16).padStart(2, "0");
  return out;
}

function fromHex(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

function holderName(holder: Uint8Array): string {
  return HOLDER_PREFIX + toHex(holder);
}

/** Signs a token for `holderBytes` expiring one lifetime after `now`. */
async function sign(
  secret: string,
  holderBytes: Uint8Array,
  now: number,
): Promise<{ token: string; claims: ShopperClaims }> {
  const expiresSeconds = Math.floor((now + SHOPPER_TOKEN_LIFETIME_MS) / 1000);
  const payload = new Uint8Array(PAYLOAD_BYTES);
  payload[0] = VERSION;
  payload.set(holderBytes, 1);
  new DataView(payload.buffer).setUint32(1 + HOLDER_BYTES, expiresSeconds);
  const signature = await mac(secret, payload);
  return {
    token: `${SHOPPER_PREFIX}${toHex(payload)}${toHex(signature)}`,
    claims: { holder: holderName(holderBytes), expiresAt: expiresSeconds * 1000 },
  };
}

/** A token for a new holder (so a new, empty cart). Writes nothing anywhere. */
export function issueShopperToken(secret: string, now: number): Promise<{ token: string; claims: ShopperClaims }> {
  return sign(secret, crypto.getRandomValues(new Uint8Array(HOLDER_BYTES)), now);
}

/** A fresh token for the holder of `claims`: the renewal a cart answer carries past half-life. */
export function renewShopperToken(
  secret: string,
  claims: ShopperClaims,
  now: number,
): Promise<{ token: string; claims: ShopperClaims }> {
  return sign(secret, fromHex(claims.holder.slice(HOLDER_PREFIX.length)), now);
}

/**
 * Checks a shopper token against the current secret and, during a rotation, the previous one.
 * The MAC is compared in constant time; the expiry is looked at only once the MAC holds, so a
 * forged token is `token_invalid` whatever expiry it claims.
 */
export async function verifyShopperToken(
  token: string,
  secrets: { current: string; previous?: string | undefined },
  now: number,
): Promise<ShopperVerdict> {
  if (!SHOPPER_SHAPE.test(token)) return { ok: false, code: "token_invalid" };
  const bytes = fromHex(token.slice(SHOPPER_PREFIX.length));
  const payload = bytes.subarray(0, PAYLOAD_BYTES);
  const given = bytes.subarray(PAYLOAD_BYTES);
  if (payload[0] !== VERSION) return { ok: false, code: "token_invalid" };
  let previous = false;
  if (!crypto.subtle.timingSafeEqual(await mac(secrets.current, payload), given)) {
    if (secrets.previous === undefined || !crypto.subtle.timingSafeEqual(await mac(secrets.previous, payload), given)) {
      return { ok: false, code: "token_invalid" };
    }
    previous = true;
  }
  const expiresAt = new DataView(payload.buffer, payload.byteOffset).getUint32(1 + HOLDER_BYTES) * 1000;
  if (expiresAt <= now) return { ok: false, code: "token_expired" };
  return { ok: true, claims: { holder: holderName(payload.subarray(1, 1 + HOLDER_BYTES)), expiresAt }, previous };
}

/**
 * The holder a shopper token names, read WITHOUT checking its signature: for the operator's
 * `npm run token -- revoke --token -`, which sends only this (never the token, whose MAC is the
 * secret part) to the operator surface. Null when `token` is not shaped like a shopper token.
 */
export function shopperHolderOf(token: string): string | null {
  if (!SHOPPER_SHAPE.test(token)) return null;
  const start = SHOPPER_PREFIX.length + 2; // after the version byte
  return HOLDER_PREFIX + token.slice(start, start + HOLDER_BYTES * 2);
}

/** Whether `holder` is a shopper cart's holder name (`shp_` and 32 hex digits). */
export function isShopperHolder(holder: string): boolean {
  return /^shp_[0-9a-f]{32}$/.test(holder);
}
