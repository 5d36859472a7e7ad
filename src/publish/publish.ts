/**
 * Publishing a catalog into KV: build every entry of a new version, write them all, and only
 * then switch the one pointer key. Readers hold the version they read from the pointer for the
 * whole request, so they see the old catalog or the new one, never a mix.
 *
 * The layout of the entries and what each request reads: docs/decisions/0001; how a
 * 100,000-product publish stays in Node's default heap: docs/decisions/0002.
 */
import { buildEntries, catalogDigest, entryCount, type KvEntry, planVersion } from "./build.ts";
import {
  HISTORY_KEY,
  type HistoryEntry,
  keys,
  type Pointer,
  POINTER_KEY,
  type VersionMeta,
} from "../catalog/layout.ts";
import { parseCatalog } from "../catalog/schema.ts";
import { type BrowseTarget, dropBrowseOf, dropStaleBrowse, hasBrowseIndex, writeBrowseIndex } from "./browse-index.ts";
import { type CatalogLock, type HeldLock, type LockIntent, processLock } from "./lock.ts";
import { DEFAULT_SHARD_PRODUCTS, MAX_BROWSE_SHARDS, shardCount } from "../browse/shards.ts";
import { CheckedCatalog } from "./catalog-input.ts";
import { count } from "../count.ts";
import { lastPublished, planPublishLevels, type StockPlanReport } from "./stock-plan.ts";
import type { StockMode } from "../stock/publish-levels.ts";
import { newVersionName, VERSION_NAME } from "../version-name.ts";

/** Where a publish writes: a KV binding (tests, local state) or `wrangler kv ... --remote`. */
export interface CatalogKvTarget {
  readPointer(): Promise<Pointer | null>;
  /** Entries' values by key (null: absent): what a change batch reads of the version it derives from. */
  readValues(keys: readonly string[]): Promise<(string | null)[]>;
  writeEntries(entries: Iterable<KvEntry> | AsyncIterable<KvEntry>, onWritten: (count: number) => void): Promise<void>;
  writePointer(pointer: Pointer): Promise<void>;
  /** The publish history, oldest first (empty before the first publish that kept one). */
  readHistory(): Promise<HistoryEntry[]>;
  writeHistory(entries: readonly HistoryEntry[]): Promise<void>;
  /** Every key under a prefix (used to find and delete stale versions). */
  listKeys(prefix: string): Promise<string[]>;
  /** One entry's text, or null when absent (the last publish's stock chunks, for the stock report). */
  readText(key: string): Promise<string | null>;
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
  /**
   * What serialises this publish against other publishes and rollbacks of the same catalog: a
   * lock file (local state) or the D1 lock (remote) from the CLIs; by default a queue in this
   * process (see lock.ts).
   */
  lock?: CatalogLock;
  /** Recorded in the history: the file published and who ran it, when known. */
  source?: string;
  by?: string;
  /**
   * At most this many products per browse engine (default DEFAULT_SHARD_PRODUCTS): a larger
   * catalog's browse index is cut into shards, each its own engine and snapshot (browse/shards.ts),
   * and the version's meta says how many.
   */
  shardProducts?: number;
  /**
   * `keep` (default): the version writes a level only where it newly tracks the variant or its
   * quantity differs from what the last publish gave (the live level stays otherwise); `replace`:
   * every level of the file (`catalog:publish --stock replace`). See src/stock/publish-levels.ts.
   */
  stockMode?: StockMode;
  /**
   * Write the version now but switch the pointer at this second (`catalog:publish --at`): the
   * version is recorded `scheduled` and the catalog writer's release clock makes it live
   * (src/publish/release.ts). Nothing is cleaned up until then.
   */
  releaseAt?: Date;
}

/** How many published versions cleanup keeps at least (besides the live one and the rollback target). */
export const KEEP_VERSIONS = 5;

