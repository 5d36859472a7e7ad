import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { parseBrowseFacets, parseBrowsePage } from "../../src/browse/query.ts";
import {
  browseDataFromSnapshot,
  browseSnapshotKey,
  decodeSnapshot,
  encodeSnapshot,
  SNAPSHOT_FORMAT,
} from "../../src/browse/snapshot.ts";
import { BrowseStore, readBrowseData, readBrowseIndex, readSnapshot } from "../../src/browse/source.ts";
import { CatalogStore } from "../../src/catalog/store.ts";
import { type BrowseData, VersionIndex } from "../../src/browse/index/version-index.ts";
import { d1Target, dropStaleBrowse, r2Snapshots, writeChunks } from "../../src/publish/browse-index.ts";
import { generateCatalog } from "../../src/publish/generate.ts";
import { publishCatalog, rollbackCatalog } from "../../src/publish/publish.ts";

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

async function snapshotOf(v: string): Promise<ArrayBuffer> {
  const buffer = await readSnapshot(env.BROWSE_SNAPSHOTS, v);
  if (!buffer) throw new Error(`no snapshot for ${v}`);
  return buffer;
}

beforeAll(async () => {
  version = (await publishCatalog(env.CATALOG, catalog, { browse: d1Target(env.BROWSE, env.BROWSE_SNAPSHOTS) }))
    .version;
}, 120_000);

describe("a publish's snapshot", () => {
  it("rebuilds exactly the BrowseData the engine reads from D1", async () => {
    const fromD1 = await readBrowseData(store, version);
    const fromSnapshot = browseDataFromSnapshot(await snapshotOf(version));
    expect(fromSnapshot.size).toBe(catalog.products.length);
    // Typed arrays compared by type and element, Maps by entry, every named part; plus the derived
    // parts, exactly as an index built from the D1 data derives them.
    const { built, ...parts } = fromSnapshot;
    expect(Object.keys(parts).sort()).toEqual(Object.keys(fromD1).sort());
    expect(parts).toEqual(fromD1);
    expect(built).toEqual(new VersionIndex(fromD1).built);
  });

  it("answers every query as the D1-built index does", async () => {
    const a = new VersionIndex(await readBrowseData(store, version));
    const b = new VersionIndex(browseDataFromSnapshot(await snapshotOf(version)));
    const collection = catalog.collections[0]?.handle ?? "";
    const pages = [
      "sort=price_asc&limit=50",
      "q=tee&limit=20",
      "vendor=Saltmarsh Supply&tag=new&sort=newest",
      "available=true&sort=title_desc&limit=100",
      "price_min=2000&price_max=6000&sort=price_desc",
    ];
    for (const query of pages) {
      expect(b.page({}, parseBrowsePage(new URLSearchParams(query)))).toBe(
        a.page({}, parseBrowsePage(new URLSearchParams(query))),
      );
      expect(b.page({ collection }, parseBrowsePage(new URLSearchParams(query)))).toBe(
        a.page({ collection }, parseBrowsePage(new URLSearchParams(query))),
      );
    }
    for (const query of ["", "tag=new&option.size=M", "q=washed", "vendor=Saltmarsh Supply&available=true"]) {
      expect(b.facets({}, parseBrowseFacets(new URLSearchParams(query)))).toBe(
        a.facets({}, parseBrowseFacets(new URLSearchParams(query))),
      );
    }
    expect(b.bytes).toBe(a.bytes);
  });

  it("is what the engine loads, in one read, with no D1 statement", async () => {
    let statements = 0;
    const counting = {
      batch: (s: Parameters<BrowseStore["batch"]>[0]) => ((statements += s.length), store.batch(s)),
    } as BrowseStore;
    const { source } = await readBrowseIndex(counting, env.BROWSE_SNAPSHOTS, version);
    expect(source.from).toBe("snapshot");
    expect(source.bytes).toBe((await snapshotOf(version)).byteLength);
    expect(statements).toBe(0);
  });
});

describe("the snapshot format", () => {
  it("carries any named part: typed arrays of every kind, lists of them, Maps, JSON", () => {
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
    const decoded = decodeSnapshot(encodeSnapshot(tree).slice().buffer);
    expect(decoded).toEqual(tree);
  });

  it("refuses another format or a damaged blob", () => {
    const bytes = encodeSnapshot({ size: 1 });
    const other = bytes.slice();
    new DataView(other.buffer).setUint32(4, SNAPSHOT_FORMAT + 1, true);
    expect(() => decodeSnapshot(other.buffer)).toThrow(/format/);
    expect(() => decodeSnapshot(new Uint8Array(8).buffer)).toThrow(/not a browse snapshot/);
    const truncated = encodeSnapshot({ ids: new Uint32Array(100) }).slice(0, 64);
    expect(() => decodeSnapshot(truncated.buffer)).toThrow(/out of range/);
    expect(() => browseDataFromSnapshot(bytes.slice().buffer)).toThrow(/lacks its "values" part/);
  });

  it("is stored in chunks under a manifest, read back whole", async () => {
    const small = encodeSnapshot({ size: 1, ids: new Uint32Array(2.25 * 2 ** 20) });
    const target = r2Snapshots(env.BROWSE, env.BROWSE_SNAPSHOTS);
    // Through writeBrowseSnapshot's own chunking: a blob over SNAPSHOT_CHUNK goes as several objects.
    const chunks: string[] = [];
    await writeChunks(
      { ...target, put: async (key, bytes) => (chunks.push(key), target.put(key, bytes)) },
      "chunked",
      small,
    );
    expect(chunks).toEqual(["browse/v1/chunked/0", "browse/v1/chunked/1", "browse/v1/chunked"]);
    expect(new Uint8Array((await readSnapshot(env.BROWSE_SNAPSHOTS, "chunked")) as ArrayBuffer)).toEqual(small);
    await env.BROWSE_SNAPSHOTS.delete("browse/v1/chunked/1");
    expect(await readSnapshot(env.BROWSE_SNAPSHOTS, "chunked")).toBeNull();
    await env.BROWSE_SNAPSHOTS.delete(["browse/v1/chunked", "browse/v1/chunked/0"]);
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
