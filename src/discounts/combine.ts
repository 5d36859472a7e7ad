import { mulDivHalfUp } from "../money-math.ts";
import { codeKey } from "../rules/codes.ts";
import type { Discount, Rules } from "../rules/schema.ts";
import { type Judge, unmetInCart, unmetOutsideCart } from "./conditions.ts";
import type { DiscountCart } from "./kinds/kind.ts";
import { kindOf } from "./kinds/index.ts";
import { codeMessage } from "./messages.ts";
import { type Candidate, type Evaluation, evaluate, onPrices } from "./stacking.ts";
import type { CodeResult, Unmet } from "./types.ts";

/** A discount the cart takes: its amount, and per line (canonical order, dense) its share; null for shipping. */
export interface TakenDiscount {
  readonly discount: Discount;
  readonly amount: number;
  readonly lines: readonly number[] | null;
}

export interface DiscountOutcome {
  /** In document order. */
  readonly taken: readonly TakenDiscount[];
  /** What the shipping discounts take off the selected rate. */
  readonly shipping: number;
  /** One per entered code, in the order entered. */
  readonly codes: readonly CodeResult[];
}

interface RulesIndex {
  readonly automatic: readonly Discount[];
  readonly byCode: ReadonlyMap<string, Discount>;
}

/** Each rules object's automatic discounts and its codes by key, made once (a cart reads one rules object for many answers). */
const indexes = new WeakMap<Rules, RulesIndex>();

function indexOf(rules: Rules): RulesIndex {
  let index = indexes.get(rules);
  if (!index) {
    const byCode = new Map<string, Discount>();
    for (const d of rules.discounts) if (d.code !== null) byCode.set(codeKey(d.code), d);
    index = { automatic: rules.discounts.filter((d) => d.code === null), byCode };
    indexes.set(rules, index);
  }
  return index;
}

const CLASS_BIT = { order: 1, product: 2, shipping: 4 } as const;

/** A discount's class as a bit, and the classes it combines with as a mask. */
function classBits(d: Discount): { bit: number; with: number } {
  let mask = 0;
  for (const c of d.combines_with) mask |= CLASS_BIT[c];
  return { bit: CLASS_BIT[d.class], with: mask };
}

/** Two discounts combine only when each lists the other's class (contract 10.3). */
function combine(a: { bit: number; with: number }, b: { bit: number; with: number }): boolean {
  return (a.with & b.bit) !== 0 && (b.with & a.bit) !== 0;
}

/** A discount that meets its conditions, ready to stack; or the condition it fails. */
function judge(d: Discount, cart: DiscountCart, judge: Judge): Candidate | Unmet {
  const outside = unmetOutsideCart(d, judge);
  if (outside) return outside;
  const kind = kindOf(d);
  const eligible = kind.eligible(d, cart);
  const unmet = unmetInCart(d, cart, eligible) ?? kind.unmet?.(d, cart, eligible) ?? null;
  if (unmet) return unmet;
  const action = kind.action(d, cart, eligible);
  const prices = d.class === "product" ? onPrices(action, eligible, cart) : null;
  const bound = boundOf(action, eligible, prices, cart);
  return { discount: d, eligible, action, onPrices: prices, bound, ...classBits(d) };
}

/** The most a discount can take in any set: what it takes alone from full prices (a percentage's share of a rounding aside, see setBound). */
function boundOf(
  action: Candidate["action"],
  eligible: readonly number[],
  prices: readonly number[] | null,
  cart: DiscountCart,
): number {
  if (prices) return prices.reduce((a, b) => a + b, 0);
  const subtotal = cart.totals.reduce((a, b) => a + b, 0);
  switch (action.take) {
    case "percent":
      return eligible.reduce(
        (all, i) => all + mulDivHalfUp(cart.totals[i]!, action.percent.num, action.percent.den),
        0,
      );
    case "per_unit":
      return eligible.reduce((all, i) => all + Math.min(cart.totals[i]!, action.amount * cart.lines[i]!.quantity), 0);
    case "amount":
      return Math.min(action.amount, subtotal);
    case "shipping":
      return cart.shipping ?? 0;
    default:
      return subtotal;
  }
}

/**
 * An upper bound of what a set saves. Order percentages in one set are rounded once per line
 * together, and a member's share of that rounding can pass its own rounding by one minor unit a
 * line: a set with several of them gets that slack.
 */
function setBound(candidates: readonly Candidate[], set: number, cart: DiscountCart, most: number): number {
  let bound = 0;
  let rates = 0;
  for (let rest = set; rest !== 0; rest &= rest - 1) {
    const m = candidates[lowest(rest)]!;
    bound += m.bound;
    if (m.discount.class === "order" && m.action.take === "percent") rates += 1;
  }
  if (rates > 1) bound += rates * cart.lines.length;
  return Math.min(bound, most);
}

/** The index of a mask's lowest set bit. */
const lowest = (mask: number) => 31 - Math.clz32(mask & -mask);

function bits(mask: number): number {
  let count = 0;
  for (let rest = mask; rest !== 0; rest &= rest - 1) count += 1;
  return count;
}

/** Most candidates one cart weighs: 25 automatic discounts and 5 codes (sets are bit masks of them). */
const MAX_CANDIDATES = 30;

/**
 * Every maximal set of pairwise compatible candidates, as bit masks (Bron–Kerbosch with a pivot,
 * Tomita's: branch only on candidates outside the pivot's neighbourhood).
 */
