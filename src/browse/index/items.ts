import { deflate, inflate } from "../deflate.ts";

/**
 * The pages' items: each product's list item and featured image JSON (UTF-8), as D1 gives them
 * (Items: one buffer), or as a snapshot carries them (PackedItems: deflated in blocks of
 * ITEM_BLOCK products). The items are half a snapshot's bytes (30 of 67 MiB at 100k) and ~11x
 * smaller deflated, and a page shows a few of them: so a new engine keeps them deflated (~2.6 MiB
 * at 100k) and inflates a block the first time a page shows one of its products, instead of
 * reading and inflating them all before its first answer.
 */

/** Product `p`'s list item JSON is `text[starts[2p] .. starts[2p + 1]]`, its featured image's the next range. */
export interface Items {
  text: Uint8Array;
  starts: Uint32Array;
}

/** Items deflated by block: block b (products b * ITEM_BLOCK ..) at `blocks[at[b] .. at[b + 1]]`, inflating to the text of Items.starts' range. */
export interface PackedItems {
  blocks: Uint8Array;
  at: Uint32Array;
  starts: Uint32Array;
}

/** Products per deflated block: ~20 KB of JSON inflated, ~2 KB deflated (generated catalog). */
export const ITEM_BLOCK = 64;

/** Items as the snapshot carries them (async: deflate is a stream). */
export async function packItems(items: Items): Promise<PackedItems> {
  const size = (items.starts.length - 1) / 2;
  const count = Math.ceil(size / ITEM_BLOCK);
  const parts: Uint8Array[] = [];
  const at = new Uint32Array(count + 1);
  for (let b = 0; b < count; b++) {
    const [from, to] = blockRange(items.starts, b);
    const part = await deflate(items.text.subarray(from, to));
    parts.push(part);
    at[b + 1] = (at[b] as number) + part.byteLength;
  }
  const blocks = new Uint8Array(at[count] as number);
  parts.forEach((p, b) => blocks.set(p, at[b] as number));
  return { blocks, at, starts: items.starts };
}

/** Block b's text range in Items.text (bytes). */
function blockRange(starts: Uint32Array, b: number): [number, number] {
  const last = starts.length - 1;
  return [
    starts[Math.min(last, b * ITEM_BLOCK * 2)] as number,
    starts[Math.min(last, (b + 1) * ITEM_BLOCK * 2)] as number,
  ];
}

export function isPacked(items: Items | PackedItems): items is PackedItems {
  return "blocks" in items;
}

const DECODER = new TextDecoder();

/**
 * An item block of a snapshot that does not inflate to its products' text: the engine answers from
 * D1 instead of failing every page that shows one of them. `blocks` is the deflated buffer it was
 * read from, so whoever loaded the snapshot can name the chunk (the index knows nothing of them).
 */
export class ItemBlockDamaged extends Error {
  readonly block: number;
  readonly blocks: Uint8Array;
  constructor(block: number, blocks: Uint8Array, reason: string) {
    super(reason);
    this.name = "ItemBlockDamaged";
    this.block = block;
    this.blocks = blocks;
  }
}

/**
 * The items' JSON texts by product: `ready(ids)` makes sure the blocks of `ids` are inflated
 * (kept inflated after, so each block is inflated once per engine), then `json(k)` reads one.
 */
export class ItemTexts {
  readonly #starts: Uint32Array;
  /** Inflated text by block (one block holding everything when unpacked). */
  readonly #texts: (Uint8Array | undefined)[];
  readonly #packed: PackedItems | null;
  readonly #pending = new Map<number, Promise<void>>();
  #inflated = 0;

  constructor(items: Items | PackedItems) {
    this.#starts = items.starts;
    if (isPacked(items)) {
      this.#packed = items;
      this.#texts = new Array(items.at.length - 1);
    } else {
      this.#packed = null;
      this.#texts = [items.text];
    }
  }

