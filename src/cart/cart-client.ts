import type { Cart } from "./cart-object.ts";
import { sha256Hex } from "../sha256.ts";
import type { Currency } from "../money.ts";
import { CART_TTL_MS } from "./api.ts";
import { cartIdOf, cartJson, EMPTY_HEAD } from "./view.ts";
import { renderedCostOf } from "./cost.ts";
import type { Rules } from "../rules/schema.ts";

/**
 * The stub of a holder's cart. The name is the token record's `holder`, never anything the
 * client sent, so a token can reach only its own cart.
 */
export function cartFor(env: Env, holder: string): DurableObjectStub<Cart> {
  const namespace = env.CART as DurableObjectNamespace<Cart>;
  return namespace.get(namespace.idFromName(holder));
}

/**
 * The id of a holder's cart object, as the object itself reads it (`ctx.id.toString()`): the
 * owner its checkout's stock holds carry, so the cart counts the units they hold as its own.
 */
export function cartObjectId(env: Env, holder: string): string {
  return (env.CART as DurableObjectNamespace<Cart>).idFromName(holder).toString();
}

/**
 * What makes two requests "the same" for an Idempotency-Key: method, path and the validated
 * body (key order fixed by the schema, so whitespace or key order in the raw JSON do not count).
 */
export async function requestFingerprint(method: string, path: string, body: unknown): Promise<string> {
  const text = `${method.toUpperCase()} ${path}\n${JSON.stringify(body ?? null)}`;
  return sha256Hex(text);
}

/**
 * The empty cart a new holder has, as the JSON text its object would answer, made without
 * reaching the object: `POST /carts` writes nothing, and the object comes into being on the
 * holder's first write. Its cost is priced with the live `rules` (an empty cart's cost still
 * says whether prices include tax).
 */
export function newCartJson(env: Env, holder: string, now: number, currency: Currency, rules: Rules | null): string {
  const namespace = env.CART as DurableObjectNamespace<Cart>;
  const times = { ...EMPTY_HEAD, created_at: now, updated_at: now, expires_at: now + CART_TTL_MS };
  const cost = renderedCostOf(times, [], { rules, currency, now });
  return cartJson(cartIdOf(namespace.idFromName(holder)), times, [], cost, currency);
}
