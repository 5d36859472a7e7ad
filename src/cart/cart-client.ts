import type { Cart } from "./cart-object.ts";

/**
 * The stub of a holder's cart. The name is the token record's `holder`, never anything the
 * client sent, so a token can reach only its own cart.
 */
export function cartFor(env: Env, holder: string): DurableObjectStub<Cart> {
  const namespace = env.CART as DurableObjectNamespace<Cart>;
  return namespace.get(namespace.idFromName(holder));
}

/**
 * What makes two requests "the same" for an Idempotency-Key: method, path and the validated
 * body (key order fixed by the schema, so whitespace or key order in the raw JSON do not count).
 */
export async function requestFingerprint(method: string, path: string, body: unknown): Promise<string> {
  const text = `${method.toUpperCase()} ${path}\n${JSON.stringify(body ?? null)}`;
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
