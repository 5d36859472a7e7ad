import { shardOf } from "../catalog/layout.ts";

/**
 * The shard arithmetic of live stock, below both the Stock object and its adapter (store.ts): how
 * many shards there are, which shard holds a variant, and the name of each object. The object
 * calls its siblings (the coordinator, the other shards) by these names, the adapter routes by
 * them, and neither needs the other to know them.
 */

/** Shards when `STOCK_SHARDS` is unset or not a whole number 1–256. */
export const DEFAULT_STOCK_SHARDS = 16;
export const MAX_STOCK_SHARDS = 256;

/** `STOCK_SHARDS` as a number (1–256), else the default. */
export function stockShards(setting: unknown): number {
  const n = typeof setting === "string" && setting.trim() !== "" ? Number(setting) : Number.NaN;
  return Number.isInteger(n) && n >= 1 && n <= MAX_STOCK_SHARDS ? n : DEFAULT_STOCK_SHARDS;
}

/** Which of `shards` shards holds `variantId` (digits): FNV-1a of the id modulo the count. */
export function variantShard(variantId: string, shards: number): number {
  return shardOf(variantId, shards);
}

/** The shard where an operator batch's id is claimed, whichever shards its changes touch. */
export function batchHome(batchId: string, shards: number): number {
  return shardOf(`batch:${batchId}`, shards);
}

/**
 * The object name of shard `index`. The count is part of it (`stock/16/3`): a different count
 * addresses new, empty objects instead of two counts writing one variant.
 */
export function shardName(shards: number, index: number): string {
  return `stock/${shards}/${index}`;
}

/** The object that writes each published version's levels into the shards and merges the overlay. */
export function coordinatorName(shards: number): string {
  return `stock/${shards}/publish`;
}

/** The stub of the object named `name` in `namespace`. */
export function stockStub<T extends Rpc.DurableObjectBranded | undefined>(
  namespace: DurableObjectNamespace<T>,
  name: string,
): DurableObjectStub<T> {
  return namespace.get(namespace.idFromName(name));
}