export interface PublishResult {
  version: string;
  previous: string | null;
  skipped: boolean;
  products: number;
  entries: number;
  deleted: number;
  /** Tracked variants whose levels the version carries (the worker writes them into live stock). */
  stock_tracked: number;
  /**
   * What the version does to live stock (levels written, kept, no longer tracked), predicted by
   * the shards' own rule against the last publish's file; null when it could not be read.
   */
  stock_plan: StockPlanReport | null;
  /** A scheduled publish (`releaseAt`): when it goes live; `previous` is the version live when it was written. */
  release_at?: string;
}

/** A fresh version name: a UTC timestamp plus a random suffix (shared with the rules document's versions). */
export { newVersionName } from "../version-name.ts";

/** Reads the pointer from a binding; `null` when nothing was ever published. */
export async function readPointer(kv: KVNamespace): Promise<Pointer | null> {
  return kv.get<Pointer>(POINTER_KEY, "json");
}

/** A publish target over a KV binding, writing `concurrency` entries at a time. */
export function bindingTarget(kv: KVNamespace, concurrency = 16): CatalogKvTarget {
  return {
    readPointer: () => readPointer(kv),
    async readValues(names) {
      const out: (string | null)[] = new Array(names.length).fill(null);
      for (let i = 0; i < names.length; i += concurrency)
        await Promise.all(
          names.slice(i, i + concurrency).map(async (name, j) => {
            out[i + j] = await kv.get(name, "text");
          }),
        );
      return out;
    },
    async writeEntries(entries, onWritten) {
      const iterator = Symbol.asyncIterator in entries ? entries[Symbol.asyncIterator]() : entries[Symbol.iterator]();
      const worker = async () => {
        for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
          await kv.put(next.value.key, next.value.value);
          onWritten(1);
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
    },
    writePointer: (pointer) => kv.put(POINTER_KEY, JSON.stringify(pointer)),
    readHistory: async () => (await kv.get<HistoryEntry[]>(HISTORY_KEY, "json")) ?? [],
    writeHistory: (entries) => kv.put(HISTORY_KEY, JSON.stringify(entries)),
    readText: (key) => kv.get(key, "text"),
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
      for (let i = 0; i < names.length; i += concurrency)
        await Promise.all(names.slice(i, i + concurrency).map((n) => kv.delete(n)));
    },
  };
}

/** The versions whose KV entries exist (their keys are under `v/<version>/`). */
async function storedVersions(target: CatalogKvTarget): Promise<Map<string, string[]>> {
  const byVersion = new Map<string, string[]>();
  for (const key of await target.listKeys("v/")) {
    const version = key.slice(2, key.indexOf("/", 2));
    const names = byVersion.get(version);
    // Appended, not copied: 63,345 keys of one version copied key by key took minutes.
    if (names) names.push(key);
    else byVersion.set(version, [key]);
  }
  return byVersion;
}

/**
 * The versions cleanup must keep: the live one, the rollback target, and the last
 * KEEP_VERSIONS versions the history made live.
 */
export function keptVersions(pointer: Pointer, history: readonly HistoryEntry[]): Set<string> {
  const keep = new Set([pointer.current.version, ...(pointer.previous ? [pointer.previous.version] : [])]);
  const recent = new Set<string>();
  for (let i = history.length - 1; i >= 0 && recent.size < KEEP_VERSIONS; i--) {
    const entry = history[i];
    if ((entry?.action === "publish" || entry?.action === "batch") && entry.state === undefined)
      recent.add(entry.version);
  }
  for (const version of recent) keep.add(version);
  // A release scheduled for later (src/publish/release.ts) is kept until it goes live or is canceled.
  for (const entry of history) if (entry.state === "scheduled") keep.add(entry.version);
  // A change batch's version reads entries of the versions before it (its lineage): kept with it.
  const metas = new Map<string, VersionMeta>();
  for (const entry of history) metas.set(entry.version, entry.meta);
  metas.set(pointer.current.version, pointer.current);
  if (pointer.previous) metas.set(pointer.previous.version, pointer.previous);
  for (const version of [...keep]) for (const owner of metas.get(version)?.derived?.lineage ?? []) keep.add(owner);
  return keep;
}

