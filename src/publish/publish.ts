/**
 * Publishing a catalog into KV: build every entry of a new version, write them all, and only
 * then switch the one pointer key. Readers hold the version they read from the pointer for the
 * whole request, so they see the old catalog or the new one, never a mix.
 *
 * ## Layout (keys under `v/<version>/`, see layout.ts)
 *
 * | key | value | read by |
 * |---|---|---|
 * | `catalog:pointer` | `{current, previous}` version metas (counts, shard counts, digest) | every request |
 * | `ps/<i>` | product shard: handle -> ProductRecord (detail fields, compact variants with sku/compare-at/image, collection ranks, position) | detail, variants, cursors |
 * | `vs/<i>` | variant shard: id -> compact VariantRecord | the cart (CatalogStore.getVariant) |
 * | `cs/<i>` | content shard: one text line per product with content, `<handle>\t<description>\t<images>\t<seo>`, each a ready JSON member | detail with `include=description/images/seo` |
 * | `pl/<k>` | product list chunk: list-item JSON lines for positions 250k .. 250k+499 | product list pages |
 * | `pli/<k>` | the same chunk with each item's featured `image` | product list pages with `include=image` |
 * | `cl/<k>` | collection list chunk, same windows | collection list pages |
 * | `c/<handle>/<k>` | collection products chunk: a header line (title, count, position), then item lines | collection pages |
 * | `ci/<handle>/<k>` | the same chunk with each item's featured `image` | collection pages with `include=image` |
 *
 * Shards are chosen by FNV-1a of the handle (products) or id (variants) modulo a shard count fixed
 * per version (about 64 products or 256 variants per shard; sizes measured below). List chunks overlap
 * (500 items every 250 positions), so any page of at most 250 items lies inside one chunk, and a
 * cursor's position comes from the cursor product's shard (its `pos`, or `in[collection]`).
 *
 * Cost per request, whatever the catalog size: the pointer, plus at most one shard and one chunk:
 * a first page is 2 reads, a page after a cursor 3, a detail or variants call 2, a collection page
 * 2 (3 with a cursor). List items are stored as JSON lines and spliced into the envelope without
 * being parsed; a shard (~64 records) or a chunk header is the most any request parses.
 *
 * Product content (issue 10). Descriptions (sanitised here, at publish, with their plain text),
 * images and SEO fields (fallbacks resolved here too) live in content shards, never in the product
 * shards: a plain detail neither reads nor parses them. A detail with `include=description`,
 * `images` or `seo` reads the product shard and the content shard side by side (3 reads), finds
 * the product's line by a string search and splices its stored JSON members in without parsing;
 * `include=variants` needs only the product shard (2 reads). Content shards are sized by bytes
 * (about 96 KiB, and at least one per 64 products), because one description may be empty and
 * another half a megabyte. `include=image` on lists reads the `pli`/`ci` series instead of
 * `pl`/`c`: the same windows with the featured image in each line, so the read count is unchanged
 * and plain lists read no image bytes. Measured on a generated 100,000-product catalog
 * (`catalog:generate` content: descriptions of 0-5 paragraphs, 0-5 images, SKUs), sizes as
 * median / largest: product shards 43 / 62 KiB, content shards 64 / 95 KiB (1,563), `pl` 88 /
 * 89 KiB, `pli` 155 / 158 KiB, `c` 125 / 134 KiB, `ci` 191 / 207 KiB; 6,356 entries in all. With
 * heavier stand-in content (~900-character descriptions, 4 images each) content shards are 104 /
 * 168 KiB (2,429). So the most any request reads is a collection page after a cursor with
 * `include=image`: the pointer, a product shard and a `ci` chunk, under 270 KiB; a detail with
 * every include reads under 160 KiB. Sanitising is the costly part of the build: ~0.2 ms per
 * description, ~20 s for 100,000 (Node 24, the rest of the build ~8 s).
 *
 * Why not a key per product and per variant: local KV writes run at ~560/s and production writes
 * cost money, so 100,000 products with ~4 variants each would be ~500,000 writes (~15 minutes
 * locally). This layout writes ~(N/64 + V/256 + 4N/250) entries plus the content shards: ~6,400
 * for that catalog.
 * Details are rendered from the record at request time rather than stored pre-rendered: measured
 * on Node 24 over that catalog, parsing a shard takes ~0.23 ms, rendering a detail ~0.003 ms and
 * its SHA-256 ETag ~0.02 ms, so a stored body would save ~1% per request while doubling the bytes
 * every shard read parses. List items, which a page needs 250 of, are stored pre-rendered
 * (splitting and splicing a chunk: ~0.03 ms).
 *
 * Every shard is written even when empty, so a missing shard means a missing (deleted) version,
 * which readers answer as 503 catalog_unavailable rather than as a missing product.
 *
 * ## Memory (issue 11: a 100,000-product publish under 1.5 GiB with Node's default heap)
 * Measured with `/usr/bin/time -v npx node src/cli/catalog-publish.ts --local --persist-to <new
 * dir> <catalog>` on the generated 100k catalog (156 MB of JSON). Node is the largest process
 * (workerd, which stores the entries, peaks at ~550 MiB). Its RSS follows the highest the V8 heap
 * ever reached, since freed pages stay pooled, and V8 lets the old generation grow to ~2.5-3.5
 * times what survived its last full collection, more the faster objects reach it. What survives
 * through a publish is the parsed catalog (~225 MiB) and the browse index's rows; before,
 * buildEntries also held every product record (~150 MiB), then every variant shard and list line,
 * and every description went through sanitize-html twice, each call leaving ~3 KB that reaches
 * the old generation. Now entries are built when due (build.ts) and the text pass reads the
 * parser directly (sanitize.ts): peak RSS 1,742 -> ~1,330 MiB, time unchanged (~45-55 s on a
 * shared 2-core machine). `--max-old-space-size` is not needed (and would fail larger catalogs).
 */
