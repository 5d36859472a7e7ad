import { LIST_BLOCK } from "../../catalog/derived.ts";

/**
 * A list cut into blocks of slots (derived.ts): the product list, or one collection's products.
 * Each nonempty block's chunk holds the block's lines and then at least LIST_BLOCK lines after
 * them; a change to a block rewrites its chunk and the chunks of the blocks before it whose
 * lines after reach into it (at most LIST_BLOCK lines' worth of blocks), so a change costs a few
 * chunks whatever the list's length. Two series are kept side by side: the plain lines and the
 * lines with the featured image.
 */
export interface BlockLines {
  /** Plain lines and lines with the image, in slot order; `handles` at the same places. */
  plain: string[];
  image: string[];
  handles: string[];
}

export interface BlockedList {
  /** Each block's product count, before the batch. */
  counts(block: number): number;
  blocks(): number;
  /** A block's lines as its chunk holds them (the first counts(block) lines of each series). */
  read(block: number): Promise<BlockLines>;
}

/** The handle a list line shows (`"handle":"..."`). */
export function handleOfLine(line: string): string {
  const start = line.indexOf('"handle":"') + 10;
  return line.slice(start, line.indexOf('"', start));
}

/**
 * The blocks whose chunks a change to `touched` rewrites: those blocks and every nonempty block
 * before one whose lines after reach into it, counted by the smaller of each block's count
 * before and after (a chunk written before held the old lines; one written now holds the new).
 */
export function chunksToWrite(
  touched: Iterable<number>,
  before: (block: number) => number,
  after: (block: number) => number,
): number[] {
  const out = new Set<number>();
  for (const t of touched) {
    out.add(t);
    let between = 0;
    for (let b = t - 1; b >= 0 && between < LIST_BLOCK; b--) {
      const least = Math.min(before(b), after(b));
      if (Math.max(before(b), after(b)) > 0) out.add(b);
      between += least;
    }
  }
  return [...out].sort((a, b) => a - b);
}

/**
 * The chunks of `write` (block indexes) given every block's lines after the change (`lines`,
 * reading unchanged blocks as needed): the block's lines, then the lines of the blocks after it
 * until LIST_BLOCK more are there. An empty block has no chunk (no page starts in it).
 */
export async function chunkTexts(
  write: readonly number[],
  blocks: number,
  lines: (block: number) => Promise<BlockLines>,
): Promise<Map<number, { plain: string; image: string }>> {
  const out = new Map<number, { plain: string; image: string }>();
  for (const b of write) {
    const own = await lines(b);
    if (own.plain.length === 0) continue;
    const plain = [...own.plain];
    const image = [...own.image];
    let ahead = 0;
    for (let next = b + 1; next < blocks && ahead < LIST_BLOCK; next++) {
      const more = await lines(next);
      const take = Math.min(more.plain.length, LIST_BLOCK - ahead);
      plain.push(...more.plain.slice(0, take));
      image.push(...more.image.slice(0, take));
      ahead += take;
    }
    out.set(b, { plain: plain.join("\n"), image: image.join("\n") });
  }
  return out;
}