/**
 * Deletes the versions the history knows (or a dead publisher abandoned) beyond those kept, and
 * their browse tables; returns how many keys went. A version the history does not know is one
 * being written by another publisher, so it is never touched (under the lock only a publisher
 * that bypassed it could be writing one). Each version's meta goes first, so a cleanup that
 * stops half-way never leaves a version that looks whole to a rollback.
 *
 * `since`, the pointer and history the last cleanup kept by (a change batch's base): only the
 * versions they kept and these do not, and `abandoned`, are looked at, each listed by its own
 * prefix. Without it (a publish, a rollback, a release) every key is listed, which also finds what
 * an interrupted cleanup left; at 1M products that listing took about a second of every batch.
 */
export async function cleanUp(
  target: CatalogKvTarget,
  browse: BrowseTarget | null,
  pointer: Pointer,
  history: readonly HistoryEntry[],
  abandoned: readonly string[],
  since?: { pointer: Pointer; history: readonly HistoryEntry[] },
): Promise<number> {
  const keep = keptVersions(pointer, history);
  let deleted = 0;
  const drop = async (version: string, names: readonly string[]) => {
    const meta = keys.meta(version);
    await target.deleteKeys(names.filter((n) => n === meta));
    await target.deleteKeys(names.filter((n) => n !== meta));
    deleted += names.length;
  };
  if (since) {
    const was = keptVersions(since.pointer, since.history);
    const gone = [...new Set([...was, ...abandoned])].filter((v) => !keep.has(v));
    for (const version of gone) await drop(version, await target.listKeys(`v/${version}/`));
    if (browse && gone.length > 0) await dropBrowseOf(browse, gone);
    return deleted;
  }
  const known = new Set([...history.map((e) => e.version), ...abandoned]);
  const stored = await storedVersions(target);
  for (const [version, names] of stored) if (!keep.has(version) && known.has(version)) await drop(version, names);
  if (browse) {
    const spared = [...stored.keys()].filter((v) => keep.has(v) || !known.has(v));
    await dropStaleBrowse(browse, [...new Set([...keep, ...spared])]);
  }
  return deleted;
}

/**
 * The history as kept, with the versions that existed before it did: a catalog published by a
 * version of this tool that kept no history gets its live and previous versions recorded, so
 * they are listed and cleaned up like the others.
 */
async function historyOf(target: CatalogKvTarget, pointer: Pointer | null): Promise<HistoryEntry[]> {
  const history = await target.readHistory();
  if (history.length > 0 || !pointer) return history;
  const adopted = [pointer.previous, pointer.current].filter((m): m is VersionMeta => m !== null);
  return adopted.map((meta, i) => ({
    seq: i + 1,
    at: meta.published_at,
    action: "publish",
    version: meta.version,
    from: i === 0 ? null : (adopted[0]?.version ?? null),
    products: meta.products,
    meta,
  }));
}

export function append(history: readonly HistoryEntry[], entry: Omit<HistoryEntry, "seq" | "at">): HistoryEntry[] {
  return [...history, { seq: (history.at(-1)?.seq ?? 0) + 1, at: new Date().toISOString(), ...entry }];
}

export function completed(entry: HistoryEntry): HistoryEntry {
  const { state: _state, ...done } = entry;
  return done;
}

/** What a holder of the lock finds once the leftovers of an interrupted publish are settled. */
export interface Settled {
  pointer: Pointer | null;
  history: HistoryEntry[];
  /** Versions of interrupted publishes: `completed` went live before their publisher died, `abandoned` never did. */
  completed: string[];
  abandoned: string[];
  /** KV keys deleted with the abandoned versions. */
  deleted: number;
}

/**
 * Settles what a killed publish left (issue 33: a publish killed between the pointer switch and
 * the history write left a live version the history did not show, whose keys, snapshots and
 * tables cleanup never deleted). Run by every holder of the lock before it acts (publish,
 * rollback, `--list`, npm run dev): a `publishing` entry whose version is live is completed; any
 * other is marked `abandoned` and its version deleted with the versions a dead holder's broken
 * lock names (`held.abandoned`). Nothing runs while the lock is held, so no publish is in flight.
 */
