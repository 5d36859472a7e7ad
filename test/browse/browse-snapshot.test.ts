import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { parseBrowseFacets, parseBrowsePage } from "../../src/browse/query.ts";
import {
  browseDataFromSnapshot,
  browseSnapshotKey,
  decodeSnapshot,
  encodeSnapshot,
  SNAPSHOT_CHUNK,
  SNAPSHOT_FORMAT,
} from "../../src/browse/snapshot.ts";
import {
  ITEM_BLOCK,
  type Items,
  isPacked,
  type PackedItems,
  type PackedStrings,
  unpackItems,
  unpackStrings,
} from "../../src/browse/index/items.ts";
import { BrowseStore, readBrowseData, readBrowseIndex, readSnapshot } from "../../src/browse/source.ts";
import { CatalogStore } from "../../src/catalog/store.ts";
import { type BrowseData, VersionIndex } from "../../src/browse/index/version-index.ts";
import { d1Target, dropStaleBrowse, r2Snapshots, writeChunks } from "../../src/publish/browse-index.ts";
import { generateCatalog } from "../../src/publish/generate.ts";
import { publishCatalog, rollbackCatalog } from "../../src/publish/publish.ts";
import { shardRange } from "../../src/browse/shards.ts";
import { cutShard } from "./shard-model.ts";

/**
 * The browse snapshot (src/browse/snapshot.ts): what one publish writes to R2 is, part
 * for part, what the engine would read out of that publish's D1 index, and answers the same;
 * the format carries parts by name (a part added later round-trips untouched), refuses another
 * format, and a missing or damaged blob falls back to D1. Stale versions' snapshots go with
 * their tables; a rollback's stays.
 */
const catalog = generateCatalog({ products: 3_000 });
const store = new BrowseStore(env.BROWSE);
let version = "";

async function snapshotOf(v: string): Promise<Uint8Array[]> {
  const chunks = await readSnapshot(env.BROWSE_SNAPSHOTS, v);
  if (!chunks) throw new Error(`no snapshot for ${v}`);
  return chunks;
}

/** `n` u32s that deflate cannot shrink (xorshift), so a blob of them keeps its size in R2. */
function noise(n: number): Uint32Array {
  const out = new Uint32Array(n);
  let x = 2463534242;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x >>> 0;
  }
  return out;
}

/** Every page of `query` (limit 250), following the cursor: each product once, so every item block is shown. */
async function walk(index: VersionIndex, query: string): Promise<string[]> {
  const pages: string[] = [];
  let after: string | undefined;
  for (;;) {
    const params = new URLSearchParams(query);
    params.set("limit", "250");
    if (after) params.set("starting_after", after);
    const page = await index.page({}, parseBrowsePage(params));
    pages.push(page);
    const body = JSON.parse(page) as { data: { handle: string }[]; has_more: boolean };
    if (!body.has_more) return pages;
    after = body.data.at(-1)?.handle;
  }
}

beforeAll(async () => {
  version = (await publishCatalog(env.CATALOG, catalog, { browse: d1Target(env.BROWSE, env.BROWSE_SNAPSHOTS) }))
    .version;
}, 120_000);

