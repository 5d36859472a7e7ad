import {
  type DerivedMeta,
  decodeCounts,
  decodeOwners,
  derivedKeys,
  encodeCounts,
  encodeOwners,
  MAP_BLOCK,
  type MapBlock,
  type MapKind,
} from "../../catalog/derived.ts";
import type { KvEntry } from "../build.ts";
import type { CatalogKvTarget } from "../publish.ts";

/** The entries a batch reads of the versions it derives from, each read once, many at a time. */
export class Reads {
  readonly #target: Pick<CatalogKvTarget, "readValues">;
  readonly #cache = new Map<string, Promise<string | null>>();

  constructor(target: Pick<CatalogKvTarget, "readValues">) {
    this.#target = target;
  }

  many(keys: readonly string[]): Promise<(string | null)[]> {
    const missing = [...new Set(keys.filter((k) => !this.#cache.has(k)))];
    if (missing.length > 0) {
      const values = this.#target.readValues(missing);
      missing.forEach((key, i) =>
        this.#cache.set(
          key,
          values.then((v) => v[i] ?? null),
        ),
      );
    }
    return Promise.all(keys.map((k) => this.#cache.get(k) as Promise<string | null>));
  }

  async one(key: string): Promise<string | null> {
    return (await this.many([key]))[0] ?? null;
  }

  /** A value the version's meta says exists: its absence means a deleted version, so the batch stops. */
  async required(key: string): Promise<string> {
    const value = await this.one(key);
    if (value === null)
      throw new Error(`The live catalog is missing ${key}: it was deleted under this batch. Run again.`);
    return value;
  }
}

/**
 * Which version holds each entry of one kind (derived.ts): read from the base's map blocks,
 * changed where the batch writes, and written back as this version's for the blocks that changed.
 * The product list's table also counts each block's products.
 */
export class OwnerTable {
  readonly kind: MapKind;
  #size: number;
  readonly #mapOwners: number[];
  readonly #blocks = new Map<number, { owners: Uint8Array; counts: Uint16Array | null }>();
  readonly #changed = new Set<number>();
  /** The root's counts of a list block no batch has changed (the product list only). */
  readonly #rootCounts: ((entry: number) => number) | null;

  constructor(kind: MapKind, size: number, mapOwners: readonly number[], rootCounts?: (entry: number) => number) {
    this.kind = kind;
    this.#size = size;
    this.#mapOwners = [...mapOwners];
    this.#rootCounts = rootCounts ?? null;
  }

  get size(): number {
    return this.#size;
  }

  /** Loads the map blocks holding `entries` (every block when not given). */
  async load(reads: Reads, lineage: readonly string[], entries?: readonly number[]): Promise<void> {
    const blocks = entries
      ? [...new Set(entries.map((e) => Math.floor(e / MAP_BLOCK)))]
      : Array.from({ length: Math.ceil(this.#size / MAP_BLOCK) }, (_, b) => b);
    const wanted = blocks.filter((b) => !this.#blocks.has(b));
    const keys = wanted.map((b) => {
      const at = this.#mapOwners[b] ?? -1;
      return at < 0 ? null : derivedKeys.map(lineage[at] as string, this.kind, b);
    });
    const values = await reads.many(keys.filter((k): k is string => k !== null));
    let next = 0;
    wanted.forEach((b, i) => {
      const length = Math.min(MAP_BLOCK, Math.max(0, this.#size - b * MAP_BLOCK));
      if (keys[i] === null) {
        const counts = this.#rootCounts
          ? Uint16Array.from({ length }, (_, j) => (this.#rootCounts as (e: number) => number)(b * MAP_BLOCK + j))
          : null;
        this.#blocks.set(b, { owners: new Uint8Array(length), counts });
        return;
      }
      const text = values[next++];
      if (text === null || text === undefined)
        throw new Error(`A map block of the live catalog is missing (${keys[i]}).`);
      const stored = JSON.parse(text) as MapBlock;
      this.#blocks.set(b, {
        owners: decodeOwners(stored.o),
        counts: stored.n === undefined ? null : decodeCounts(stored.n),
      });
    });
  }

  #block(entry: number): { owners: Uint8Array; counts: Uint16Array | null } {
    const block = this.#blocks.get(Math.floor(entry / MAP_BLOCK));
    if (!block) throw new Error(`map block of ${this.kind} entry ${entry} used before it was loaded`);
    return block;
  }

  owner(entry: number): number {
    return this.#block(entry).owners[entry % MAP_BLOCK] ?? 0;
  }

  count(entry: number): number {
    if (entry >= this.#size) return 0;
    return this.#block(entry).counts?.[entry % MAP_BLOCK] ?? 0;
  }

  /** Entry `entry` is now `owner`'s (and holds `count` products: the product list). */
  set(entry: number, owner: number, count?: number): void {
    if (entry >= this.#size) this.#grow(entry + 1);
    const b = Math.floor(entry / MAP_BLOCK);
    const block = this.#block(entry);
    block.owners[entry % MAP_BLOCK] = owner;
    if (count !== undefined) {
      if (!block.counts) throw new Error(`${this.kind} keeps no counts`);
      block.counts[entry % MAP_BLOCK] = count;
    }
    this.#changed.add(b);
  }

  /** Grows the table to `size` entries (the product list, as products are appended). */
  #grow(size: number): void {
    for (let b = Math.max(0, Math.floor((this.#size - 1) / MAP_BLOCK)); b * MAP_BLOCK < size; b++) {
      const length = Math.min(MAP_BLOCK, size - b * MAP_BLOCK);
      const old = this.#blocks.get(b);
      if (old && old.owners.length >= length) continue;
      const owners = new Uint8Array(length);
      const counts = this.#rootCounts ? new Uint16Array(length) : null;
      if (old) {
        owners.set(old.owners);
        if (counts && old.counts) counts.set(old.counts);
      }
      this.#blocks.set(b, { owners, counts });
      this.#changed.add(b);
    }
    this.#size = size;
  }

  /** The map blocks' owners once `me` (a lineage index) wrote the changed ones. */
  mapOwners(me: number): number[] {
    const owners = Array.from({ length: Math.ceil(this.#size / MAP_BLOCK) }, (_, b) => this.#mapOwners[b] ?? -1);
    for (const b of this.#changed) owners[b] = me;
    return owners;
  }

  /** The changed map blocks, as `version`'s entries. */
  entries(version: string): KvEntry[] {
    return [...this.#changed].map((b) => {
      const block = this.#blocks.get(b) as { owners: Uint8Array; counts: Uint16Array | null };
      const value: MapBlock = {
        o: encodeOwners(block.owners),
        ...(block.counts ? { n: encodeCounts(block.counts) } : {}),
      };
      return { key: derivedKeys.map(version, this.kind, b), value: JSON.stringify(value) };
    });
  }
}

/** The derived part of a base version's meta: its own, or a full publish's seen as the root of a lineage. */
export function derivedOf(base: { version: string; products: number; derived?: DerivedMeta }): DerivedMeta {
  return (
    base.derived ?? {
      lineage: [base.version],
      maps: { ps: [], vs: [], cs: [], pl: [] },
      cols: -1,
      slots: base.products,
      root: base.products,
    }
  );
}