export async function settleInterrupted(
  target: CatalogKvTarget,
  browse: BrowseTarget | null,
  held: Pick<HeldLock, "abandoned">,
): Promise<Settled> {
  const pointer = await target.readPointer();
  let history = await historyOf(target, pointer);
  const live = pointer?.current.version;
  const open = history.filter((e) => e.state === "publishing");
  const done = open.filter((e) => e.version === live).map((e) => e.version);
  const dropped = open.filter((e) => e.version !== live).map((e) => e.version);
  if (open.length > 0) {
    history = history.map((e) =>
      e.state !== "publishing" ? e : e.version === live ? completed(e) : { ...e, state: "abandoned" },
    );
    await target.writeHistory(history);
  }
  // A dead holder's lock names its version even when it had gone live: live is never abandoned.
  const abandoned = [...new Set([...held.abandoned, ...dropped])].filter((version) => version !== live);
  const deleted = pointer && abandoned.length > 0 ? await cleanUp(target, browse, pointer, history, abandoned) : 0;
  return { pointer, history, completed: done, abandoned, deleted };
}

/**
 * `shardProducts` would cut the catalog into more browse shards than one request can fan out to
 * (MAX_BROWSE_SHARDS): refused before anything is locked or written.
 */
export class ShardLimitError extends Error {
  constructor(products: number, perShard: number, shards: number) {
    const least = Math.ceil(products / MAX_BROWSE_SHARDS);
    super(
      `--shard-products ${perShard} cuts ${count(products, "product")} into ${count(shards, "browse shard")}, over the limit of ` +
        `${MAX_BROWSE_SHARDS}: every browse request asks each shard (a later page up to twice), and Workers ` +
        `allow 50 subrequests per request on the free plan (docs/decisions/0007). Give --shard-products ` +
        `${least} or more for this catalog.`,
    );
    this.name = "ShardLimitError";
  }
}

/** Thrown when the pointer moved between the read and the switch (a lock bypassed or broken). */
export class PointerMovedError extends Error {
  constructor(expected: string | null, found: string | null) {
    super(
      `The live catalog changed during this operation (expected ${expected ?? "none"}, found ` +
        `${found ?? "none"}): another publish or rollback ran without the lock. Nothing was ` +
        `switched; run again.`,
    );
    this.name = "PointerMovedError";
  }
}

/**
 * The compare-and-swap of the pointer: re-read it, refuse if it is not the one this operation
 * started from, check the lock is still held, then write. Under the lock the re-read always
 * matches; it is what keeps a broken (stale) lock from losing an update.
 */
export async function swapPointer(
  target: CatalogKvTarget,
  lock: HeldLock,
  expected: Pointer | null,
  next: Pointer,
): Promise<void> {
  const now = await target.readPointer();
  if (
    (now?.current.version ?? null) !== (expected?.current.version ?? null) ||
    (now?.previous?.version ?? null) !== (expected?.previous?.version ?? null)
  ) {
    throw new PointerMovedError(expected?.current.version ?? null, now?.current.version ?? null);
  }
  await lock.verify();
  await target.writePointer(next);
}

/**
 * Makes `entry`'s version live, recorded: the history knows the version before the pointer names
 * it (state `publishing`), and the entry is completed after. A process killed between the two
 * leaves an entry the next holder of the lock settles (settleInterrupted), never a live version
 * the history does not show; a switch refused while this process is alive to say so takes the
 * entry back (it never took effect). The history is re-read first: under the lock it is
 * unchanged, but a writer that bypassed the lock must not write back a history older than what
 * others appended meanwhile. Returns the history as recorded.
 */
