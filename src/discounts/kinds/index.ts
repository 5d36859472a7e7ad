import type { Discount, DiscountKind } from "../../rules/schema.ts";
import { buyXGetY } from "./buy-x-get-y.ts";
import { fixedAmount } from "./fixed-amount.ts";
import { freeShipping } from "./free-shipping.ts";
import type { Kind } from "./kind.ts";
import { percentage } from "./percentage.ts";

const KINDS: { [K in DiscountKind]: Kind<Extract<Discount, { kind: K }>> } = {
  percentage,
  fixed_amount: fixedAmount,
  free_shipping: freeShipping,
  buy_x_get_y: buyXGetY,
};

/** The condition and action of a discount's kind. */
export function kindOf(discount: Discount): Kind<Discount> {
  return KINDS[discount.kind] as Kind<Discount>;
}
