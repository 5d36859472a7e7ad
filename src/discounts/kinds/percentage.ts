import type { PercentageDiscount } from "../../rules/schema.ts";
import { linesIn } from "../targets.ts";
import type { Kind } from "./kind.ts";

/** `percentage`: a percent off each line it applies to (all lines without applies_to). */
export const percentage: Kind<PercentageDiscount> = {
  eligible: (d, cart) => linesIn(d.applies_to, cart.lines),
  action: (d) => ({ take: "percent", percent: d.percent }),
};