export async function switchRecorded(
  target: CatalogKvTarget,
  held: HeldLock,
  expected: Pointer | null,
  next: Pointer,
  history: readonly HistoryEntry[],
  entry: Omit<HistoryEntry, "seq" | "at" | "state">,
): Promise<HistoryEntry[]> {
  const latest = await target.readHistory();
  const publishing = append(latest.length > 0 ? latest : history, { ...entry, state: "publishing" });
  await target.writeHistory(publishing);
  const isThis = (e: HistoryEntry) => e.version === entry.version && e.state === "publishing";
  try {
    await swapPointer(target, held, expected, next);
  } catch (error) {
    const now = await target.readHistory();
    await target.writeHistory(now.filter((e) => !isThis(e)));
    throw error;
  }
  const recorded = publishing.map((e) => (isThis(e) ? completed(e) : e));
  await target.writeHistory(recorded);
  return recorded;
}

/**
 * Records a written version as scheduled for `releaseAt`, under the lock its writer holds: the
 * history is re-read first (as switchRecorded does) so nothing appended meanwhile is lost.
 */
export async function recordScheduled(
  target: CatalogKvTarget,
  history: readonly HistoryEntry[],
  entry: Omit<HistoryEntry, "seq" | "at" | "state" | "release_at">,
  releaseAt: Date,
): Promise<HistoryEntry[]> {
  const latest = await target.readHistory();
  const recorded = append(latest.length > 0 ? latest : history, {
    ...entry,
    state: "scheduled",
    release_at: releaseAt.toISOString(),
  });
  await target.writeHistory(recorded);
  return recorded;
}

export async function underLock<T>(
  lock: CatalogLock,
  intent: LockIntent,
  run: (held: HeldLock) => Promise<T>,
): Promise<T> {
  const held = await lock.acquire(intent);
  try {
    return await run(held);
  } finally {
    await held.release();
  }
}

/**
 * Validates `input` (throwing CatalogValidationError before anything is written or locked; a
 * CheckedCatalog was validated by its reader, src/cli/catalog-stream.ts),
 * then under the publish lock: writes the new version, switches the pointer by compare-and-swap
 * (the old current becomes `previous`), appends to the history, and deletes versions older than
 * the last KEEP_VERSIONS.
 */
