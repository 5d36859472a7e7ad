import type { Discount } from "../rules/schema.ts";
import { sha256Hex } from "../sha256.ts";
import type { DiscountUsage, UsageCounts } from "./usage-object.ts";

/**
 * Discount uses as a checkout and the operator see them: the usage objects (usage-object.ts), one
 * per discount id, each call idempotent by the checkout id. Only a discount with a `usage_limit`,
 * or `once_per_buyer`, has uses to count.
 */

/** Whether a discount's uses are counted. */
export function counted(discount: Discount): boolean {
  return discount.usage_limit !== null || discount.once_per_buyer;
}

/**
 * The key a buyer's once_per_buyer uses are counted under: the email trimmed and lower-cased as a
 * whole (no provider's dot or plus rules: `a.b+x@example.com` is its own address), hashed, so the
 * usage objects keep no address.
 */
export function buyerKey(email: string | undefined | null): Promise<string | null> {
  if (!email) return Promise.resolve(null);
  return sha256Hex(`buyer:${email.trim().toLowerCase()}`, 16);
}

export interface UseRefusal {
  discount_id: string;
  reason: "usage_limit_reached" | "once_per_buyer";
}

function usage(env: Env, discountId: string): DurableObjectStub<DiscountUsage> {
  const namespace = env.DISCOUNT_USAGE as DurableObjectNamespace<DiscountUsage>;
  return namespace.get(namespace.idFromName(discountId));
}

export interface DiscountUses {
  /** The once_per_buyer discounts of `discounts` the buyer already used (or holds on another checkout). */
  usedBy(discounts: readonly Discount[], buyer: string, replaces: readonly string[]): Promise<string[]>;
  /** Reserves a use of each discount for the checkout, all or none. */
  reserve(
    checkoutId: string,
    discounts: readonly Discount[],
    buyer: string | null,
    expiresAt: number,
    replaces: readonly string[],
  ): Promise<{ ok: true } | { ok: false; refusals: UseRefusal[] }>;
  release(checkoutId: string, discountIds: readonly string[]): Promise<void>;
  commit(checkoutId: string, discountIds: readonly string[], buyer: string | null): Promise<void>;
  counts(discountId: string): Promise<UsageCounts>;
  committed(discountId: string): Promise<string[]>;
}

export function discountUses(env: Env): DiscountUses {
  const uses: DiscountUses = {
    async usedBy(discounts, buyer, replaces) {
      const once = discounts.filter((d) => d.once_per_buyer);
      const used = await Promise.all(once.map((d) => usage(env, d.id).usedBy(buyer, replaces)));
      return once.filter((_, i) => used[i]).map((d) => d.id);
    },
    async reserve(checkoutId, discounts, buyer, expiresAt, replaces) {
      const outcomes = await Promise.all(
        discounts.map((d) =>
          usage(env, d.id).reserve({
            discountId: d.id,
            checkoutId,
            limit: d.usage_limit,
            buyer: d.once_per_buyer ? buyer : null,
            expiresAt,
            replaces,
          }),
        ),
      );
      const refusals = outcomes.flatMap((o, i) => (o.ok ? [] : [{ discount_id: discounts[i]!.id, reason: o.reason }]));
      if (refusals.length === 0) return { ok: true };
      await uses.release(
        checkoutId,
        discounts.filter((_, i) => outcomes[i]!.ok).map((d) => d.id),
      );
      return { ok: false, refusals };
    },
    async release(checkoutId, discountIds) {
      await Promise.all(discountIds.map((id) => usage(env, id).release(id, checkoutId)));
    },
    async commit(checkoutId, discountIds, buyer) {
      await Promise.all(discountIds.map((id) => usage(env, id).commit(checkoutId, buyer)));
    },
    counts: (discountId) => usage(env, discountId).counts(),
    committed: (discountId) => usage(env, discountId).committed(),
  };
  return uses;
}
