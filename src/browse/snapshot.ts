import { deflate, inflate } from "./deflate.ts";
import type { BrowseData } from "./index/version-index.ts";
import type { ShardOf } from "./replies.ts";

/**
 * A version's browse index as one blob (R2, written at publish by src/publish/browse-index.ts),
 * so a new BrowseEngine is ready after one read instead of rebuilding from D1's rows (at 100k:
 * ~4 s from D1, figures in docs/operating.md, "Browse"). Layout, all little-endian:
 *
 *   "SFBX" | u32 format | u32 header bytes (deflated) | u32 parts bytes | header | pad to 8 | parts
 *
 * The header (UTF-8 JSON, deflate-raw: 3.4 MiB in 0.7 at 100k) is the BrowseData tree itself, by
 * name (`size`, `prices`, `words`, ...), with every typed array replaced by `{"$t": type, "o":
 * offset, "n": length}` into the parts that follow (8-byte aligned, so loading makes views of
 * the chunks read: no copy), every list of typed arrays (`postings`) by `{"$l": type, "o", "n"}` (starts, then the
 * elements), every Map by `{"$m": [[key, value], ...]}`; anything else stays JSON. So a part added
 * to BrowseData (or to the text index's WordPostings) is written and read back without touching
 * this file. The parts are stored as they are held, not deflated: at cold start inflating them
 * (or summing varint differences) cost more than reading them (figures in test/bench/README.md,
 * "Cold start"); the one part worth deflating, the items, comes deflated by block and stays so
 * until a page shows them (index/items.ts).
 *
 * A reader takes only its own SNAPSHOT_FORMAT (the key names it too: browseSnapshotKey); an older
 * publish's snapshot under another format is skipped and the engine reads D1 instead.
 */

/**
 * 1: header as JSON, items as text; 2: header deflated, items deflated by block (PackedItems),
 * chunks decoded without joining; 3: search word weights 16-bit (text.ts wordWeight: the fields'
 * weights outside the saturation), so an engine never scores a version's 8-bit weights as 16-bit ones;
 * 4: weights packed (text.ts packWeight: made at query time with the catalog's averages), each
 * product's title and description lengths, folded titles (issue 45).
 */
export const SNAPSHOT_FORMAT = 4;
const MAGIC = 0x58424653; // "SFBX" little-endian

/**
 * Where a version's snapshot (or its shard's: `<key>/s<shard>`, shards.ts) lives in the
 * BROWSE_SNAPSHOTS bucket: its manifest (JSON: bytes, chunks) at this key, the blob in chunks of at most SNAPSHOT_CHUNK bytes at `<key>/<n>`, cut
 * between parts (a part bigger than that, the word ids at 100k, is a chunk of its own). Chunks
 * keep every put small (Miniflare's binding proxy dropped a 47 MiB put under load; `wrangler r2
 * object put` takes at most 300 MiB) and each is a buffer the engine's views point into.
 */
export function browseSnapshotKey(version: string, of?: ShardOf): string {
  const key = `browse/v${SNAPSHOT_FORMAT}/${version}`;
  return of ? `${key}/s${of.shard}` : key;
}

export const SNAPSHOT_CHUNK = 8 * 2 ** 20;

/**
 * What the manifest at browseSnapshotKey says: the blob's size, its chunks, and each chunk's
 * SHA-256 (lower-case hex), checked before anything is decoded (issue 33: a chunk with its
 * prices reversed loaded and was served as truth). A manifest without them is not trusted.
 */
export interface SnapshotManifest {
  bytes: number;
  chunks: number;
  sha256?: string[];
}

/**
 * A snapshot that cannot be trusted: a chunk whose bytes are not the ones the manifest hashed, a
 * manifest without checksums, or an item block that fails to inflate. It names what the operator
 * needs to find it (the version, the shard, the chunk); the engine reads D1 instead.
 */
export class SnapshotDamaged extends Error {
  readonly version: string;
  readonly shard: number | null;
  readonly chunk: number | null;
  constructor(version: string, shard: number | null, chunk: number | null, reason: string) {
    super(reason);
    this.name = "SnapshotDamaged";
    this.version = version;
    this.shard = shard;
    this.chunk = chunk;
  }
}

/** Which stored chunk each part of a decoded snapshot is a view of, so a damaged item block can be traced to its chunk. */
const chunkOfPart = new WeakMap<object, number>();

/** The chunk (of the snapshot it was decoded from) that `part` is a view of; null for data from D1. */
export function snapshotChunkOf(part: object): number | null {
  return chunkOfPart.get(part) ?? null;
}