import { buildEntries, catalogDigest, entryCount, type KvEntry, planVersion } from "./build.ts";
import { type Pointer, POINTER_KEY, type VersionMeta, versionPrefix } from "../catalog/layout.ts";
import { parseCatalog } from "../catalog/schema.ts";
import { type BrowseTarget, dropStaleBrowse, hasBrowseIndex, writeBrowseIndex } from "./browse-index.ts";

/** Where a publish writes: a KV binding (tests, local state) or `wrangler kv ... --remote`. */
export interface CatalogKvTarget {
  readPointer(): Promise<Pointer | null>;
  writeEntries(entries: Iterable<KvEntry>, onWritten: (count: number) => void): Promise<void>;
  writePointer(pointer: Pointer): Promise<void>;
  /** Every key under a prefix (used to find and delete stale versions). */
  listKeys(prefix: string): Promise<string[]>;
  deleteKeys(keys: readonly string[]): Promise<void>;
}

export interface PublishProgress {
  phase: "validated" | "writing" | "switched" | "cleaned";
  written: number;
  total: number;
}

export interface PublishOptions {
  onProgress?: (progress: PublishProgress) => void;
  /** Version name; default: a UTC timestamp plus random suffix. */
  version?: string;
  /** Do nothing when the live catalog has the same digest (what `npm run dev` wants). */
  skipIfLive?: boolean;
  /**
   * Where the version's browse index goes (D1, see browse-index.ts): written with the version,
   * before the pointer switch, and stale versions' tables dropped with their KV entries. Required,
   * so no caller can forget it: `null` publishes the KV entries alone, and then browse reads
   * (search, filters, sorts, facets) answer 503 for that version.
   */
  browse: BrowseTarget | null;
}

export interface PublishResult {
  version: string;
  previous: string | null;
  skipped: boolean;
  products: number;
  entries: number;
  deleted: number;
}

const VERSION_NAME = /^[A-Za-z0-9_-]{1,64}$/;