function maximalSets(candidates: readonly Candidate[]): number[] {
  const adj = candidates.map((a, i) => {
    let mask = 0;
    candidates.forEach((b, j) => {
      if (i !== j && combine(a, b)) mask |= 1 << j;
    });
    return mask;
  });
  const found: number[] = [];
  const grow = (chosen: number, open: number, done: number) => {
    if (open === 0 && done === 0) return void found.push(chosen);
    let pivot = 0;
    let most = -1;
    for (let rest = open | done; rest !== 0; rest &= rest - 1) {
      const u = lowest(rest);
      const count = bits(open & adj[u]!);
      if (count > most) [pivot, most] = [u, count];
    }
    for (let rest = open & ~adj[pivot]!; rest !== 0; rest &= rest - 1) {
      const v = lowest(rest);
      grow(chosen | (1 << v), open & adj[v]!, done & adj[v]!);
      open &= ~(1 << v);
      done |= 1 << v;
    }
  };
  grow(0, (1 << candidates.length) - 1, 0);
  return found;
}

/**
 * Whether set `a` comes before `b` by the tie rule: its earliest member earlier in the document,
 * then the next... (candidates are in document order, so the lowest bit where they differ decides).
 */
function earlier(a: number, b: number): boolean {
  const differ = a ^ b;
  return (a & differ & -differ) !== 0;
}

const membersOf = (candidates: readonly Candidate[], set: number) =>
  candidates.filter((_, i) => (set & (1 << i)) !== 0);

/**
 * The set the cart takes (contract 10.3): of the maximal compatible sets, the one that saves
 * most, ties to the set whose earliest member comes first in the document. Sets are evaluated
 * from the highest bound down, until no bound can beat the best found.
 */
function bestSet(candidates: readonly Candidate[], cart: DiscountCart): { set: number; evaluation: Evaluation } {
  if (candidates.length <= 1) return { set: candidates.length, evaluation: evaluate(candidates, cart) };
  if (candidates.length > MAX_CANDIDATES)
    throw new RangeError(`At most ${MAX_CANDIDATES} discounts can be weighed at once`);
  const most = cart.totals.reduce((a, b) => a + b, 0) + (cart.shipping ?? 0);
  const sets = maximalSets(candidates).map((set) => ({ set, bound: setBound(candidates, set, cart, most) }));
  sets.sort((a, b) => b.bound - a.bound || (earlier(a.set, b.set) ? -1 : 1));
  let best: { set: number; evaluation: Evaluation } | null = null;
  for (const { set, bound } of sets) {
    if (best && bound < best.evaluation.saving) break;
    if (best && bound === best.evaluation.saving && !earlier(set, best.set)) continue;
    const evaluation = evaluate(membersOf(candidates, set), cart);
    const saving = evaluation.saving;
    if (!best || saving > best.evaluation.saving || (saving === best.evaluation.saving && earlier(set, best.set)))
      best = { set, evaluation };
  }
  return best!;
}

/**
 * The discounts a cart takes and the answer to each entered code. Only the automatic discounts
 * and the entered codes are looked at (codes found through an index made once per rules object),
 * so 200 codes in the rules cost a cart nothing.
 */
export function applyDiscounts(
  rules: Rules,
  cart: DiscountCart,
  codes: readonly string[],
  judgeBy: Judge,
): DiscountOutcome {
  const index = indexOf(rules);
  const candidates: Candidate[] = [];
  for (const d of index.automatic) {
    const result = judge(d, cart, judgeBy);
    if ("discount" in result) candidates.push(result);
  }
  // Entered codes: each discount judged once however often it was entered.
  const entered = codes.map((code) => ({ text: code.trim(), discount: index.byCode.get(codeKey(code)) }));
  const judged = new Map<Discount, Candidate | Unmet>();
  for (const { discount } of entered) {
    if (!discount || judged.has(discount)) continue;
    const result = judge(discount, cart, judgeBy);
    judged.set(discount, result);
    if ("discount" in result) candidates.push(result);
  }
  candidates.sort((a, b) => a.discount.index - b.discount.index);

  const { set, evaluation } = bestSet(candidates, cart);
  const chosen = membersOf(candidates, set).map((c) => c.discount);
  const taken = chosen.map((discount, k) => ({
    discount,
    amount: evaluation.amounts[k]!,
    lines: evaluation.lines[k] ?? null,
  }));

  const answers = entered.map(({ text, discount }): CodeResult => {
    if (!discount) return answer(text, text, { reason: "unknown" }, rules);
    // Messages name the code as the document spells it; `code` is what the shopper entered.
    const name = discount.code ?? text;
    const result = judged.get(discount)!;
    if (!("discount" in result)) return answer(text, name, result, rules);
    if (chosen.includes(discount)) return answer(text, name, null, rules);
    const clash = chosen.find((other) => !combine(classBits(discount), classBits(other)));
    return answer(text, name, { reason: "not_combinable" }, rules, clash?.title);
  });
  return { taken, shipping: evaluation.shipping, codes: answers };
}

function answer(code: string, name: string, unmet: Unmet | null, rules: Rules, clash?: string): CodeResult {
  return {
    code,
    applicable: unmet === null,
    reason: unmet?.reason ?? null,
    message: codeMessage(name, unmet, rules.currency, clash),
  };
}
