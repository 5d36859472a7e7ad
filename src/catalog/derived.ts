/**
 * A change batch's version in KV (issue 45, docs/decisions/0015): copy-on-write. It writes under
 * its own prefix only the entries its changes touch and reads every other from the version that
 * last wrote it (its owner), so a batch costs what it changes, not the catalog. Which version owns
 * an entry is said by map blocks: for each kind of entry (product shards `ps`, variant shards
 * `vs`, content shards `cs`; `pl`, list blocks, only in batches written before 2026-11-29),
 * blocks of MAP_BLOCK entries, each a lineage index per entry. The version's meta (DerivedMeta)
 * names the owner of each map block, so a read costs the pointer, one map block (kept by the
 * isolate: versions never change) and the entry.
 *
 * Positions become slots: a product keeps the place it was published or appended at, a deletion
 * leaves a hole, a new product takes the next slot. A batch's version answers its lists (the
 * products, a collection's) from its browse index, so it writes no list chunk; a collection it
 * upserts is written as blocks of LIST_BLOCK slots (`c/<handle>/<block>`, the block's plain lines)
 * that tell later batches its members.
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

/** A map block as stored: base64 of each entry's lineage index (u8), and in an older batch's product list map each block's product count (u16). */
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
