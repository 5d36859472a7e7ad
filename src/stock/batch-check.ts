import { MAX_STOCK_LEVEL, type ShardChange } from "./api.ts";

/** Why a batch is refused before anything of it is applied, naming the change at fault. */
export interface BatchRefusal {
  ok: false;
  code: "quantity_out_of_range" | "not_tracked";
  message: string;
  index: number;
}

/**
 * Checks every change against the level it will meet, earlier changes of the batch included
 * (`levelOf`: today's on-hand level, null for a variant without one): an `adjust` of a variant
 * that has no level, or any change taking a level beyond ±MAX_STOCK_LEVEL, refuses the batch. The
 * shard runs it before applying its part; the adapter before a batch over several shards, so none
 * of them applies a part of a batch another would refuse.
 */
export function checkChanges(
  changes: readonly ShardChange[],
  levelOf: (variantId: string) => number | null,
): BatchRefusal | undefined {
  const planned = new Map<string, number | null>();
  for (const change of changes) {
    const known = planned.has(change.variantId) ? planned.get(change.variantId)! : levelOf(change.variantId);
    if (change.op === "untrack") {
      planned.set(change.variantId, null);
      continue;
    }
    if (change.op === "adjust" && known === null) {
      return {
        ok: false,
        code: "not_tracked",
        message: `Change ${change.index}: variant ${change.variantId} is not tracked; set a level to start tracking it.`,
        index: change.index,
      };
    }
    const after = change.op === "set" ? change.value : (known ?? 0) + change.value;
    if (!Number.isSafeInteger(after) || Math.abs(after) > MAX_STOCK_LEVEL) {
      return {
        ok: false,
        code: "quantity_out_of_range",
        message: `Change ${change.index} would take variant ${change.variantId} to ${after}, beyond ±${MAX_STOCK_LEVEL}.`,
        index: change.index,
      };
    }
    planned.set(change.variantId, after);
  }
  return undefined;
}
