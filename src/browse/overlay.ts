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
  /**
   * The version whose index holds every product changed since the last frozen layer (since the
   * root when there is none; null: none left).
   */
  layer: string | null;
  /**
   * Layers of earlier batches kept as they were (docs/decisions/0015: a layer is frozen once it
   * holds LAYER_LIMIT products, so a batch rebuilds only the products changed since), oldest
   * first: the version whose index it is, and the slots of its products a later batch deleted or
   * replaced, ascending. Absent: none.
   */
  frozen?: { index: string; removed: number[] }[];
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

/**
 * The slots of `index` (the root, a frozen layer, or the top layer) a batch since deleted or
 * replaced: the root's and each frozen layer's own list; the top layer holds only live products.
 */
function removedFrom(overlay: BrowseOverlay, index: string): readonly number[] {
  if (index === overlay.root) return overlay.removed;
  return overlay.frozen?.find((f) => f.index === index)?.removed ?? [];
}

/** What `overlay` makes of `index` (one of its parts) holding `holding`, whose collections are `own` (IndexView). */
export function indexView(
  overlay: BrowseOverlay,
  index: string,
  holding: Holding,
  own: ReadonlyMap<string, CollectionData>,
): IndexView {
  const removed: number[] = [];
  for (const slot of removedFrom(overlay, index)) {
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
