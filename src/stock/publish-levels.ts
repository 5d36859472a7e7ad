import type { InventoryPolicy } from "./api.ts";

/**
 * Which levels a new catalog version writes into live stock (contract 9.3 [revised, turn 5]): the
 * one decision a publish and a change batch (contract 11) share, with no I/O, so both follow the
 * same rule and a test can state it. The Stock shards call it on each version's first stock call
 * (`Stock.syncShard`, over their rows); `catalog:publish` calls it to report what it will write
 * (over the previous publish's file), which is what the shards do when that publish was written.
 *
 * The rule: a version writes a variant's level only when it newly tracks it (live stock has no
 * catalog level for it) or when its quantity differs from what the last publish or batch wrote;
 * otherwise the live level stays, so a republish for a price edit never brings back units sold
 * since. `replace` (`catalog:publish --stock replace`) writes every level of the file. Tracking
 * that came from the catalog ends with a version that gives no quantity; tracking the operator
 * started (a `set` on an untracked variant) goes on whatever a version gives.
 */

/** A variant's level in the new version's file (a variant with an `inventory_quantity`). */
export interface FileLevel {
  quantity: number;
  policy: InventoryPolicy;
}

/** What live stock knows of a variant: its level row, if it has one. */
export interface LiveTracking {
  /**
   * The quantity the last publish or batch wrote (or kept) for it: the file quantity it was
   * last given. Null when no version tracks it now (the operator does).
   */
  published: number | null;
  /** The operator started tracking it: it stays tracked when a version gives no quantity. */
  operator: boolean;
}

/** `write` and `keep` set `published` to the file's quantity and the policy to the file's. */
export type LevelDecision =
  /** The level becomes the file's quantity (new to tracking, changed in the file, or `replace`). */
  | { action: "write"; quantity: number; policy: InventoryPolicy }
  /** The live level stays: the file gives what the last version gave. */
  | { action: "keep"; quantity: number; policy: InventoryPolicy }
  /** The catalog stops tracking it and the operator never started: the level row goes. */
  | { action: "untrack" }
  /** The catalog stops tracking it, the operator's tracking goes on: only `published` is cleared. */
  | { action: "operator_only" }
  /** Nothing to do: neither the file nor live stock tracks it, or only the operator does. */
  | { action: "none" };

/** `keep` (the default) or `replace` (`catalog:publish --stock replace`: every file level written). */
export type StockMode = "keep" | "replace";

/** The decision for one variant: its level in the new file (if tracked there) and in live stock. */
export function decideLevel(
  file: FileLevel | undefined,
  live: LiveTracking | undefined,
  mode: StockMode,
): LevelDecision {
  if (file) {
    const changed = live?.published !== file.quantity;
    return mode === "replace" || changed
      ? { action: "write", quantity: file.quantity, policy: file.policy }
      : { action: "keep", quantity: file.quantity, policy: file.policy };
  }
  if (!live || live.published === null) return { action: "none" };
  return live.operator ? { action: "operator_only" } : { action: "untrack" };
}

/** What a version does to the live levels it meets: each variant's decision, and the counts. */
export interface LevelPlan {
  decisions: Map<string, LevelDecision>;
  written: number;
  kept: number;
  untracked: number;
}

/**
 * The decisions for every variant of `file` (the new version's tracked levels) and of `live`
 * (what live stock tracks), in that order; variants with nothing to do are left out.
 */
export function planLevels(
  file: ReadonlyMap<string, FileLevel>,
  live: ReadonlyMap<string, LiveTracking>,
  mode: StockMode,
): LevelPlan {
  const plan: LevelPlan = { decisions: new Map(), written: 0, kept: 0, untracked: 0 };
  const note = (id: string, decision: LevelDecision) => {
    if (decision.action === "none") return;
    plan.decisions.set(id, decision);
    if (decision.action === "write") plan.written += 1;
    else if (decision.action === "keep") plan.kept += 1;
    else plan.untracked += 1;
  };
  for (const [id, level] of file) note(id, decideLevel(level, live.get(id), mode));
  for (const [id, tracking] of live) if (!file.has(id)) note(id, decideLevel(undefined, tracking, mode));
  return plan;
}
