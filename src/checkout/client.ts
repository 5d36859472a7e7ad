import { CHECKOUT_ID_PATTERN } from "./api.ts";
import type { CartWithCheckouts } from "./cart-host.ts";
import type { Checkouts } from "./checkout-object.ts";
import type { CompleteCheckoutInput } from "./desk.ts";
import { type CheckoutReply, missingCheckout } from "./failure.ts";
import type { CompletedBy } from "./orders.ts";
import type { Received } from "../payment/amounts.ts";

/** What the payment side and the shopper's reads ask of the object that made a checkout. */
export interface CheckoutHost {
  getCheckout(checkoutId: string): Promise<CheckoutReply>;
  cancelCheckout(checkoutId: string): Promise<CheckoutReply>;
  completeCheckout(input: CompleteCheckoutInput): Promise<CheckoutReply>;
}

function carts(env: Env): DurableObjectNamespace<CartWithCheckouts> {
  return env.CART as DurableObjectNamespace<CartWithCheckouts>;
}

/** The objects of checkouts made before they moved into the cart's object (docs/decisions/0016). */
function legacy(env: Env): DurableObjectNamespace<Checkouts> {
  return env.CHECKOUTS as DurableObjectNamespace<Checkouts>;
}

/**
 * The object that keeps a holder's checkouts and makes new ones: the holder's cart object. The
 * name is the token record's `holder`, never anything the client sent, so a token reaches only
 * its own checkouts.
 */
export function checkoutsFor(env: Env, holder: string): DurableObjectStub<CartWithCheckouts> {
  const ns = carts(env);
  return ns.get(ns.idFromName(holder));
}

/** The stub of `hex` as an id of `ns`, or null: an id of another namespace is refused by its checksum. */
function stubOf<T extends Rpc.DurableObjectBranded>(
  ns: DurableObjectNamespace<T>,
  hex: string,
): DurableObjectStub<T> | null {
  try {
    return ns.get(ns.idFromString(hex));
  } catch {
    return null;
  }
}

/**
 * The object that made `checkoutId`, for the payment side (operator, webhook), which has only the
 * id: the holder's cart object, or a legacy Checkouts object for a checkout made before
 * docs/decisions/0016; null when the id names no object of either. The object itself answers 404
 * for an id it did not make, so a forged id reaches nothing.
 */
export function checkoutHost(env: Env, checkoutId: string): CheckoutHost | null {
  const match = CHECKOUT_ID_PATTERN.exec(checkoutId);
  if (!match) return null;
  return stubOf(carts(env), match[1]!) ?? stubOf(legacy(env), match[1]!);
}

/** `ask` of the object that made `checkoutId`, if `holder` made it (the shopper's reads and cancel); else missing. */
export async function holderCheckout(
  env: Env,
  holder: string,
  checkoutId: string,
  ask: (host: CheckoutHost) => Promise<CheckoutReply>,
): Promise<CheckoutReply> {
  const host = madeBy(env, holder, checkoutId) ? checkoutHost(env, checkoutId) : null;
  return host ? ask(host) : missingCheckout();
}

/**
 * Completes a checkout by its id alone (the operator surface, a webhook, the local test payment
 * page): the object that made it decides, exactly once. An id no object made is `resource_missing`.
 */
export async function completeById(
  env: Env,
  checkoutId: string,
  paymentReference: string,
  by: CompletedBy,
  received: Received,
): Promise<CheckoutReply> {
  const host = checkoutHost(env, checkoutId);
  if (!host) return missingCheckout();
  return host.completeCheckout({ checkoutId, paymentReference, by, received });
}

/**
 * Whether `checkoutId` was made by `holder`'s checkouts: the id carries the id of the object that
 * made it (the holder's cart, or before docs/decisions/0016 the holder's Checkouts object), which
 * derives from the holder's name, so nothing is read to know (a receipt for the token holder
 * that checked out, contract 10.7).
 */
export function madeBy(env: Env, holder: string, checkoutId: string): boolean {
  const match = CHECKOUT_ID_PATTERN.exec(checkoutId);
  if (!match) return false;
  return (
    match[1] === carts(env).idFromName(holder).toString() || match[1] === legacy(env).idFromName(holder).toString()
  );
}
