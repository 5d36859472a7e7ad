import type { BrowseFilters, BrowsePageQuery } from "./query.ts";
import {
  type BrowseStore,
  type IndexSource,
  logSnapshotDamaged,
  readBrowseIndex,
  type SnapshotBucket,
} from "./source.ts";
import { ItemBlockDamaged } from "./index/items.ts";
import { SnapshotDamaged, snapshotChunkOf } from "./snapshot.ts";
import { browseUnavailable, CatalogError } from "../catalog/errors.ts";
import type { VersionMeta } from "../catalog/layout.ts";
import { type Scope, VersionIndex } from "./index/version-index.ts";
import { type BrowseOverlay, indexView, overlayKey } from "./overlay.ts";
import type { BrowseReply, Browsing, ShardBrowsing, ShardOf, ShardReply } from "./replies.ts";

/**
 * Browse answers of catalog versions: each version's VersionIndex built once from its browse
 * index and answered from memory. The BrowseEngine Durable Object (browse-engine.ts) runs one
 * per version; tests and the measuring script run it directly over a D1 binding.
 */

/**
 * Builds a version's index (or one shard of it: shards.ts) once (a failed build is retried by
 * the next call) and answers from it.
 */
export class BrowseService implements Browsing, ShardBrowsing {
  readonly #store: BrowseStore;
  readonly #snapshots: SnapshotBucket | undefined;
  readonly #built = new Map<string, Promise<VersionIndex>>();
  /** Another index answering for a change batch's version (overlay.ts), by version and part: the last few. */
  readonly #views = new Map<string, Promise<VersionIndex>>();
  /** The builds read from D1 after their snapshot's items failed (so a second failure does not rebuild again). */
  readonly #fromD1 = new Set<string>();
  /** Where the last index built came from (snapshot or D1), its bytes and read time, and the build time. */
  lastBuild: (IndexSource & { buildMs: number }) | null = null;

  constructor(store: BrowseStore, snapshots?: SnapshotBucket) {
    this.#store = store;
    this.#snapshots = snapshots;
  }

  /**
   * The index answering `version` for part `of`: the version's own (or its shard's), or, when `of`
   * names another version's index (`of.index`: a change batch's root or layer), that index as the
   * batch's catalog sees it (its overlay, read once per version).
   */
  index(version: string, of?: ShardOf, options: { fromD1?: boolean } = {}): Promise<VersionIndex> {
    if (of?.index === undefined) return this.#own(version, of, options);
    const part = of.shards > 1 ? { shard: of.shard, shards: of.shards } : undefined;
    const key = `${version}@${of.index}:${of.shard}/${of.shards}${options.fromD1 ? ":d1" : ""}`;
    let view = this.#views.get(key);
    if (!view) {
      const index = of.index;
      view = Promise.all([this.#own(index, part, options), this.#overlay(version)]).then(([base, overlay]) => {
        const { offset, size, slots } = base.held;
        return base.view(indexView(overlay, index, slots ? { slots } : { offset, size }, base.collections));
      });
      this.#views.set(key, view);
      view.catch(() => this.#views.delete(key));
      // A few versions at once: the live one and the one before it, while isolates switch.
      for (const old of this.#views.keys()) if (this.#views.size > 4) this.#views.delete(old);
    }
    return view;
  }

  /** A change batch version's overlay (overlay.ts), from the snapshots bucket. */
  async #overlay(version: string): Promise<BrowseOverlay> {
    const object = await this.#snapshots?.get(overlayKey(version));
    if (!object)
      throw browseUnavailable(
        "this catalog version's browse overlay is missing (the operator must apply the change batch again or publish the catalog)",
      );
    return JSON.parse(new TextDecoder().decode(await object.arrayBuffer())) as BrowseOverlay;
  }

  #own(version: string, of?: ShardOf, options: { fromD1?: boolean } = {}): Promise<VersionIndex> {
    const name = of ? `${version}:${of.shard}/${of.shards}` : version;
    let built = this.#built.get(name);
    if (!built || (options.fromD1 && !this.#fromD1.has(name))) {
      const skipSnapshot = options.fromD1 === true;
      built = readBrowseIndex(this.#store, this.#snapshots, version, of, { skipSnapshot }).then(({ data, source }) => {
        const started = Date.now();
        const index = new VersionIndex(data);
        this.lastBuild = { ...source, buildMs: Date.now() - started };
        return index;
      });
      // One version per instance in production; tests share a service across versions, so keep the last only.
      this.#built.clear();
      this.#fromD1.clear();
      this.#built.set(name, built);
      if (skipSnapshot) this.#fromD1.add(name);
      built.catch(() => {
        this.#built.delete(name);
        this.#fromD1.delete(name);
      });
    }
    return built;
  }

