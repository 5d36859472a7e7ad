/**
 * The money arithmetic of discounts, shipping and tax, written once: a rational share of an amount
 * rounded half-up, and an amount spread over weights by largest remainder. Everything is integer
 * minor units; a product that could pass 2^53 (a 2.5e14 cart times a rate's 10^6) is computed in
 * BigInt, so no result is ever rounded by floating point.
 */

/** A non-negative rational `num / den` (safe integers, `den` > 0): a tax rate, a percentage as a fraction of 1. */
export interface Ratio {
  readonly num: number;
  readonly den: number;
}

/** A decimal string (`"0.0725"`, `"12.5"`) as an exact ratio: 725/10000, 125/10. */
export function decimalRatio(text: string): Ratio {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) throw new RangeError(`Not a decimal: ${text}`);
  const fraction = match[2] ?? "";
  const ratio = { num: Number(`${match[1]}${fraction}`), den: 10 ** fraction.length };
  if (!Number.isSafeInteger(ratio.num) || !Number.isSafeInteger(ratio.den)) throw new RangeError(`Too long: ${text}`);
  return ratio;
}

/** A percentage (`"12.5"`, 0–100) as a fraction of 1: 125/1000. */
export function percentRatio(text: string): Ratio {
  const { num, den } = decimalRatio(text);
  return { num, den: den * 100 };
}

/** `a × num / den` rounded half-up (a, num ≥ 0): 0.5 minor units and above round up. */
export function mulDivHalfUp(a: number, num: number, den: number): number {
  const twice = 2 * a * num + den;
  if (Number.isSafeInteger(twice)) {
    const d = 2 * den;
    return (twice - (twice % d)) / d;
  }
  return Number((2n * BigInt(a) * BigInt(num) + BigInt(den)) / (2n * BigInt(den)));
}

/**
 * Spreads `total` over `weights` in proportion, by largest remainder: each share is its quota
 * rounded down, and the minor units left go one each to the largest remainders, ties to the
 * earlier index (callers order the weights canonically, never by position in a cart). The shares
 * sum to `total` exactly, and when `total` ≤ the weights' sum no share exceeds its weight.
 * All weights 0: everything to the first (callers never spread a positive total over nothing).
 */
export function allocate(total: number, weights: readonly number[]): number[] {
  let sum = 0;
  for (const w of weights) sum += w;
  if (weights.length === 0) return [];
  if (sum === 0) return weights.map((_, i) => (i === 0 ? total : 0));
  const exact = Number.isSafeInteger(total * sum);
  const shares: number[] = [];
  const remainders: (number | bigint)[] = [];
  let given = 0;
  for (const w of weights) {
    if (exact) {
      const product = total * w;
      const rest = product % sum;
      shares.push((product - rest) / sum);
      remainders.push(rest);
    } else {
      const product = BigInt(total) * BigInt(w);
      shares.push(Number(product / BigInt(sum)));
      remainders.push(product % BigInt(sum));
    }
    given += shares[shares.length - 1]!;
  }
  const order = weights.map((_, i) => i);
  order.sort((a, b) => {
    const ra = remainders[a]!;
    const rb = remainders[b]!;
    return ra === rb ? a - b : ra > rb ? -1 : 1;
  });
  for (let k = 0; k < total - given; k += 1) shares[order[k]!] = shares[order[k]!]! + 1;
  return shares;
}
