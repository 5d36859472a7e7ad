import type { FreeShippingDiscount } from "../../rules/schema.ts";
import type { Kind } from "./kind.ts";

/** `free_shipping`: the selected rate's price; its minimum counts the lines that ship. */
export const freeShipping: Kind<FreeShippingDiscount> = {
  eligible: (_, cart) => cart.lines.flatMap((line, i) => (line.requires_shipping ? [i] : [])),
  action: () => ({ take: "shipping" }),
};
