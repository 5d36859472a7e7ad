import { randomBase62 } from "../random.ts";
import { sha256Hex } from "../sha256.ts";
/**
 * Customer bearer tokens: what they look like, how they are made and how they are stored.
 * Only `hashToken(token)` ever reaches storage; the token itself exists once, in the answer to
 * the operator who issued it.
 */

/** Live tokens: issued by the operator, valid in every environment. */
export const LIVE_PREFIX = "sf_live_";
/** Development tokens: seeded by `npm run dev`, refused by any worker not in development. */
export const DEV_PREFIX = "sf_dev_";

/** 44 base62 characters carry 44 × log2(62) ≈ 262 bits, above the contract's 256. */
const SECRET_LENGTH = 44;
/** Anything else is malformed and answers 401 without a storage read. */
const TOKEN_SHAPE = /^sf_(live|dev)_[A-Za-z0-9_]{8,100}$/;

/** A new live token. Shown once to the operator, never stored. */
export function newToken(): string {
  return `${LIVE_PREFIX}${randomBase62(SECRET_LENGTH)}`;
}

/** A token id (`tok_…`): what logs, lists and revocation refer to instead of the token. */
export function newTokenId(): string {
  return `tok_${randomBase62(20)}`;
}

/** A holder id (`hld_…`): names the cart, and survives rotation of the holder's token. */
export function newHolderId(): string {
  return `hld_${randomBase62(20)}`;
}

/** Whether `token` has the shape of a token at all (prefix, alphabet, length). */
export function isWellFormedToken(token: string): boolean {
  return TOKEN_SHAPE.test(token);
}

/** Whether `token` is a development token, which only a development worker accepts. */
export function isDevToken(token: string): boolean {
  return token.startsWith(DEV_PREFIX);
}

/** Hex SHA-256 of the token: the only form in which a token is ever stored. */
export async function hashToken(token: string): Promise<string> {
  return sha256Hex(token);
}
