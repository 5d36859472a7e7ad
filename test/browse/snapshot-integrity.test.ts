import { env, exports } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { inCurrency, parseBrowseFacets, parseBrowsePage } from "../../src/browse/query.ts";
import { BrowseService } from "../../src/browse/service.ts";
import { type BrowseData, VersionIndex } from "../../src/browse/index/version-index.ts";
import { ITEM_BLOCK, type PackedItems } from "../../src/browse/index/items.ts";
import {
  browseSnapshotKey,
  decodeSnapshot,
  type SnapshotManifest,
  snapshotChunkOf,
} from "../../src/browse/snapshot.ts";
import { BrowseStore, readBrowseIndex, readSnapshot } from "../../src/browse/source.ts";
import type { ShardOf } from "../../src/browse/replies.ts";
import { d1Target } from "../../src/publish/browse-index.ts";
import { generateCatalog } from "../../src/publish/generate.ts";
import { publishCatalog } from "../../src/publish/publish.ts";
import { sha256Hex } from "../../src/sha256.ts";

/**
 * Regression, issue 33 point 2: snapshot chunks carried no checksum, so a chunk with its prices
 * reversed loaded and changed answers (200s, strong ETags, public caching, nothing logged), and a
 * damaged item block failed every page showing one of its products with a 500, on every retry.
 * Now each chunk's SHA-256 is in the manifest and checked before decoding; a mismatch, or an item
 * block that fails to inflate, is logged at error level (version, shard, chunk) and the engine
 * answers from D1. Damage is done to the real objects in R2, and answers are compared with the
 * same version's index read from D1 alone.
 */

const BASE = "https://shop.example/api/v1";
const store = new BrowseStore(env.BROWSE);

/** Queries whose answers prices, sorts and items decide (a reversed price column changes most). */
const PAGES = [
  "sort=price_asc&limit=20",
  "sort=price_desc&limit=20",
  "price_min=40&limit=50",
  "price_max=30&sort=title_asc&limit=50",
  "available=true&limit=250",
  "q=shirt&limit=30",
];
const FACETS = ["available=true", "price_min=25"];

async function publish(seed: number, shardProducts?: number): Promise<string> {
  const { version } = await publishCatalog(env.CATALOG, generateCatalog({ products: 600, seed }), {
    browse: d1Target(env.BROWSE, env.BROWSE_SNAPSHOTS),
    ...(shardProducts ? { shardProducts } : {}),
  });
  return version;
}

/** The snapshot's decoded tree, its typed arrays views into the chunks (so writing one writes its chunk). */
async function openSnapshot(version: string, of?: ShardOf) {
  const chunks = await readSnapshot(env.BROWSE_SNAPSHOTS, version, of);
  if (!chunks) throw new Error(`no snapshot for ${version}`);
  const data = (await decodeSnapshot(chunks)) as BrowseData & { items: PackedItems };
  return { chunks, data, key: browseSnapshotKey(version, of) };
}

async function putChunk(key: string, chunks: Uint8Array[], n: number): Promise<void> {
  await env.BROWSE_SNAPSHOTS.put(`${key}/${n}`, chunks[n] as Uint8Array);
}

/** What the version's index read from D1 alone answers (no snapshot bucket): the truth. */
async function truth(version: string, pages: string[], facets: string[]) {
  const service = new BrowseService(store);
  const out: string[] = [];
  for (const q of pages) {
    const reply = await service.page(version, {}, inCurrency(parseBrowsePage(new URLSearchParams(q)), "USD"));
    out.push(reply.ok ? reply.body : `failed ${reply.code}`);
  }
  for (const q of facets) {
    const reply = await service.facets(version, {}, inCurrency(parseBrowseFacets(new URLSearchParams(q)), "USD"));
    out.push(reply.ok ? reply.body : `failed ${reply.code}`);
  }
  return out;
}

async function served(pages: string[], facets: string[]) {
  const out: { status: number; body: string }[] = [];
  for (const q of pages) {
    const r = await exports.default.fetch(`${BASE}/products?${q}`);
    out.push({ status: r.status, body: await r.text() });
  }
  for (const q of facets) {
    const r = await exports.default.fetch(`${BASE}/products/facets?${q}`);
    out.push({ status: r.status, body: await r.text() });
  }
  return out;
}

/** Console error lines (the engine's and the Worker's), parsed. */
function errorLines() {
  const lines: Record<string, unknown>[] = [];
  vi.spyOn(console, "error").mockImplementation((line: unknown) => {
    try {
      lines.push(JSON.parse(String(line)) as Record<string, unknown>);
    } catch {
      lines.push({ raw: String(line) });
    }
  });
  return lines;
}

afterEach(() => vi.restoreAllMocks());