  page(version: string, scope: Scope, query: BrowsePageQuery): Promise<BrowseReply> {
    return this.#answer(version, (index) => index.page(scope, query));
  }

  facets(version: string, scope: Scope, filters: BrowseFilters): Promise<BrowseReply> {
    return this.#answer(version, (index) => index.facets(scope, filters));
  }

  slice(...[version, of, scope, query, after]: Parameters<ShardBrowsing["slice"]>): ReturnType<ShardBrowsing["slice"]> {
    return this.#reply(this.#using(version, of, (index) => index.slice(scope, query, after)));
  }

  counts(...[version, of, scope, filters]: Parameters<ShardBrowsing["counts"]>): ReturnType<ShardBrowsing["counts"]> {
    return this.#reply(this.#using(version, of, (index) => index.counts(scope, filters)));
  }

  textStats(
    ...[version, of, scope, filters]: Parameters<ShardBrowsing["textStats"]>
  ): ReturnType<ShardBrowsing["textStats"]> {
    return this.#reply(this.index(version, of).then((index) => index.textStats(scope, filters)));
  }

  async #answer(version: string, answer: (index: VersionIndex) => string | Promise<string>): Promise<BrowseReply> {
    const reply = await this.#reply(this.#using(version, undefined, answer));
    return reply.ok ? { ok: true, body: reply.value } : reply;
  }

  /**
   * `answer` from the version's index; when an item block of its snapshot fails to inflate (issue
   * 33: every page showing one of its products answered 500, on every retry), the damage is
   * logged at error level and the index is read again from D1, which answers this request and
   * the next ones.
   */
  async #using<T>(
    version: string,
    of: ShardOf | undefined,
    answer: (index: VersionIndex) => T | Promise<T>,
  ): Promise<T> {
    try {
      return await answer(await this.index(version, of));
    } catch (error) {
      if (!(error instanceof ItemBlockDamaged)) throw error;
      const reason = `item block ${error.block} fails to inflate (${error.message})`;
      logSnapshotDamaged(new SnapshotDamaged(version, of ? of.shard : null, snapshotChunkOf(error.blocks), reason));
      return answer(await this.index(version, of, { fromD1: true }));
    }
  }

  async #reply<T>(value: Promise<T>): Promise<ShardReply<T>> {
    try {
      return { ok: true, value: await value };
    } catch (error) {
      if (error instanceof CatalogError)
        return {
          ok: false,
          code: error.code,
          message: error.message,
          ...(error.param === undefined ? {} : { param: error.param }),
        };
      throw error;
    }
  }
}

function unwrap(reply: BrowseReply): string {
  if (reply.ok) return reply.body;
  throw new CatalogError(reply.code, reply.message, reply.param);
}

/**
 * A page of matches (`GET /products` with browse parameters), or a collection's products
 * wrapped in the collection, from the version's engine.
 */
export async function browsePage(
  engine: Browsing,
  meta: VersionMeta,
  scope: Scope,
  query: BrowsePageQuery,
): Promise<string> {
  return unwrap(await engine.page(meta.version, scope, query));
}

/** `GET /products/facets` and `GET /collections/{handle}/facets`: disjunctive counts. */
export async function browseFacets(
  engine: Browsing,
  meta: VersionMeta,
  scope: Scope,
  filters: BrowseFilters,
): Promise<string> {
  return unwrap(await engine.facets(meta.version, scope, filters));
}
