import { allocate, mulDivHalfUp, type Ratio } from "../money-math.ts";
import type { Discount } from "../rules/schema.ts";
import type { Action, DiscountCart } from "./kinds/kind.ts";

/** An applicable discount, its action, and what it takes off the lines' prices (product class). */
export interface Candidate {
  readonly discount: Discount;
  readonly eligible: readonly number[];
  readonly action: Action;
  /** Product class: its amount per line (dense) taken on the lines' prices, before any stacking. */
  readonly onPrices: readonly number[] | null;
  /** The most it can save in any set (combining prunes with it). */
  readonly bound: number;
  /** Its class as a bit (order 1, product 2, shipping 4), and the classes it combines with as a mask. */
  readonly bit: number;
  readonly with: number;
}

/** What a set of discounts takes: per member (in the set's order), per line (dense) or off shipping. */
export interface Evaluation {
  readonly saving: number;
  readonly amounts: readonly number[];
  /** Per member its amount on each line; null for a shipping discount. */
  readonly lines: readonly (readonly number[] | null)[];
  readonly shipping: number;
}

/** A product discount's amount on each line (dense), taken from the lines' prices before any stacking. */
export function onPrices(action: Action, eligible: readonly number[], cart: DiscountCart): number[] {
  const prices = cart.totals;
  const out = prices.map(() => 0);
  switch (action.take) {
    case "percent":
      for (const i of eligible) out[i] = mulDivHalfUp(prices[i]!, action.percent.num, action.percent.den);
      break;
    case "per_unit":
      for (const i of eligible) out[i] = Math.min(prices[i]!, action.amount * cart.lines[i]!.quantity);
      break;
    case "amount": {
      const weights = eligible.map((i) => prices[i]!);
      const total = Math.min(action.amount, sum(weights));
      allocate(total, weights).forEach((share, k) => {
        out[eligible[k]!] = share;
      });
      break;
    }
    case "lines":
      eligible.forEach((i, k) => {
        out[i] = Math.min(prices[i]!, action.amounts[k]!);
      });
      break;
    case "shipping":
      break;
  }
  return out;
}

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

/** Greatest common divisor, for the percentages' common denominator. */
function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/**
 * What a set of compatible discounts takes, stacked (contract 10.2: product, then order, then
 * shipping). `members` are in document order.
 * - Product discounts each take from the lines' prices (`onPrices`); together never more than a
 *   line: where they would, the later in the document takes only what is left.
 * - Order discounts take from what remains of each line after the product discounts, all from
 *   that same amount, together never more than it: the percentages first, summed and rounded
 *   half-up once per line (each discount's share of that by largest remainder of its percent),
 *   then amounts off each unit, then fixed amounts, each spread over what remains by largest
 *   remainder.
 * - Shipping discounts take the selected rate's price, the first in the document all of it.
 * Adding a discount to a set never lowers what the set saves (each step only ever lowers what is
 * left, and what is left after each step never rises when its input falls), so only maximal
 * compatible sets need comparing (test/discounts/combine.test.ts checks it on random sets).
 */
export function evaluate(members: readonly Candidate[], cart: DiscountCart): Evaluation {
  const remaining = cart.totals.slice();
  const lines: (number[] | null)[] = members.map((m) =>
    m.discount.class === "shipping" ? null : remaining.map(() => 0),
  );

  members.forEach((m, k) => {
    if (m.discount.class !== "product" || !m.onPrices) return;
    const mine = lines[k]!;
    for (const i of m.eligible) {
      const amount = Math.min(m.onPrices[i]!, remaining[i]!);
      mine[i] = amount;
      remaining[i] = remaining[i]! - amount;
    }
  });

  const order = members.flatMap((m, k) => (m.discount.class === "order" ? [k] : []));
  const rates = order.filter((k) => members[k]!.action.take === "percent");
  if (rates.length > 0) {
    const percents = rates.map((k) => (members[k]!.action as { percent: Ratio }).percent);
    const den = percents.reduce((acc, p) => (acc / gcd(acc, p.den)) * p.den, 1);
    const weights = percents.map((p) => p.num * (den / p.den));
    const all = sum(weights);
    remaining.forEach((left, i) => {
      const taken = Math.min(left, mulDivHalfUp(left, all, den));
      if (taken === 0) return;
      allocate(taken, weights).forEach((share, r) => {
        lines[rates[r]!]![i] = share;
      });
      remaining[i] = left - taken;
    });
  }
  for (const k of order) {
    const action = members[k]!.action;
    if (action.take === "per_unit") {
      remaining.forEach((left, i) => {
        const amount = Math.min(left, action.amount * cart.lines[i]!.quantity);
        lines[k]![i] = amount;
        remaining[i] = left - amount;
      });
    }
  }
  for (const k of order) {
    const action = members[k]!.action;
    if (action.take === "amount") {
      const shares = allocate(Math.min(action.amount, sum(remaining)), remaining);
      shares.forEach((share, i) => {
        lines[k]![i] = share;
        remaining[i] = remaining[i]! - share;
      });
    }
  }

  let shippingLeft = cart.shipping ?? 0;
  const amounts = members.map((m, k) => {
    if (m.discount.class !== "shipping") return sum(lines[k]!);
    const amount = shippingLeft;
    shippingLeft = 0;
    return amount;
  });
  return { saving: sum(amounts), amounts, lines, shipping: (cart.shipping ?? 0) - shippingLeft };
}