export async function publishTo(target: CatalogKvTarget, input: unknown, opts: PublishOptions): Promise<PublishResult> {
  const checked = input instanceof CheckedCatalog ? input : null;
  const catalog = checked?.catalog ?? parseCatalog(input);
  const digest = checked?.digest ?? (await catalogDigest(catalog));
  const version = opts.version ?? newVersionName();
  if (!VERSION_NAME.test(version)) throw new Error(`Version names are 1-64 of A-Z a-z 0-9 _ -: ${version}`);
  const perShard = opts.shardProducts ?? DEFAULT_SHARD_PRODUCTS;
  const shards = shardCount(catalog.products.length, perShard);
  if (shards > MAX_BROWSE_SHARDS) throw new ShardLimitError(catalog.products.length, perShard, shards);
  const lock = opts.lock ?? processLock(target);
  const by = opts.by === undefined ? {} : { by: opts.by };
  const source = opts.source === undefined ? {} : { source: opts.source };
  return underLock(lock, { action: "publish", version, ...source, ...by }, async (held) => {
    const { pointer, history } = await settleInterrupted(target, opts.browse, held);
    if (opts.skipIfLive && pointer?.current.digest === digest) {
      // A version published before its browse index existed gets one, without a new version.
      if (opts.browse && !(await hasBrowseIndex(opts.browse, pointer.current.version)))
        await writeBrowseIndex(opts.browse, catalog, pointer.current.version, pointer.current.browse_shards);
      return {
        version: pointer.current.version,
        previous: pointer.previous?.version ?? null,
        skipped: true,
        products: catalog.products.length,
        entries: 0,
        deleted: 0,
        stock_tracked: pointer.current.stock_tracked ?? 0,
        stock_plan: null,
      };
    }
    if (
      version === pointer?.current.version ||
      version === pointer?.previous?.version ||
      history.some((e) => e.version === version)
    )
      throw new Error(`Version ${version} already exists.`);
    const mode = opts.stockMode ?? "keep";
    const meta: VersionMeta = {
      ...planVersion(catalog, version, digest),
      ...(shards > 1 ? { browse_shards: shards } : {}),
      // Its place in the history: a Stock shard writes no level for a version older than the
      // newest it wrote (a rollback's), whatever the clocks of the machines that published.
      stock_seq: (history.at(-1)?.seq ?? 0) + 1,
      ...(mode === "replace" ? { stock_replace: true as const } : {}),
    };
    const stockPlan = await planPublishLevels(
      (key) => target.readText(key),
      catalog.products,
      lastPublished(history, pointer?.current ?? null),
      mode,
    );
    const total = entryCount(catalog, meta);
    let written = 0;
    const previous: VersionMeta | null = pointer?.current ?? null;
    opts.onProgress?.({ phase: "validated", written, total });
    // KV entries and the browse index are written side by side (Node builds one while the runtime
    // stores the other), and both are complete before the pointer switch. At 100,000 products
    // (test/browse/browse-measure.ts) one after the other took 76 s; see browse-index.ts.
    const writes = await Promise.allSettled([
      target.writeEntries(buildEntries(catalog, meta), (count) => {
        written += count;
        opts.onProgress?.({ phase: "writing", written, total });
      }),
      opts.browse ? writeBrowseIndex(opts.browse, catalog, version, shards) : Promise.resolve(0),
    ]);
    for (const write of writes) if (write.status === "rejected") throw write.reason;
    const entry = {
      action: "publish" as const,
      version,
      from: previous?.version ?? null,
      products: meta.products,
      ...source,
      ...by,
      meta,
    };
    const result = {
      version,
      previous: previous?.version ?? null,
      skipped: false,
      products: meta.products,
      entries: total,
      deleted: 0,
      stock_tracked: meta.stock_tracked ?? 0,
      stock_plan: stockPlan,
    };
    if (opts.releaseAt) {
      await recordScheduled(target, history, entry, opts.releaseAt);
      return { ...result, release_at: opts.releaseAt.toISOString() };
    }
    const next: Pointer = { current: meta, previous };
    // (Killed before this, while writing, its version is named by its lock, which the next
    // holder breaks as a dead one's.)
    const recorded = await switchRecorded(target, held, pointer, next, history, entry);
    opts.onProgress?.({ phase: "switched", written, total });
    const deleted = await cleanUp(target, opts.browse, next, recorded, held.abandoned);
    opts.onProgress?.({ phase: "cleaned", written, total });
    return { ...result, deleted };
  });
}

/** Publishes into a KV binding (tests, and local state through `openLocalEnv`). */
export function publishCatalog(kv: KVNamespace, input: unknown, opts: PublishOptions): Promise<PublishResult> {
  return publishTo(bindingTarget(kv), input, { ...opts, lock: opts.lock ?? processLock(kv) });
}

export interface RollbackOptions {
  /** The version to make live; default: the previous one (`pointer.previous`). */
  to?: string;
  lock?: CatalogLock;
  by?: string;
  /** Where an interrupted publish's browse tables and snapshots are, so settling it deletes them too. */
  browse?: BrowseTarget | null;
  /**
   * Refuse unless this version is live when the rollback runs (under the lock): the operator saw
   * it live, and a publish or rollback that ran meanwhile (one this rollback waited for) must not
   * make the rollback undo something else than what the operator meant.
   */
  expect?: string;
  /** Called under the lock with the version live now and the one going live, before the switch. */
  onLive?: (live: string, to: string) => void;
}

/** A rollback refused by `expect`: the live version is not the one the operator saw. */
export class UnexpectedLiveVersionError extends Error {
  constructor(expected: string, live: string) {
    super(
      `Refused: the live catalog is ${live}, not ${expected} (--expect). A publish or rollback ran ` +
        `since you looked; nothing was changed. See catalog:rollback --list, then run again.`,
    );
    this.name = "UnexpectedLiveVersionError";
  }
}

