import {
  type DerivedMeta,
  decodeOwners,
  derivedKeys,
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
 */
export class OwnerTable {
  readonly kind: MapKind;
  readonly #size: number;
  readonly #mapOwners: number[];
  readonly #blocks = new Map<number, Uint8Array>();
  readonly #changed = new Set<number>();

  constructor(kind: MapKind, size: number, mapOwners: readonly number[]) {
    this.kind = kind;
    this.#size = size;
    this.#mapOwners = [...mapOwners];
  }

  /** Loads the map blocks holding `entries`. */
  async load(reads: Reads, lineage: readonly string[], entries: readonly number[]): Promise<void> {
    const wanted = [...new Set(entries.map((e) => Math.floor(e / MAP_BLOCK)))].filter((b) => !this.#blocks.has(b));
    const keys = wanted.map((b) => {
      const at = this.#mapOwners[b] ?? -1;
      return at < 0 ? null : derivedKeys.map(lineage[at] as string, this.kind, b);
    });
    const values = await reads.many(keys.filter((k): k is string => k !== null));
    let next = 0;
    wanted.forEach((b, i) => {
      if (keys[i] === null) {
        this.#blocks.set(b, new Uint8Array(Math.min(MAP_BLOCK, Math.max(0, this.#size - b * MAP_BLOCK))));
        return;
      }
      const text = values[next++];
      if (text === null || text === undefined)
        throw new Error(`A map block of the live catalog is missing (${keys[i]}).`);
      this.#blocks.set(b, decodeOwners((JSON.parse(text) as MapBlock).o));
    });
  }

  #block(entry: number): Uint8Array {
    const block = this.#blocks.get(Math.floor(entry / MAP_BLOCK));
    if (!block) throw new Error(`map block of ${this.kind} entry ${entry} used before it was loaded`);
    return block;
  }

  owner(entry: number): number {
    return this.#block(entry)[entry % MAP_BLOCK] ?? 0;
  }

  /** Entry `entry` is now `owner`'s. */
  set(entry: number, owner: number): void {
    this.#block(entry)[entry % MAP_BLOCK] = owner;
    this.#changed.add(Math.floor(entry / MAP_BLOCK));
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
      const value: MapBlock = { o: encodeOwners(this.#blocks.get(b) as Uint8Array) };
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