describe("browse snapshot integrity (issue 33 point 2)", () => {
  it("writes each chunk's SHA-256 in the manifest", async () => {
    const version = await publish(1);
    const manifest = (await (await env.BROWSE_SNAPSHOTS.get(browseSnapshotKey(version)))?.json()) as SnapshotManifest;
    const { chunks } = await openSnapshot(version);
    expect(manifest.sha256).toEqual(await Promise.all(chunks.map((c) => sha256Hex(c))));
    expect(manifest.sha256?.every((h) => /^[0-9a-f]{64}$/.test(h))).toBe(true);
  });

  it("answers a chunk with its prices reversed from D1, correctly, and logs version, shard and chunk at error level", async () => {
    const version = await publish(2);
    const { chunks, data, key } = await openSnapshot(version);
    const chunk = snapshotChunkOf(data.prices);
    expect(chunk).not.toBeNull();
    // The red team's damage: the price column reversed, in the chunk stored in R2 (manifest untouched).
    data.prices.reverse();
    await putChunk(key, chunks, chunk as number);
    // Without the check this decodes fine and answers wrongly: the damage is real.
    const damaged = new VersionIndex((await decodeSnapshot(chunks)) as BrowseData);
    const expected = await truth(version, PAGES, FACETS);
    const wrong = [
      ...(await Promise.all(
        PAGES.map((q) => damaged.page({}, inCurrency(parseBrowsePage(new URLSearchParams(q)), "USD"))),
      )),
      ...FACETS.map((q) => damaged.facets({}, inCurrency(parseBrowseFacets(new URLSearchParams(q)), "USD"))),
    ];
    expect(wrong.filter((answer, i) => answer !== expected[i]).length).toBeGreaterThan(0);

    const logged = errorLines();
    const answers = await served(PAGES, FACETS);
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    expect(answers.map((a) => a.body)).toEqual(expected);
    expect(logged).toContainEqual(
      expect.objectContaining({
        level: "error",
        error: "browse_snapshot_damaged",
        version,
        shard: null,
        chunk,
        message: expect.stringContaining(`version ${version}, shard 0, chunk ${chunk}`),
      }),
    );
    // The engine read D1, not the damaged snapshot.
    const { source } = await readBrowseIndex(store, env.BROWSE_SNAPSHOTS, version);
    expect(source.from).toBe("d1");
  });

  it("answers pages showing a product of an item block that fails to inflate from D1, not 500 on every retry", async () => {
    const version = await publish(3);
    const { chunks, data, key } = await openSnapshot(version);
    const block = 1;
    const { blocks, at } = data.items;
    const chunk = snapshotChunkOf(blocks) as number;
    // A block that is no deflate stream (reserved block type), written with a manifest that
    // hashes it: a snapshot written damaged, which the checksums alone cannot catch.
    blocks.fill(0xff, at[block], at[block + 1]);
    await putChunk(key, chunks, chunk);
    const manifest = (await (await env.BROWSE_SNAPSHOTS.get(key))?.json()) as SnapshotManifest;
    (manifest.sha256 as string[])[chunk] = await sha256Hex(chunks[chunk] as Uint8Array);
    await env.BROWSE_SNAPSHOTS.put(key, JSON.stringify(manifest));

    const pages = [`available=true&limit=${ITEM_BLOCK * 3}`, "sort=title_asc&limit=250", "price_min=1&limit=100"];
    const expected = await truth(version, pages, []);
    const logged = errorLines();
    for (let attempt = 0; attempt < 2; attempt++) {
      const answers = await served(pages, []);
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
      expect(answers.map((a) => a.body)).toEqual(expected);
    }
    expect(logged).toContainEqual(
      expect.objectContaining({
        level: "error",
        error: "browse_snapshot_damaged",
        version,
        chunk,
        message: expect.stringContaining(`item block ${block} fails to inflate`),
      }),
    );
    expect(
      logged.filter(
        (l) => l.error === "internal_error" || (l.level === "error" && l.error !== "browse_snapshot_damaged"),
      ),
    ).toEqual([]);
  });

  it("names the shard of a sharded version's damaged chunk", async () => {
    const version = await publish(4, 200);
    const of = { shard: 1, shards: 3 };
    const { chunks, data, key } = await openSnapshot(version, of);
    const chunk = snapshotChunkOf(data.prices) as number;
    data.prices.reverse();
    await putChunk(key, chunks, chunk);
    const expected = await truth(version, PAGES.slice(0, 3), []);
    const logged = errorLines();
    const answers = await served(PAGES.slice(0, 3), []);
    expect(answers.map((a) => a.body)).toEqual(expected);
    expect(logged).toContainEqual(
      expect.objectContaining({ error: "browse_snapshot_damaged", version, shard: 1, chunk }),
    );
  });

  it("does not trust a manifest without checksums (an older publish's): D1 answers, and it says why", async () => {
    const version = await publish(5);
    const key = browseSnapshotKey(version);
    const manifest = (await (await env.BROWSE_SNAPSHOTS.get(key))?.json()) as SnapshotManifest;
    delete manifest.sha256;
    await env.BROWSE_SNAPSHOTS.put(key, JSON.stringify(manifest));
    const logged = errorLines();
    const { source } = await readBrowseIndex(store, env.BROWSE_SNAPSHOTS, version);
    expect(source.from).toBe("d1");
    expect(logged).toContainEqual(
      expect.objectContaining({
        error: "browse_snapshot_damaged",
        version,
        chunk: null,
        message: expect.stringContaining("no checksum"),
      }),
    );
  });
});