/**
 * Makes another kept version live with one pointer switch (compare-and-swap, under the publish
 * lock) and records it in the history. By default the previous version: the two swap places, so
 * a second rollback returns to where the first started. `to` names any version the history
 * still keeps (`catalog:rollback --list`).
 */
export async function rollbackTo(
  target: CatalogKvTarget,
  opts: RollbackOptions = {},
): Promise<{ version: string; previous: string }> {
  const lock = opts.lock ?? processLock(target);
  const by = opts.by === undefined ? {} : { by: opts.by };
  return underLock(lock, { action: "rollback", ...(opts.to ? { version: opts.to } : {}), ...by }, async (held) => {
    const { pointer, history } = await settleInterrupted(target, opts.browse ?? null, held);
    if (!pointer) throw new Error("Nothing has been published yet: there is no catalog version to roll back to.");
    if (opts.expect !== undefined && opts.expect !== pointer.current.version)
      throw new UnexpectedLiveVersionError(opts.expect, pointer.current.version);
    let meta: VersionMeta | undefined;
    if (opts.to === undefined) {
      if (!pointer.previous) throw new Error("There is no previous catalog version to roll back to.");
      meta = pointer.previous;
    } else if (opts.to === pointer.current.version) {
      throw new Error(`Catalog ${opts.to} is already live.`);
    } else {
      const entry = history.findLast((e) => e.version === opts.to);
      if (entry?.state === "scheduled")
        throw new Error(
          `Catalog ${opts.to} is scheduled to go live at ${entry.release_at}: cancel it first ` +
            `(catalog:rollback --cancel ${opts.to}) to make it live now, or let it go live then.`,
        );
      meta = opts.to === pointer.previous?.version ? pointer.previous : entry?.meta;
      if (!meta) throw new Error(`No catalog version ${opts.to} in the publish history (see catalog:rollback --list).`);
      if ((await target.listKeys(keys.meta(opts.to))).length === 0)
        throw new Error(
          `Catalog version ${opts.to} was deleted by a cleanup; only kept versions can go live ` +
            `again (see catalog:rollback --list).`,
        );
    }
    opts.onLive?.(pointer.current.version, meta.version);
    await swapPointer(target, held, pointer, { current: meta, previous: pointer.current });
    await target.writeHistory(
      append(history, {
        action: "rollback",
        version: meta.version,
        from: pointer.current.version,
        products: meta.products,
        ...by,
        meta,
      }),
    );
    return { version: meta.version, previous: pointer.current.version };
  });
}

export function rollbackCatalog(
  kv: KVNamespace,
  opts: RollbackOptions = {},
): Promise<{ version: string; previous: string }> {
  return rollbackTo(bindingTarget(kv), { ...opts, lock: opts.lock ?? processLock(kv) });
}

/** One line of `catalog:rollback --list`: a history entry and whether its version is still kept. */
export interface HistoryLine extends HistoryEntry {
  live: boolean;
  kept: boolean;
}

/**
 * The publish history, oldest first, each entry saying whether its version is live and kept.
 * Given the lock (`settle`), an interrupted publish is settled first (settleInterrupted).
 */
export async function listHistory(
  target: CatalogKvTarget,
  settle?: { lock: CatalogLock; browse: BrowseTarget | null },
): Promise<HistoryLine[]> {
  if (settle)
    await underLock(settle.lock, { action: "rollback" }, (held) => settleInterrupted(target, settle.browse, held));
  const pointer = await target.readPointer();
  const history = await historyOf(target, pointer);
  const stored = new Set(
    (await target.listKeys("v/")).filter((k) => k.endsWith("/meta")).map((k) => k.slice(2, -"/meta".length)),
  );
  return history.map((entry) => ({
    ...entry,
    live: entry.version === pointer?.current.version && entry === history.findLast((e) => e.version === entry.version),
    kept: stored.has(entry.version),
  }));
}
