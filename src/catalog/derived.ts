/**
 * A change batch's version in KV (issue 45, docs/decisions/0015): copy-on-write. It writes under
 * its own prefix only the entries its changes touch and reads every other from the version that
 * last wrote it (its owner), so a batch costs what it changes, not the catalog. Which version owns
 * an entry is said by map blocks: for each kind of entry (product shards `ps`, variant shards
 * `vs`, content shards `cs`, list blocks `pl`), blocks of MAP_BLOCK entries, each a lineage index
 * per entry (the product list's also a count per block). The version's meta (DerivedMeta) names
 * the owner of each map block, so a read costs the pointer, one map block (kept by the isolate:
 * versions never change) and the entry.
 *
 * Positions become slots: a product keeps the place it was published or appended at, a deletion
 * leaves a hole, a new product takes the next slot. The product list is cut into blocks of
 * LIST_BLOCK slots; a block's chunk (`pl/<block>`, `pli/<block>`) holds the block's products and
 * then at least LIST_BLOCK more of those after it, so any page of at most LIST_BLOCK items after a
 * cursor lies in the cursor's own chunk, as with a full publish's (whose chunk k, positions
 * 250k..250k+499, is block k and block k+1 exactly). Collections are cut the same way, by their
 * members' slots in the collection (`c/<handle>/<block>`).
 */

/** Entries per map block. */
export const MAP_BLOCK = 4096;

/** Slots per list block: the chunk step of a full publish's lists (layout.ts CHUNK_STEP). */
export const LIST_BLOCK = 250;

/** The kinds of entries a change batch's version reads from their owners. */
export const MAP_KINDS = ["ps", "vs", "cs", "pl"] as const;
export type MapKind = (typeof MAP_KINDS)[number];

/** What a change batch's version meta adds (VersionMeta.derived). */
export interface DerivedMeta {
  /**
   * The versions whose entries it reads, the full publish it derives from first, then the batches
   * that wrote entries still read (itself last when it wrote any); owners index this list.
   */
  lineage: string[];
  /** Per kind, per map block: the lineage index of the version holding that map block, -1 when every entry of it is the root's. */
  maps: Record<MapKind, number[]>;
  /** The lineage index of the version holding the collections table (ColsTable), -1 when the root's collections are unchanged. */
  cols: number;
  /** Slots taken: the root's products, then every product a batch appended. */
  slots: number;
  /** The root's products (its slots 0 .. root - 1, its list blocks full but the last). */
  root: number;
}

/** A map block as stored: base64 of each entry's lineage index (u8), and for the product list each block's product count (u16). */
export interface MapBlock {
  o: string;
  n?: string;
}

/**
 * The collections of a change batch's version, in order: handle, title, product count, and the
 * lineage index of the version holding its CollectionMap, -1 when its members are the root's as
 * published (the root's chunks, headers and all, still hold it).
 */
export interface ColsTable {
  list: [handle: string, title: string, count: number, map: number][];
}

/** A collection's blocks (by its members' slots in it): owner and product count of each, as in MapBlock. */
export interface CollectionMap {
  o: string;
  n: string;
  /** Slots taken in the collection. */
  slots: number;
}

export const derivedKeys = {
  map: (owner: string, kind: MapKind, block: number) => `v/${owner}/map/${kind}/${block}`,
  cols: (owner: string) => `v/${owner}/cols`,
  collectionMap: (owner: string, handle: string) => `v/${owner}/cm/${handle}`,
};

function toBase64(bytes: Uint8Array): string {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000)
    text += String.fromCharCode(...bytes.subarray(i, Math.min(bytes.length, i + 0x8000)));
  return btoa(text);
}

function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export function encodeOwners(owners: Uint8Array): string {
  return toBase64(owners);
}

export function decodeOwners(text: string): Uint8Array {
  return fromBase64(text);
}

/** Counts as little-endian u16. */
export function encodeCounts(counts: Uint16Array): string {
  const bytes = new Uint8Array(counts.length * 2);
  counts.forEach((n, i) => {
    bytes[2 * i] = n & 0xff;
    bytes[2 * i + 1] = n >>> 8;
  });
  return toBase64(bytes);
}

export function decodeCounts(text: string): Uint16Array {
  const bytes = fromBase64(text);
  const counts = new Uint16Array(bytes.length >> 1);
  for (let i = 0; i < counts.length; i++) counts[i] = (bytes[2 * i] as number) | ((bytes[2 * i + 1] as number) << 8);
  return counts;
}

/** How many list blocks `slots` slots take (at least one, so an empty list reads as empty). */
export function listBlocks(slots: number): number {
  return Math.max(1, Math.ceil(slots / LIST_BLOCK));
}

/** Each block's product count in a full publish's list of `count` products: full blocks, then the rest. */
export function denseCounts(count: number): Uint16Array {
  const counts = new Uint16Array(listBlocks(count));
  for (let b = 0; b < counts.length; b++) counts[b] = Math.max(0, Math.min(LIST_BLOCK, count - b * LIST_BLOCK));
  return counts;
}

/**
 * Where a page lies in a list cut into blocks of `counts` products: the block holding catalog
 * rank `rank` (0-based among the products) and how many products come before that block.
 */
export function blockOfRank(counts: ArrayLike<number>, rank: number): { block: number; before: number } {
  let before = 0;
  for (let b = 0; b < counts.length; b++) {
    const n = counts[b] as number;
    if (rank < before + n) return { block: b, before };
    before += n;
  }
  return { block: counts.length - 1, before: before - (counts[counts.length - 1] as number) };
}

/** How many products come before block `block`. */
export function before(counts: ArrayLike<number>, block: number): number {
  let n = 0;
  for (let b = 0; b < block; b++) n += counts[b] as number;
  return n;
}
