import { mulDivHalfUp } from "../money-math.ts";
import { codeKey, type Discount, type Rules } from "../rules/schema.ts";
import { type Judge, type Unmet, unmetInCart, unmetOutsideCart } from "./conditions.ts";
import type { DiscountCart } from "./kinds/kind.ts";
import { kindOf } from "./kinds/index.ts";
import { codeMessage } from "./messages.ts";
import { type Candidate, type Evaluation, evaluate, onPrices } from "./stacking.ts";
import type { CodeResult } from "./types.ts";

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

/** Two discounts combine only when each lists the other's class (contract 10.3). */
function combine(a: Discount, b: Discount): boolean {
  return a.combines_with.includes(b.class) && b.combines_with.includes(a.class);
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
  return { discount: d, eligible, action, onPrices: prices, bound: boundOf(action, eligible, prices, cart) };
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
function setBound(members: readonly Candidate[], cart: DiscountCart): number {
  let bound = 0;
  let rates = 0;
  for (const m of members) {
    bound += m.bound;
    if (m.discount.class === "order" && m.action.take === "percent") rates += 1;
  }
  if (rates > 1) bound += rates * cart.lines.length;
  return Math.min(bound, cart.totals.reduce((a, b) => a + b, 0) + (cart.shipping ?? 0));
}

/** Every maximal set of pairwise compatible candidates (Bron–Kerbosch with a pivot), as sorted index lists. */
function maximalSets(candidates: readonly Candidate[]): number[][] {
  const n = candidates.length;
  const adj = candidates.map((a, i) => candidates.map((b, j) => i !== j && combine(a.discount, b.discount)));
  const found: number[][] = [];
  const grow = (chosen: number[], open: number[], done: number[]) => {
    if (open.length === 0 && done.length === 0) return void found.push(chosen.sort((a, b) => a - b));
    let pivot = -1;
    let most = -1;
    for (const u of [...open, ...done]) {
      const count = open.filter((v) => adj[u]![v]).length;
      if (count > most) [pivot, most] = [u, count];
    }
    for (const v of open.filter((w) => !adj[pivot]![w])) {
      grow(
        [...chosen, v],
        open.filter((w) => adj[v]![w]),
        done.filter((w) => adj[v]![w]),
      );
      open = open.filter((w) => w !== v);
      done = [...done, v];
    }
  };
  grow(
    [],
    Array.from({ length: n }, (_, i) => i),
    [],
  );
  return found;
}

/** Whether set `a` comes before `b` by the tie rule: its earliest member earlier in the document (then the next...). */
function earlier(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < Math.min(a.length, b.length); i += 1) if (a[i] !== b[i]) return a[i]! < b[i]!;
  return a.length < b.length;
}

/**
 * The set the cart takes (contract 10.3): of the maximal compatible sets, the one that saves
 * most, ties to the set whose earliest member comes first in the document. Sets are evaluated
 * from the highest bound down, until no bound can beat the best found.
 */
function bestSet(candidates: readonly Candidate[], cart: DiscountCart): { set: number[]; evaluation: Evaluation } {
  const sets = maximalSets(candidates).map((set) => ({
    set,
    bound: setBound(
      set.map((i) => candidates[i]!),
      cart,
    ),
  }));
  sets.sort((a, b) => b.bound - a.bound || (earlier(a.set, b.set) ? -1 : 1));
  let best: { set: number[]; evaluation: Evaluation } | null = null;
  for (const { set, bound } of sets) {
    if (best && bound < best.evaluation.saving) break;
    if (best && bound === best.evaluation.saving && !earlier(set, best.set)) continue;
    const evaluation = evaluate(
      set.map((i) => candidates[i]!),
      cart,
    );
    const saving = evaluation.saving;
    if (!best || saving > best.evaluation.saving || (saving === best.evaluation.saving && earlier(set, best.set)))
      best = { set, evaluation };
  }
  return best ?? { set: [], evaluation: evaluate([], cart) };
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
  const judged = new Map<Discount, Candidate | Unmet>();
  const judgeOnce = (d: Discount) => {
    if (!judged.has(d)) judged.set(d, judge(d, cart, judgeBy));
  };
  for (const d of index.automatic) judgeOnce(d);
  const entered = codes.map((code) => ({ text: code.trim(), discount: index.byCode.get(codeKey(code)) }));
  for (const { discount } of entered) if (discount) judgeOnce(discount);

  const candidates = [...judged.values()]
    .filter((r): r is Candidate => "discount" in r)
    .sort((a, b) => a.discount.index - b.discount.index);
  const { set, evaluation } = bestSet(candidates, cart);
  const chosen = set.map((i) => candidates[i]!.discount);
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
    const clash = chosen.find((other) => !combine(discount, other));
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
