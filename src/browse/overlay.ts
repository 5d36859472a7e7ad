import type { CollectionData, IndexView } from "./index/version-index.ts";
import { lowerBound } from "./index/bound.ts";
import type { Scoring } from "./index/text-index.ts";
import { browseSnapshotKey } from "./snapshot.ts";

/**
 * How a change batch's catalog is browsed (issue 45, docs/decisions/0015): by the shards of the
 * version it derives from (its root: the last full publish), which stay loaded, and by one more
 * index of every product the batches since the root changed (its `layer`, written by the batch);
 * each index answers as the batch's catalog would, told what differs by this overlay (one R2
 * object per batch version, read once per version by each engine). The root's products a batch
 * deleted or replaced are taken out of its shards; the catalog's figures every index scores and
 * counts with (products, length sums, option names, spellings, collections) are the catalog's.
 */
export interface BrowseOverlay {
  /** The full publish this catalog derives from, and how many browse shards it has. */
  root: string;
  shards: number;
  /** The version whose index holds every product changed since the root (null: none left). */
  layer: string | null;
  /** The catalog's products, n and sums of title and description lengths. */
  scoring: Required<Pick<Scoring, "n" | "title" | "description">>;
  /** The catalog's option names, in order of first appearance. */
  options: string[];
  /** `<facet>\u0000<key>` and the value as the catalog spells it first, for every value a batch's products had or have. */
  displays: [key: string, display: string][];
  /**
   * Collections whose header (title, count) or members changed since the root: their header and,
   * when a batch set the members (upserted the collection), each member's slot and its rank in
   * the collection, in collection order; null: deleted.
   */
  collections: Record<string, { title: string; n: number; members?: [slot: number, rank: number][] } | null>;
  /** The root's products a batch deleted or replaced: their slots, ascending. */
  removed: number[];
}

/** Where a batch version's overlay is, in the snapshots bucket (beside its layer's snapshot, deleted with it). */
export function overlayKey(version: string): string {
  return `${browseSnapshotKey(version)}/overlay`;
}

/** Which products an index holds: a root shard's range of slots, or a layer's slots. */
export type Holding = { offset: number; size: number } | { slots: Uint32Array };

/** The id a slot has in an index, or -1 when the index does not hold it. */
function idOf(holding: Holding, slot: number): number {
  if ("slots" in holding) {
    const at = lowerBound(holding.slots, slot);
    return holding.slots[at] === slot ? at : -1;
  }
  const id = slot - holding.offset;
  return id >= 0 && id < holding.size ? id : -1;
}

/** What `overlay` makes of one index holding `holding`, whose collections are `own` (IndexView). */
export function indexView(
  overlay: BrowseOverlay,
  holding: Holding,
  own: ReadonlyMap<string, CollectionData>,
): IndexView {
  const removed: number[] = [];
  // A layer holds only live products: the root's removed ones are none of its.
  if (!("slots" in holding))
    for (const slot of overlay.removed) {
      const id = idOf(holding, slot);
      if (id >= 0) removed.push(id);
    }
  const collections = new Map<string, CollectionData | null>();
  for (const [handle, c] of Object.entries(overlay.collections)) {
    if (c === null) {
      collections.set(handle, null);
      continue;
    }
    if (c.members === undefined) {
      const mine = own.get(handle);
      collections.set(handle, {
        ...(mine ?? { members: new Uint32Array(0), ranks: new Uint32Array(0) }),
        title: c.title,
        n: c.n,
      });
      continue;
    }
    const members: number[] = [];
    const ranks: number[] = [];
    for (const [slot, rank] of c.members) {
      const id = idOf(holding, slot);
      if (id < 0) continue;
      members.push(id);
      ranks.push(rank);
    }
    collections.set(handle, {
      title: c.title,
      n: c.n,
      members: Uint32Array.from(members),
      ranks: Uint32Array.from(ranks),
    });
  }
  return {
    removed: Uint32Array.from(removed).sort(),
    products: overlay.scoring.n,
    scoring: overlay.scoring,
    options: overlay.options,
    displays: new Map(overlay.displays),
    collections,
  };
}
