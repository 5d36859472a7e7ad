import { mulDivHalfUp } from "../../money-math.ts";
import type { BuyXGetYDiscount } from "../../rules/schema.ts";
import { matcher } from "../targets.ts";
import type { DiscountCart, Kind } from "./kind.ts";

interface Plan {
  readonly uses: number;
  /** Units to add (of both sets, the best case) for a first use: what minimum_not_met tells. */
  readonly missing: number;
  /** The most units in both sets the discounted ones may take (the rest must qualify). */
  readonly bothCap: number;
  /** Per eligible line: in the buy set, in the get set. */
  readonly sets: readonly { readonly buy: boolean; readonly get: boolean }[];
}

/** Each judgement's plan, by its eligible list (made once per judgement): the condition and the action share it. */
const plans = new WeakMap<readonly number[], Plan>();

/**
 * How many times the offer applies, and which units it takes. A unit may be in the buy set, the
 * get set or both; a unit counted to qualify is never also discounted. With `b` units only to
 * buy, `g` only to get and `c` in both, `u` uses need u×M units from g+c and u×N from b+c, apart:
 * u ≤ (g+c)/M, u ≤ (b+c)/N and u ≤ (g+b+c)/(M+N), and those bounds are enough. The discounted
 * units are the cheapest u×M of the get set, taking at most `c − max(0, u×N − b)` units of both
 * sets (the rest must qualify), which a cheapest-first pass with that cap finds.
 */
function plan(d: BuyXGetYDiscount, cart: DiscountCart, eligible: readonly number[]): Plan {
  const known = plans.get(eligible);
  if (known) return known;
  const inBuy = matcher(d.buy.applies_to);
  const inGet = matcher(d.get.applies_to);
  let onlyBuy = 0;
  let onlyGet = 0;
  let both = 0;
  const sets = eligible.map((i) => {
    const line = cart.lines[i]!;
    const buy = inBuy(line);
    const get = inGet(line);
    if (buy && get) both += line.quantity;
    else if (buy) onlyBuy += line.quantity;
    else onlyGet += line.quantity;
    return { buy, get };
  });
  const n = d.buy.quantity;
  const m = d.get.quantity;
  const most = Math.min(
    Math.floor((onlyGet + both) / m),
    Math.floor((onlyBuy + both) / n),
    Math.floor((onlyGet + onlyBuy + both) / (m + n)),
  );
  const uses = d.max_uses_per_order === null ? most : Math.min(most, d.max_uses_per_order);
  const missing = Math.max(m - onlyGet - both, n - onlyBuy - both, m + n - onlyGet - onlyBuy - both, 1);
  const found = { uses, missing, bothCap: both - Math.max(0, uses * n - onlyBuy), sets };
  plans.set(eligible, found);
  return found;
}

/** `buy_x_get_y`: buy N of a set, get M of a set at a percentage off, the cheapest get units first. */
export const buyXGetY: Kind<BuyXGetYDiscount> = {
  eligible: (d, cart) => {
    const inBuy = matcher(d.buy.applies_to);
    const inGet = matcher(d.get.applies_to);
    return cart.lines.flatMap((line, i) => (inBuy(line) || inGet(line) ? [i] : []));
  },
  unmet: (d, cart, eligible) => {
    const { uses, missing } = plan(d, cart, eligible);
    return uses > 0 ? null : { reason: "minimum_not_met", units: missing };
  },
  action: (d, cart, eligible) => {
    const { uses, bothCap, sets } = plan(d, cart, eligible);
    const amounts = eligible.map(() => 0);
    // The get set's lines, cheapest first; equal prices keep the canonical order (variant id, attributes).
    const gets = eligible
      .map((line, at) => ({ at, line: cart.lines[line]!, buy: sets[at]!.buy }))
      .filter(({ at }) => sets[at]!.get)
      .sort((a, b) => a.line.unit_price - b.line.unit_price);
    let need = uses * d.get.quantity;
    let cap = bothCap;
    for (const { at, line, buy } of gets) {
      if (need === 0) break;
      const units = Math.min(line.quantity, need, buy ? cap : need);
      if (buy) cap -= units;
      need -= units;
      amounts[at] = mulDivHalfUp(units * line.unit_price, d.get.percent.num, d.get.percent.den);
    }
    return { take: "lines", amounts };
  },
};