/** The version a snapshot key (manifest or chunk, any format) names, or null for another key. */
export function browseSnapshotVersion(key: string): string | null {
  return /^browse\/v\d+\/([A-Za-z0-9_-]+)(\/s\d+)?(\/\d+|\/overlay|\/batch)?$/.exec(key)?.[1] ?? null;
}

type Typed = Uint8Array | Uint16Array | Uint32Array | Int32Array | Float32Array | Float64Array;
const TYPES = {
  u8: Uint8Array,
  u16: Uint16Array,
  u32: Uint32Array,
  i32: Int32Array,
  f32: Float32Array,
  f64: Float64Array,
} as const;
type TypeName = keyof typeof TYPES;

function typeName(value: unknown): TypeName | null {
  for (const [name, ctor] of Object.entries(TYPES)) if (value instanceof ctor) return name as TypeName;
  return null;
}

const align = (n: number) => (n + 7) & ~7;

/**
 * Encodes `data` (any tree of typed arrays, lists of them, Maps and JSON values) as the chunks
 * to store, each its own buffer, none over `chunkBytes` unless one part is bigger.
 */
export async function encodeSnapshot(data: object, chunkBytes = SNAPSHOT_CHUNK): Promise<Uint8Array[]> {
  const parts: [at: number, bytes: Uint8Array][] = [];
  let end = 0;
  const place = (bytes: Uint8Array): number => {
    const at = end;
    parts.push([at, bytes]);
    end = align(at + bytes.byteLength);
    return at;
  };
  const view = (t: Typed) => new Uint8Array(t.buffer, t.byteOffset, t.byteLength);
  const walk = (value: unknown): unknown => {
    const type = typeName(value);
    if (type) {
      return { $t: type, o: place(view(value as Typed)), n: (value as Typed).length };
    }
    if (value instanceof Map) return { $m: [...value].map(([k, v]) => [k, walk(v)]) };
    if (Array.isArray(value)) {
      const listType = value.length > 0 ? typeName(value[0]) : null;
      if (listType && value.every((v) => v instanceof TYPES[listType])) {
        const starts = new Uint32Array(value.length + 1);
        value.forEach((v: Typed, i) => {
          starts[i + 1] = (starts[i] as number) + v.length;
        });
        const at = place(view(starts));
        for (const v of value as Typed[]) place(view(v));
        return { $l: listType, o: at, n: value.length };
      }
      return value.map(walk);
    }
    if (value !== null && typeof value === "object")
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v)]));
    return value;
  };
  const tree = walk(data);
  const header = await deflate(new TextEncoder().encode(JSON.stringify({ format: SNAPSHOT_FORMAT, data: tree })));
  // Chunk 0: the prefix and header, padded so the parts start 8-aligned. A new chunk starts at a
  // part that would take the current one past `chunkBytes`, so no part straddles two chunks (a
  // part bigger than that is a chunk of its own).
  const base = align(16 + header.byteLength);
  const cuts = [0];
  for (const [at, bytes] of parts) {
    const start = base + at;
    const current = cuts.at(-1) as number;
    if (start > current && start + bytes.byteLength - current > chunkBytes) cuts.push(start);
  }
  cuts.push(base + end);
  const chunks = cuts.slice(1).map((to, i) => new Uint8Array(to - (cuts[i] as number)));
  const first = chunks[0] as Uint8Array;
  const head = new DataView(first.buffer);
  head.setUint32(0, MAGIC, true);
  head.setUint32(4, SNAPSHOT_FORMAT, true);
  head.setUint32(8, header.byteLength, true);
  head.setUint32(12, end, true);
  first.set(header, 16);
  let c = 0;
  for (const [at, bytes] of parts) {
    const start = base + at;
    while (start >= (cuts[c + 1] as number) && c < chunks.length - 1) c++;
    (chunks[c] as Uint8Array).set(bytes, start - (cuts[c] as number));
  }
  return chunks;
}

/** The bytes `from .. to` of the blob stored as `chunks` (one after another), as views of them. */
function slices(chunks: readonly Uint8Array[], from: number, to: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  let at = 0;
  for (const chunk of chunks) {
    const lo = Math.max(from, at);
    const hi = Math.min(to, at + chunk.byteLength);
    if (lo < hi) out.push(chunk.subarray(lo - at, hi - at));
    at += chunk.byteLength;
  }
  return out;
}