describe("a publish's snapshot", () => {
  it("rebuilds exactly the BrowseData the engine reads from D1", async () => {
    const fromD1 = await readBrowseData(store, version);
    const fromSnapshot = await browseDataFromSnapshot(await snapshotOf(version));
    expect(fromSnapshot.size).toBe(catalog.products.length);
    // Typed arrays compared by type and element, Maps by entry, every named part; plus the derived
    // parts, exactly as an index built from the D1 data derives them. The items come deflated by
    // block (format 2): inflated, byte for byte D1's.
    const { built, items, handles, titleKeys, ...parts } = fromSnapshot;
    const { items: d1Items, handles: d1Handles, titleKeys: d1TitleKeys, ...d1Parts } = fromD1;
    expect(Object.keys(fromSnapshot).sort()).toEqual([...Object.keys(fromD1), "built"].sort());
    expect(parts).toEqual(d1Parts);
    expect(isPacked(items)).toBe(true);
    expect(await unpackItems(items as PackedItems)).toEqual(d1Items);
    // The handles as UTF-8 (format 2): the same strings.
    expect(Array.isArray(handles)).toBe(false);
    expect(unpackStrings(handles as PackedStrings)).toEqual(d1Handles);
    // The folded titles too (format 4).
    expect(unpackStrings(titleKeys as PackedStrings)).toEqual(d1TitleKeys);
    expect(built).toEqual(new VersionIndex(fromD1).built);
  });

  it("answers every query as the D1-built index does", async () => {
    const a = new VersionIndex(await readBrowseData(store, version));
    const b = new VersionIndex(await browseDataFromSnapshot(await snapshotOf(version)));
    const collection = catalog.collections[0]?.handle ?? "";
    const pages = [
      "sort=price_asc&limit=50",
      "q=tee&limit=20",
      "vendor=Saltmarsh Supply&tag=new&sort=newest",
      "available=true&sort=title_desc&limit=100",
      "price_min=2000&price_max=6000&sort=price_desc",
    ];
    for (const query of pages) {
      expect(await b.page({}, parseBrowsePage(new URLSearchParams(query)))).toBe(
        await a.page({}, parseBrowsePage(new URLSearchParams(query))),
      );
      expect(await b.page({ collection }, parseBrowsePage(new URLSearchParams(query)))).toBe(
        await a.page({ collection }, parseBrowsePage(new URLSearchParams(query))),
      );
    }
    for (const query of ["", "tag=new&option.size=M", "q=washed", "vendor=Saltmarsh Supply&available=true"]) {
      expect(b.facets({}, parseBrowseFacets(new URLSearchParams(query)))).toBe(
        a.facets({}, parseBrowseFacets(new URLSearchParams(query))),
      );
    }
    // Every page of every product, with images: every item block inflated, each text as D1's.
    expect(await walk(b, "sort=price_desc&include=image")).toEqual(await walk(a, "sort=price_desc&include=image"));
  });

  it("keeps items deflated until a page shows them, then holds the D1-built bytes plus the blocks", async () => {
    const a = new VersionIndex(await readBrowseData(store, version));
    const data = await browseDataFromSnapshot(await snapshotOf(version));
    const b = new VersionIndex(data);
    const { blocks, at } = data.items as PackedItems;
    const d1Items = (await readBrowseData(store, version)).items as Items;
    // New: the text of no item yet, only the deflated blocks (under a fifth of the text's size).
    expect(blocks.byteLength * 5).toBeLessThan(d1Items.text.byteLength);
    expect(b.bytes).toBe(a.bytes - d1Items.text.byteLength + blocks.byteLength + at.byteLength);
    // One page of 20 in catalog order: its products' blocks only (20 products: one block or two).
    await b.page({}, parseBrowsePage(new URLSearchParams("limit=20")));
    expect(b.bytes - (a.bytes - d1Items.text.byteLength + blocks.byteLength + at.byteLength)).toBeLessThanOrEqual(
      d1Items.starts[2 * 2 * ITEM_BLOCK] as number,
    );
    // Every page: every block, once.
    await walk(b, "");
    expect(b.bytes).toBe(a.bytes + blocks.byteLength + at.byteLength);
  });

  it("is what the engine loads, in one read, with no D1 statement", async () => {
    let statements = 0;
    const counting = {
      batch: (s: Parameters<BrowseStore["batch"]>[0]) => ((statements += s.length), store.batch(s)),
    } as BrowseStore;
    const { source } = await readBrowseIndex(counting, env.BROWSE_SNAPSHOTS, version);
    expect(source.from).toBe("snapshot");
    expect(source.bytes).toBe((await snapshotOf(version)).reduce((n, c) => n + c.byteLength, 0));
    expect(statements).toBe(0);
  });
});

