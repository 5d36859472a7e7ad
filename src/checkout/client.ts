import { CHECKOUT_ID_PATTERN } from "./api.ts";
import type { Checkouts } from "./checkout-object.ts";
import type { CheckoutReply } from "./failure.ts";
import type { CompletedBy } from "./orders.ts";
import type { Received } from "../payment/amounts.ts";

function namespace(env: Env): DurableObjectNamespace<Checkouts> {
  return env.CHECKOUTS as DurableObjectNamespace<Checkouts>;
}

/**
 * The stub of a holder's checkouts. The name is the token record's `holder`, never anything the
 * client sent, so a token reaches only its own checkouts.
 */
export function checkoutsFor(env: Env, holder: string): DurableObjectStub<Checkouts> {
  const ns = namespace(env);
  return ns.get(ns.idFromName(holder));
}

/**
 * The stub of the object that made `checkoutId`, for the payment side (operator, webhook), which
 * has only the id; null when the id names no object of this namespace. The object itself answers
 * 404 for an id it did not make, so a forged id reaches nothing.
 */
export function checkoutsById(env: Env, checkoutId: string): DurableObjectStub<Checkouts> | null {
  const match = CHECKOUT_ID_PATTERN.exec(checkoutId);
  if (!match) return null;
  const ns = namespace(env);
  try {
    return ns.get(ns.idFromString(match[1]!));
  } catch {
    return null;
  }
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
  const stub = checkoutsById(env, checkoutId);
  if (!stub)
    return {
      ok: false,
      failure: { code: "resource_missing", message: "No such checkout.", param: "id" },
      replayed: false,
    };
  return stub.complete({ checkoutId, paymentReference, by, received });
}

/**
 * Whether `checkoutId` was made by `holder`'s checkout object: the id carries that object's id,
 * which derives from the holder's name, so nothing is read to know (a receipt for the token
 * holder that checked out, contract 10.7).
 */
export function madeBy(env: Env, holder: string, checkoutId: string): boolean {
  const match = CHECKOUT_ID_PATTERN.exec(checkoutId);
  return match !== null && match[1] === namespace(env).idFromName(holder).toString();
}
