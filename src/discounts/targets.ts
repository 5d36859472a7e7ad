import type { Target } from "../rules/schema.ts";
import type { PricingLine } from "./types.ts";

type Match = (line: PricingLine) => boolean;

const EVERY_LINE: Match = () => true;

/** Each target's test, built once per rules object (a target lives as long as its rules). */
const matchers = new WeakMap<Target, Match>();

/** A test of whether a line is in a target: its product, one of its collections, or its variant; every line when there is no target. */
export function matcher(target: Target | null): Match {
  if (target === null) return EVERY_LINE;
  let match = matchers.get(target);
  if (!match) {
    const products = new Set(target.products);
    const collections = new Set(target.collections);
    const variants = new Set(target.variants);
    match = (line) => {
      if (products.has(line.handle) || variants.has(line.variant_id)) return true;
      for (const handle of line.collections) if (collections.has(handle)) return true;
      return false;
    };
    matchers.set(target, match);
  }
  return match;
}

/** Whether a line is in a target. */
export function inTarget(target: Target | null, line: PricingLine): boolean {
  return matcher(target)(line);
}

/** The indices of the lines in a target. */
export function linesIn(target: Target | null, lines: readonly PricingLine[]): number[] {
  const match = matcher(target);
  const found: number[] = [];
  for (let i = 0; i < lines.length; i += 1) if (match(lines[i]!)) found.push(i);
  return found;
}
