/**
 * A block of a collection's slots (derived.ts): its plain lines as a batch that upserts the
 * collection writes them (a full publish's chunks also hold at least LIST_BLOCK lines after the
 * block's own, and an image series beside them; a batch's hold the block's plain lines alone).
 * A batch's version answers its lists from its browse index; these chunks tell later batches who
 * the collection's members are.
 */
export interface BlockLines {
  /** Plain lines in slot order; `handles` at the same places. */
  plain: string[];
  handles: string[];
}

/** The handle a list line shows (`"handle":"..."`). */
export function handleOfLine(line: string): string {
  const start = line.indexOf('"handle":"') + 10;
  return line.slice(start, line.indexOf('"', start));
}