  /** Resolves once every block holding one of `ids` is inflated; null when nothing needs inflating. */
  ready(ids: readonly number[]): Promise<void> | null {
    if (!this.#packed) return null;
    const waits = new Map<number, Promise<void>>();
    for (const id of ids) {
      const b = Math.floor(id / ITEM_BLOCK);
      if (!this.#texts[b] && !waits.has(b)) waits.set(b, this.#inflate(b));
    }
    return waits.size === 0 ? null : Promise.all(waits.values()).then(() => undefined);
  }

  /** Block b inflated, once: pages asking for it meanwhile wait for the same inflation. */
  #inflate(b: number): Promise<void> {
    let pending = this.#pending.get(b);
    if (!pending) {
      const packed = this.#packed as PackedItems;
      const [from, to] = blockRange(this.#starts, b);
      pending = inflate([packed.blocks.subarray(packed.at[b], packed.at[b + 1])], to - from)
        .then(
          (text) => {
            this.#texts[b] = text;
            this.#inflated += text.byteLength;
          },
          (error: unknown) => {
            const reason = error instanceof Error ? error.message : "inflate failed";
            throw new ItemBlockDamaged(b, packed.blocks, reason);
          },
        )
        .finally(() => this.#pending.delete(b));
      this.#pending.set(b, pending);
    }
    return pending;
  }

  /** Text k (2p: product p's list item, 2p + 1: its featured image); its block must be ready. */
  json(k: number): string {
    const starts = this.#starts;
    if (!this.#packed) return DECODER.decode((this.#texts[0] as Uint8Array).subarray(starts[k], starts[k + 1]));
    const b = Math.floor(k / 2 / ITEM_BLOCK);
    const text = this.#texts[b];
    if (!text) throw new Error(`item block ${b} used before it was inflated`);
    const base = blockRange(starts, b)[0];
    return DECODER.decode(text.subarray((starts[k] as number) - base, (starts[k + 1] as number) - base));
  }

  /** Bytes held: the starts, the deflated blocks and the blocks inflated so far (or the whole text). */
  get bytes(): number {
    const p = this.#packed;
    if (!p) return (this.#texts[0] as Uint8Array).byteLength + this.#starts.byteLength;
    return this.#starts.byteLength + p.blocks.byteLength + p.at.byteLength + this.#inflated;
  }
}

/** Packed items inflated back into one buffer (what D1 gives): for tests and tools comparing the two. */
export async function unpackItems(items: PackedItems): Promise<Items> {
  const size = (items.starts.length - 1) / 2;
  const text = new Uint8Array(items.starts[size * 2] as number);
  for (let b = 0; b * ITEM_BLOCK < size; b++) {
    const [from, to] = blockRange(items.starts, b);
    text.set(await inflate([items.blocks.subarray(items.at[b], items.at[b + 1])], to - from), from);
  }
  return { text, starts: items.starts };
}

/** Strings packed as UTF-8 (string i at `text[starts[i] .. starts[i + 1]]`): a snapshot's handles, read one at a time instead of parsed as 100k JSON strings at start. */
export interface PackedStrings {
  text: Uint8Array;
  starts: Uint32Array;
}

export function packStrings(list: readonly string[]): PackedStrings {
  const encoder = new TextEncoder();
  const parts = list.map((s) => encoder.encode(s));
  const starts = new Uint32Array(list.length + 1);
  parts.forEach((p, i) => {
    starts[i + 1] = (starts[i] as number) + p.byteLength;
  });
  const text = new Uint8Array(starts[list.length] as number);
  parts.forEach((p, i) => text.set(p, starts[i] as number));
  return { text, starts };
}

/** String i of `strings` (a plain list, or packed). */
export function stringAt(strings: readonly string[] | PackedStrings, i: number): string {
  if (Array.isArray(strings)) return strings[i] as string;
  const { text, starts } = strings as PackedStrings;
  return DECODER.decode(text.subarray(starts[i], starts[i + 1]));
}

export function unpackStrings(strings: PackedStrings): string[] {
  return Array.from({ length: strings.starts.length - 1 }, (_, i) => stringAt(strings, i));
}
