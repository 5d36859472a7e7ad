import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { browseFacets, browsePage, BrowseService } from "../../src/browse/service.ts";
import { BrowseStore } from "../../src/browse/source.ts";
import { SNAPSHOT_CHUNK } from "../../src/browse/snapshot.ts";
import { parseBrowseFacets, parseBrowsePage } from "../../src/browse/query.ts";
import { CatalogStore } from "../../src/catalog/store.ts";
import type { Scope } from "../../src/browse/index/version-index.ts";
import { d1Target } from "../../src/publish/browse-index.ts";
import { generateCatalog } from "../../src/publish/generate.ts";
import { publishCatalog } from "../../src/publish/publish.ts";
import { countingKv } from "../helpers/counting-kv.ts";

/**
 * The browse cost bound (src/browse/index/version-index.ts), counted on a generated catalog of 20,000
 * products with the real bindings. A version's engine reads its index once: its snapshot (one R2
 * read, no D1), or without one the D1 index (batches, statements, the largest row); after that
 * every page and facets answer reads the version pointer from KV and nothing else, whatever the
 * query and the catalog size.
 */
const PRODUCTS = 20_000;
const catalog = generateCatalog({ products: PRODUCTS });

function countingD1(db: D1Database) {
  const seen = { batches: 0, statements: 0, rows: 0, bytes: 0, maxRowBytes: 0 };
  const proxy = new Proxy(db, {
    get(target, prop) {
      if (prop === "batch") {
        return async (statements: D1PreparedStatement[]) => {
          seen.batches++;
          seen.statements += statements.length;
          const results = await target.batch(statements);
          for (const r of results) {
            seen.rows += r.results.length;
            for (const row of r.results) {
              const bytes = JSON.stringify(row).length;
              seen.bytes += bytes;
              seen.maxRowBytes = Math.max(seen.maxRowBytes, bytes);
            }
          }
          return results;
        };
      }
      const value: unknown = Reflect.get(target, prop);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { db: proxy, seen };
}

/** The snapshot bucket as the engine reads it, counting reads and bytes. */
function countingSnapshots(bucket: R2Bucket) {
  const seen = { gets: 0, bytes: 0 };
  return {
    seen,
    bucket: {
      async get(key: string) {
        seen.gets++;
        const object = await bucket.get(key);
        if (!object) return null;
        const buffer = await object.arrayBuffer();
        seen.bytes += buffer.byteLength;
        return { arrayBuffer: async () => buffer };
      },
    },
  };
}

const d1 = countingD1(env.BROWSE);
const r2 = countingSnapshots(env.BROWSE_SNAPSHOTS);
const engine = new BrowseService(new BrowseStore(d1.db), r2.bucket);
/** The same engine without snapshots: what a version published before them (or a missing blob) costs. */
const d1Only = countingD1(env.BROWSE);
const fallback = new BrowseService(new BrowseStore(d1Only.db));

type Meta = NonNullable<Awaited<ReturnType<CatalogStore["currentMeta"]>>>;

/** One answer from the built engine: the KV reads and D1 statements it cost, and its body. */
async function measure(answer: (meta: Meta) => Promise<string>) {
  const kv = countingKv(env.CATALOG);
  const meta = await new CatalogStore(kv.kv).currentMeta();
  if (!meta) throw new Error("nothing published");
  const before = { ...d1.seen };
  const gets = r2.seen.gets;
  const text = await answer(meta);
  return {
    kvReads: kv.reads.length,
    statements: d1.seen.statements - before.statements,
    r2Gets: r2.seen.gets - gets,
    bytes: text.length,
    body: JSON.parse(text) as Record<string, unknown>,
  };
}

const page =
  (query: string, scope: Scope = {}) =>
  (meta: Meta) =>
    browsePage(engine, meta, scope, parseBrowsePage(new URLSearchParams(query)));
const facets = (query: string) => (meta: Meta) =>
  browseFacets(engine, meta, {}, parseBrowseFacets(new URLSearchParams(query)));

describe(`browse on a generated catalog of ${PRODUCTS} products`, () => {
  beforeAll(async () => {
    await publishCatalog(env.CATALOG, catalog, { browse: d1Target(env.BROWSE, env.BROWSE_SNAPSHOTS) });
  }, 600_000);

  it("builds a version's index from its snapshot: its manifest and 8 MiB chunks from R2, no D1 statement", async () => {
    const meta = await new CatalogStore(env.CATALOG).currentMeta();
    if (!meta) throw new Error("nothing published");
    const index = await engine.index(meta.version);
    console.log(
      `[cost] browse_index_build r2_gets=${r2.seen.gets} snapshot_bytes=${r2.seen.bytes} d1_statements=${d1.seen.statements} held_bytes=${index.bytes} read_ms=${engine.lastBuild?.readMs} decode_ms=${engine.lastBuild?.decodeMs} build_ms=${engine.lastBuild?.buildMs}`,
    );
    // The manifest, then each chunk: 2 reads at 20k.
    expect(r2.seen.gets).toBe(1 + Math.ceil((engine.lastBuild?.bytes ?? 0) / SNAPSHOT_CHUNK));
    expect(d1.seen.statements).toBe(0);
    expect(engine.lastBuild?.from).toBe("snapshot");
    // The blob is the index's parts as they are held: no bigger than what the engine holds plus the JSON parts (handles, words, values).
    expect(r2.seen.bytes).toBeLessThan(index.bytes * 1.5);
    expect(index.size).toBe(PRODUCTS);
  }, 120_000);

  it("without a snapshot, builds from D1 with 3 batches (the layout and size, 15 statements, then the items in 8,192-product statements), no row over 512 KiB", async () => {
    const meta = await new CatalogStore(env.CATALOG).currentMeta();
    if (!meta) throw new Error("nothing published");
    const index = await fallback.index(meta.version);
    console.log(
      `[cost] browse_index_build_d1 d1_batches=${d1Only.seen.batches} statements=${d1Only.seen.statements} rows=${d1Only.seen.rows} bytes=${d1Only.seen.bytes} max_row_bytes=${d1Only.seen.maxRowBytes} held_bytes=${index.bytes} read_ms=${fallback.lastBuild?.readMs} build_ms=${fallback.lastBuild?.buildMs}`,
    );
    // One batch for the index's layout (issue 45: packed weights and lengths, or not; a change batch's
    // layer) and size, one for everything but the items, one per 4 x 8,192 products of items.
    expect(d1Only.seen).toMatchObject({ batches: 3, statements: 2 + 15 + Math.ceil(PRODUCTS / 8_192) });
    expect(d1Only.seen.maxRowBytes).toBeLessThan(512 * 1024);
    expect(fallback.lastBuild?.from).toBe("d1");
    expect(index.size).toBe(PRODUCTS);
  }, 120_000);

  const deep = catalog.products[15_321]?.handle ?? "";
  const deepAvailable = catalog.products.find((p, i) => i >= 15_321 && p.available)?.handle ?? "";
  const cases: [string, (meta: Meta) => Promise<string>, number][] = [
    ["a first sorted page", page("sort=price_desc&limit=250"), 250],
    ["a deep page after a cursor", page(`sort=title_asc&limit=250&starting_after=${deep}`), 250],
    ["a three-filter sorted page", page("vendor=Saltmarsh Supply&tag=new&option.size=M&sort=price_asc&limit=100"), 100],
    [
      "a filtered page after a cursor",
      page(`available=true&sort=price_asc&limit=100&starting_after=${deepAvailable}`),
      100,
    ],
    ["a q search", page("q=washed tee&limit=50"), 50],
    ["a one-character q search", page("q=1&limit=50"), 50],
    [
      "a collection browse",
      page("available=true&sort=newest&limit=50", { collection: catalog.collections[1]?.handle ?? "" }),
      50,
    ],
    ["the landing facets", facets(""), 0],
    ["the facets of one filter value", facets("vendor=Saltmarsh Supply"), 0],
    ["a three-filter facets answer", facets("vendor=Saltmarsh Supply&tag=new&option.size=M"), 0],
    ["a facets answer with q and filters", facets("tag=new&option.size=M&q=tee"), 0],
  ];
  for (const [name, answer, items] of cases) {
    it(`answers ${name} with the pointer and no D1 statement or R2 read, at most ${items} items`, async () => {
      const r = await measure(answer);
      console.log(
        `[cost] ${name.replaceAll(" ", "_")} kv_reads=${r.kvReads} d1_statements=${r.statements} r2_gets=${r.r2Gets} bytes=${r.bytes}`,
      );
      expect(r.kvReads).toBe(1);
      expect(r.statements).toBe(0);
      expect(r.r2Gets).toBe(0);
      const data = (r.body.data ?? (r.body.products as Record<string, unknown> | undefined)?.data) as
        | unknown[]
        | undefined;
      expect(data?.length ?? 0).toBeLessThanOrEqual(items);
      if (items > 0) expect(data?.length).toBeGreaterThan(0);
      else expect(r.body.object).toBe("facets");
      expect(r.bytes).toBeLessThan(256 * 1024);
    });
  }

  it("returns the right deep page (the cursor's successors in title order)", async () => {
    const r = await measure(page(`sort=title_asc&limit=3&starting_after=${deep}`));
    expect((r.body.data as unknown[]).length).toBe(3);
    expect(r.body.count).toBe(PRODUCTS);
  });
});