function newVersionName(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
  const random = [...crypto.getRandomValues(new Uint8Array(3))].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${stamp}-${random}`;
}

/** Reads the pointer from a binding; `null` when nothing was ever published. */
export async function readPointer(kv: KVNamespace): Promise<Pointer | null> {
  return kv.get<Pointer>(POINTER_KEY, "json");
}

/** A publish target over a KV binding, writing `concurrency` entries at a time. */
export function bindingTarget(kv: KVNamespace, concurrency = 16): CatalogKvTarget {
  return {
    readPointer: () => readPointer(kv),
    async writeEntries(entries, onWritten) {
      const iterator = entries[Symbol.iterator]();
      const worker = async () => {
        for (let next = iterator.next(); !next.done; next = iterator.next()) {
          await kv.put(next.value.key, next.value.value);
          onWritten(1);
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
    },
    writePointer: (pointer) => kv.put(POINTER_KEY, JSON.stringify(pointer)),
    async listKeys(prefix) {
      const names: string[] = [];
      let cursor: string | undefined;
      for (;;) {
        const page = await kv.list({ prefix, ...(cursor ? { cursor } : {}) });
        names.push(...page.keys.map((k) => k.name));
        if (page.list_complete) return names;
        cursor = page.cursor;
      }
    },
    async deleteKeys(names) {
      for (let i = 0; i < names.length; i += concurrency) await Promise.all(names.slice(i, i + concurrency).map((n) => kv.delete(n)));
    },
  };
}

/** Deletes every key of every version but the ones kept; returns how many keys went. */
async function deleteStaleVersions(target: CatalogKvTarget, keep: readonly string[]): Promise<number> {
  const keepPrefixes = keep.map(versionPrefix);
  const stale = (await target.listKeys("v/")).filter((key) => !keepPrefixes.some((p) => key.startsWith(p)));
  await target.deleteKeys(stale);
  return stale.length;
}

/**
 * Validates `input` (throwing CatalogValidationError before anything is written), writes the new
 * version, switches the pointer (the old current becomes `previous`), then deletes older versions.
 */
export async function publishTo(target: CatalogKvTarget, input: unknown, opts: PublishOptions): Promise<PublishResult> {
  const catalog = parseCatalog(input);
  const digest = await catalogDigest(catalog);
  const pointer = await target.readPointer();
  if (opts.skipIfLive && pointer?.current.digest === digest) {
    // A version published before its browse index existed gets one, without a new version.
    if (opts.browse && !(await hasBrowseIndex(opts.browse, pointer.current.version))) await writeBrowseIndex(opts.browse, catalog, pointer.current.version);
    return { version: pointer.current.version, previous: pointer.previous?.version ?? null, skipped: true, products: catalog.products.length, entries: 0, deleted: 0 };
  }
  const version = opts.version ?? newVersionName();
  if (!VERSION_NAME.test(version)) throw new Error(`Version names are 1-64 of A-Z a-z 0-9 _ -: ${version}`);
  if (version === pointer?.current.version || version === pointer?.previous?.version) throw new Error(`Version ${version} already exists.`);
  const meta = planVersion(catalog, version, digest);
  const total = entryCount(catalog, meta);
  let written = 0;
  opts.onProgress?.({ phase: "validated", written, total });
  // KV entries and the browse index are written side by side (Node builds one while the runtime
  // stores the other), and both are complete before the pointer switch. At 100,000 products
  // (test/catalog/browse-measure.ts) one after the other took 76 s; see browse-index.ts.
  const writes = await Promise.allSettled([
    target.writeEntries(buildEntries(catalog, meta), (count) => {
      written += count;
      opts.onProgress?.({ phase: "writing", written, total });
    }),
    opts.browse ? writeBrowseIndex(opts.browse, catalog, version) : Promise.resolve(0),
  ]);
  for (const write of writes) if (write.status === "rejected") throw write.reason;
  const previous: VersionMeta | null = pointer?.current ?? null;
  await target.writePointer({ current: meta, previous });
  opts.onProgress?.({ phase: "switched", written, total });
  const deleted = await deleteStaleVersions(target, [version, ...(previous ? [previous.version] : [])]);
  if (opts.browse) await dropStaleBrowse(opts.browse, [version, ...(previous ? [previous.version] : [])]);
  opts.onProgress?.({ phase: "cleaned", written, total });
  return { version, previous: previous?.version ?? null, skipped: false, products: meta.products, entries: total, deleted };
}

/** Publishes into a KV binding (tests, and local state through `openLocalEnv`). */
export function publishCatalog(kv: KVNamespace, input: unknown, opts: PublishOptions): Promise<PublishResult> {
  return publishTo(bindingTarget(kv), input, opts);
}

/**
 * Makes the previous version live again with one pointer write. The two versions swap places,
 * so a second rollback returns to where the first started.
 */
export async function rollbackTo(target: CatalogKvTarget): Promise<{ version: string; previous: string }> {
  const pointer = await target.readPointer();
  if (!pointer?.previous) throw new Error("There is no previous catalog version to roll back to.");
  await target.writePointer({ current: pointer.previous, previous: pointer.current });
  return { version: pointer.previous.version, previous: pointer.current.version };
}

export function rollbackCatalog(kv: KVNamespace): Promise<{ version: string; previous: string }> {
  return rollbackTo(bindingTarget(kv));
}