describe("the snapshot format", () => {
  it("carries any named part: typed arrays of every kind, lists of them, Maps, JSON", async () => {
    const tree = {
      size: 3,
      words: {
        words: ["a", "b"],
        title: { starts: Uint32Array.of(0, 1, 2), ids: Uint32Array.of(2, 0) },
        rank: Float32Array.of(0.5, 1.25),
      },
      lists: [Uint16Array.of(1, 2, 3), Uint16Array.of(), Uint16Array.of(9)],
      signed: Int32Array.of(-1, 7),
      bytes: Uint8Array.of(1, 2, 3),
      prices: Float64Array.of(Number.NaN, 1.5, -0),
      byName: new Map([["x", { title: "X", members: Uint32Array.of(1, 2) }]]),
      rows: [{ f: "tag", k: "new", d: "New" }],
    };
    expect(await decodeSnapshot(await encodeSnapshot(tree))).toEqual(tree);
    // In chunks of at most 16 bytes (cut between parts, a bigger part alone): the same tree, every
    // typed array a view of its chunk's own buffer (no copy).
    const chunks = await encodeSnapshot(tree, 16);
    expect(chunks.length).toBeGreaterThan(5);
    const decoded = (await decodeSnapshot(chunks)) as typeof tree;
    expect(decoded).toEqual(tree);
    expect(chunks.map((c) => c.buffer)).toContain(decoded.prices.buffer);
    expect(chunks.map((c) => c.buffer)).toContain(decoded.byName.get("x")?.members.buffer);
    // Joined into one buffer, it is a snapshot of one chunk; cut inside a part, it is refused.
    const whole = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
    chunks.reduce((at, c) => (whole.set(c, at), at + c.byteLength), 0);
    expect(await decodeSnapshot([whole])).toEqual(tree);
    const cut = (chunks[0] as Uint8Array).byteLength + 4;
    await expect(decodeSnapshot([whole.slice(0, cut), whole.slice(cut)])).rejects.toThrow(/across chunks/);
  });

  it("refuses another format or a damaged blob", async () => {
    const bytes = await encodeSnapshot({ size: 1 });
    const other = (bytes[0] as Uint8Array).slice();
    new DataView(other.buffer).setUint32(4, SNAPSHOT_FORMAT + 1, true);
    await expect(decodeSnapshot([other])).rejects.toThrow(/format/);
    await expect(decodeSnapshot([new Uint8Array(8)])).rejects.toThrow(/not a browse snapshot/);
    const [full = new Uint8Array()] = await encodeSnapshot({ ids: noise(100) });
    await expect(decodeSnapshot([full.slice(0, full.byteLength - 40)])).rejects.toThrow(/out of range/);
    const flipped = full.slice();
    flipped.fill(0xff, 16, 40);
    await expect(decodeSnapshot([flipped])).rejects.toThrow(/out of range|header/);
    await expect(browseDataFromSnapshot(bytes)).rejects.toThrow(/lacks its "values" part/);
  });

  it("is stored in chunks under a manifest, read back whole", async () => {
    // Two parts of 5 MiB: the second would take the first chunk past SNAPSHOT_CHUNK, so it starts the next.
    const small = await encodeSnapshot({ size: 1, a: noise(1.25 * 2 ** 20), b: noise(1.25 * 2 ** 20) });
    const target = r2Snapshots(env.BROWSE, env.BROWSE_SNAPSHOTS);
    // Through writeBrowseSnapshot's own writer: each chunk an object, then the manifest.
    const chunks: string[] = [];
    await writeChunks(
      { ...target, put: async (key, bytes) => (chunks.push(key), target.put(key, bytes)) },
      "chunked",
      small,
    );
    const key = browseSnapshotKey("chunked");
    expect(key).toBe(`browse/v${SNAPSHOT_FORMAT}/chunked`);
    expect(chunks).toEqual([`${key}/0`, `${key}/1`, key]);
    const back = (await readSnapshot(env.BROWSE_SNAPSHOTS, "chunked")) ?? [];
    expect(back.map((c) => c.byteLength)).toEqual(small.map((c) => c.byteLength));
    for (const c of back) expect(c.byteLength).toBeLessThanOrEqual(SNAPSHOT_CHUNK);
    expect(await decodeSnapshot(back)).toEqual(await decodeSnapshot(small));
    await env.BROWSE_SNAPSHOTS.delete(`${key}/1`);
    expect(await readSnapshot(env.BROWSE_SNAPSHOTS, "chunked")).toBeNull();
    await env.BROWSE_SNAPSHOTS.delete([key, `${key}/0`]);
  }, 120_000);

  it("falls back to D1 when the blob is missing or damaged", async () => {
    const missing = { get: async () => null };
    expect((await readBrowseIndex(store, missing, version)).source.from).toBe("d1");
    const damaged = { get: async () => ({ arrayBuffer: async () => new Uint8Array(40).buffer }) };
    const { data, source } = await readBrowseIndex(store, damaged, version);
    expect(source.from).toBe("d1");
    expect(data).toEqual((await readBrowseData(store, version)) satisfies BrowseData);
  });
});

