import { exports } from "cloudflare:workers";
import { type CartToken, CartTokenSchema } from "../../src/cart/api.ts";
import { ORIGIN } from "./worker.ts";

/**
 * A new visitor's shopper token and empty cart, from `POST /carts` as a browser would get them.
 * Each call gets its own client address, so tests never share the issuing limit's bucket.
 */
export async function newShopper(): Promise<CartToken> {
  const address = `198.51.100.${Math.floor(Math.random() * 250) + 1}`;
  const res = await exports.default.fetch(`${ORIGIN}/api/v1/carts`, {
    method: "POST",
    headers: { "CF-Connecting-IP": address },
  });
  if (res.status !== 201) throw new Error(`POST /carts failed: ${res.status} ${await res.text()}`);
  return CartTokenSchema.parse(await res.json());
}
