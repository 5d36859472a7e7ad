import type { FixedAmountDiscount } from "../../rules/schema.ts";
import { linesIn } from "../targets.ts";
import type { Kind } from "./kind.ts";

/** `fixed_amount`: an amount off the lines it applies to, spread over them, or off each of their units (`per_item`). */
export const fixedAmount: Kind<FixedAmountDiscount> = {
  eligible: (d, cart) => linesIn(d.applies_to, cart.lines),
  action: (d) => (d.per_item ? { take: "per_unit", amount: d.amount } : { take: "amount", amount: d.amount }),
};