describe("snapshots across publishes", () => {
  it("drops stale versions' snapshots with their tables, keeps the kept ones', and a rollback loads its own", async () => {
    const second = await publishCatalog(env.CATALOG, generateCatalog({ products: 300, seed: 2 }), {
      browse: d1Target(env.BROWSE, env.BROWSE_SNAPSHOTS),
    });
    const third = await publishCatalog(env.CATALOG, generateCatalog({ products: 200, seed: 3 }), {
      browse: d1Target(env.BROWSE, env.BROWSE_SNAPSHOTS),
    });
    // Publish keeps what its cleanup policy keeps (publish.ts); dropping by the same list removes the rest.
    await dropStaleBrowse(d1Target(env.BROWSE, env.BROWSE_SNAPSHOTS), [second.version, third.version]);
    const keys = (await env.BROWSE_SNAPSHOTS.list({ prefix: "browse/" })).objects.map((o) => o.key);
    const kept = [browseSnapshotKey(second.version), browseSnapshotKey(third.version)];
    // Each kept version's manifest and its chunks; nothing of the first version.
    expect(keys.filter((k) => !/\/\d+$/.test(k)).sort()).toEqual(kept.sort());
    for (const key of keys)
      expect(
        kept.some((k) => key === k || key.startsWith(`${k}/`)),
        key,
      ).toBe(true);
    await rollbackCatalog(env.CATALOG);
    const meta = await new CatalogStore(env.CATALOG).currentMeta();
    expect(meta?.version).toBe(second.version);
    const { data, source } = await readBrowseIndex(store, env.BROWSE_SNAPSHOTS, second.version);
    expect(source.from).toBe("snapshot");
    expect(data.size).toBe(300);
  }, 60_000);
});

describe("a sharded publish's snapshots", () => {
  it("are, shard by shard, the whole D1 index cut in memory, as is the shard an engine without them reads from D1, and go with their version", async () => {
    const small = generateCatalog({ products: 1_000, seed: 4 });
    const { version: sharded } = await publishCatalog(env.CATALOG, small, {
      browse: d1Target(env.BROWSE, env.BROWSE_SNAPSHOTS),
      shardProducts: 300,
    });
    const whole = await readBrowseData(store, sharded);
    let products = 0;
    for (let shard = 0; shard < 4; shard++) {
      const of = { shard, shards: 4 };
      const cut = cutShard(whole, of);
      const { data, source } = await readBrowseIndex(store, env.BROWSE_SNAPSHOTS, sharded, of);
      expect(source.from).toBe("snapshot");
      const { built, items, handles, titleKeys, ...parts } = data;
      const { items: cutItems, handles: cutHandles, titleKeys: cutTitleKeys, ...cutParts } = cut;
      expect(parts).toEqual(cutParts);
      expect(await unpackItems(items as PackedItems)).toEqual({
        text: Uint8Array.from((cutItems as Items).text),
        starts: (cutItems as Items).starts,
      });
      expect(unpackStrings(handles as PackedStrings)).toEqual(cutHandles);
      expect(unpackStrings(titleKeys as PackedStrings)).toEqual(cutTitleKeys);
      expect(built).toEqual(new VersionIndex(cut).built);
      // Without its snapshot, the engine reads the same shard out of D1.
      const fallback = await readBrowseIndex(store, { get: async () => null }, sharded, of);
      expect(fallback.source.from).toBe("d1");
      expect(fallback.data).toEqual(cut);
      products += data.size;
      expect(data.shard).toEqual({ offset: shardRange(1_000, of)[0], products: 1_000 });
    }
    expect(products).toBe(1_000);
    // A later publish's cleanup takes the shards' snapshots with their version.
    const next = await publishCatalog(env.CATALOG, generateCatalog({ products: 100, seed: 5 }), {
      browse: d1Target(env.BROWSE, env.BROWSE_SNAPSHOTS),
    });
    await dropStaleBrowse(d1Target(env.BROWSE, env.BROWSE_SNAPSHOTS), [next.version]);
    const left = (await env.BROWSE_SNAPSHOTS.list({ prefix: browseSnapshotKey(sharded) })).objects;
    expect(left.map((o) => o.key)).toEqual([]);
  }, 120_000);
});