/**
 * The tree encodeSnapshot wrote, its typed arrays as views of the chunks' own buffers (no copy,
 * no buffer the size of the index allocated: at 100k, allocating and filling one cost ~200 ms of
 * a cold start). `chunks` are the stored chunks in order (one buffer is a blob of one chunk).
 * Throws on another format or a damaged blob.
 */
export async function decodeSnapshot(chunks: readonly Uint8Array[]): Promise<unknown> {
  const total = chunks.reduce((n, c) => n + c.byteLength, 0);
  if (total < 16) throw new Error("not a browse snapshot");
  const prefix = new Uint8Array(16);
  let filled = 0;
  for (const piece of slices(chunks, 0, 16)) {
    prefix.set(piece, filled);
    filled += piece.byteLength;
  }
  const head = new DataView(prefix.buffer);
  if (head.getUint32(0, true) !== MAGIC) throw new Error("not a browse snapshot");
  const format = head.getUint32(4, true);
  if (format !== SNAPSHOT_FORMAT)
    throw new Error(`browse snapshot format ${format}, this reader takes ${SNAPSHOT_FORMAT}`);
  const headerBytes = head.getUint32(8, true);
  const partBytes = head.getUint32(12, true);
  const base = align(16 + headerBytes);
  if (base + partBytes !== total) throw new Error("browse snapshot out of range (truncated or padded)");
  let headerText: Uint8Array;
  try {
    headerText = await inflate(slices(chunks, 16, 16 + headerBytes));
  } catch {
    throw new Error("browse snapshot header out of range (damaged or truncated)");
  }
  const { data } = JSON.parse(new TextDecoder().decode(headerText)) as { data: unknown };
  // Where each chunk starts in the blob; a part is a view of the one chunk holding it.
  const starts: number[] = [];
  let at = 0;
  for (const chunk of chunks) {
    starts.push(at);
    at += chunk.byteLength;
  }
  let c = 0;
  const typed = (type: TypeName, at: number, n: number): Typed => {
    const ctor = TYPES[type];
    if (!ctor || at + n * ctor.BYTES_PER_ELEMENT > partBytes) throw new Error("browse snapshot part out of range");
    if (n === 0) return new ctor(0);
    const from = base + at;
    // Parts come mostly in blob order: look from the last chunk found.
    if (from < (starts[c] as number)) c = 0;
    while (c + 1 < chunks.length && from >= (starts[c + 1] as number)) c++;
    const chunk = chunks[c] as Uint8Array;
    const offset = chunk.byteOffset + from - (starts[c] as number);
    if (from + n * ctor.BYTES_PER_ELEMENT > (starts[c] as number) + chunk.byteLength || offset % ctor.BYTES_PER_ELEMENT)
      throw new Error("browse snapshot part out of range (across chunks or unaligned)");
    const part = new ctor(chunk.buffer as ArrayBuffer, offset, n);
    chunkOfPart.set(part, c);
    return part;
  };
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.length > 0 && typeof value[0] !== "object" ? value : value.map(walk);
    if (value === null || typeof value !== "object") return value;
    const node = value as Record<string, unknown>;
    if (typeof node.$t === "string") return typed(node.$t as TypeName, node.o as number, node.n as number);
    if (typeof node.$l === "string") {
      const starts = typed("u32", node.o as number, (node.n as number) + 1) as Uint32Array;
      const size = TYPES[node.$l as TypeName].BYTES_PER_ELEMENT;
      let at = align((node.o as number) + starts.byteLength);
      return Array.from({ length: node.n as number }, (_, i) => {
        const n = (starts[i + 1] as number) - (starts[i] as number);
        const list = typed(node.$l as TypeName, at, n);
        at = align(at + n * size);
        return list;
      });
    }
    if (Array.isArray(node.$m)) return new Map((node.$m as [string, unknown][]).map(([k, v]) => [k, walk(v)]));
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v)]));
  };
  return walk(data);
}

/** The parts every BrowseData has; a snapshot missing one is refused (the engine then reads D1). */
const REQUIRED: readonly (keyof BrowseData)[] = [
  "size",
  "values",
  "postings",
  "options",
  "prices",
  "created",
  "titles",
  "handles",
  "items",
  "collections",
  "words",
];

/** A version's BrowseData from its snapshot's chunks. */
export async function browseDataFromSnapshot(chunks: readonly Uint8Array[]): Promise<BrowseData> {
  const data = (await decodeSnapshot(chunks)) as Partial<BrowseData> | null;
  const missing = REQUIRED.find((k) => data?.[k] === undefined);
  if (missing) throw new Error(`browse snapshot lacks its "${missing}" part`);
  return data as BrowseData;
}
