/**
 * The cart's view of which limited discounts have no use left: a KV mark per discount, set by its
 * usage object (usage-object.ts) when the last use is reserved or a reservation is refused, and
 * cleared when a use comes back. The cart reads the marks of the limited discounts it could apply
 * and answers `usage_limit_reached` for them; the checkout decides exactly (it reserves a use).
 * So the cart may show a code usable that the checkout then refuses, or (for a moment after a
 * use came back) used up: within KV's own propagation (about 60 s away from where it was written,
 * at once under `npm run dev`).
 */
import { codeKey } from "../rules/codes.ts";
import type { Rules } from "../rules/schema.ts";

const PREFIX = "discount-exhausted:";

export async function markExhausted(kv: KVNamespace, discountId: string, exhausted: boolean): Promise<void> {
  if (exhausted) await kv.put(PREFIX + discountId, "1");
  else await kv.delete(PREFIX + discountId);
}

/** Which of `discountIds` are marked used up (one KV read each, in parallel; none for none). */
export async function exhaustedAmong(kv: KVNamespace, discountIds: readonly string[]): Promise<string[]> {
  const marks = await Promise.all(discountIds.map((id) => kv.get(PREFIX + id)));
  return discountIds.filter((_, i) => marks[i] !== null);
}

/** The limited discounts a cart could take: the automatic ones and those of its entered codes. */
export function limitedAmong(rules: Rules | null, codes: readonly string[]): string[] {
  const entered = new Set(codes.map(codeKey));
  return (rules?.discounts ?? [])
    .filter((d) => d.usage_limit !== null && (d.code === null || entered.has(codeKey(d.code))))
    .map((d) => d.id);
}
