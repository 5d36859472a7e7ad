import type { Target } from "../rules/schema.ts";
import type { PricingLine } from "./types.ts";

interface TargetSets {
  products: ReadonlySet<string>;
  collections: ReadonlySet<string>;
  variants: ReadonlySet<string>;
}

/** Each target's lookup sets, built once per rules object (a target lives as long as its rules). */
const sets = new WeakMap<Target, TargetSets>();

function setsOf(target: Target): TargetSets {
  let found = sets.get(target);
  if (!found) {
    found = {
      products: new Set(target.products),
      collections: new Set(target.collections),
      variants: new Set(target.variants),
    };
    sets.set(target, found);
  }
  return found;
}

/** A test of whether a line is in a target (its product, one of its collections, or its variant); every line is in no target (null). */
export function matcher(target: Target | null): (line: PricingLine) => boolean {
  if (target === null) return () => true;
  const { products, collections, variants } = setsOf(target);
  return (line) => {
    if (products.has(line.handle) || variants.has(line.variant_id)) return true;
    for (const handle of line.collections) if (collections.has(handle)) return true;
    return false;
  };
}

/** Whether a line is in a target. */
export function inTarget(target: Target | null, line: PricingLine): boolean {
  return matcher(target)(line);
}

/** The indices of the lines in a target. */
export function linesIn(target: Target | null, lines: readonly PricingLine[]): number[] {
  const match = matcher(target);
  const found: number[] = [];
  lines.forEach((line, i) => {
    if (match(line)) found.push(i);
  });
  return found;
}
