import { type BatchIssue, CatalogStateError, parseChangeBatch, refuse } from "../../catalog/changes.ts";
import { keys, type Pointer, STOCK_CHUNK, type VersionMeta } from "../../catalog/layout.ts";
import { sha256Hex } from "../../sha256.ts";
import type { BrowseTarget } from "../browse-index.ts";
import type { KvEntry } from "../build.ts";
import { type CatalogLock, processLock } from "../lock.ts";
import {
  type CatalogKvTarget,
  cleanUp,
  newVersionName,
  type PublishProgress,
  recordScheduled,
  settleInterrupted,
  switchRecorded,
  underLock,
} from "../publish.ts";
import { deriveBrowse, idsInUse, rootOf, rootSettings, stateOf } from "./browse.ts";
import { deriveKv } from "./kv.ts";
import { Reads } from "./owners.ts";

/**
 * A change batch applied (contract section 11, issue 45): validated by the publish's schemas and
 * checks, then under the publish lock a new version derived from the live one is written (its
 * KV entries copy-on-write, its browse layer and overlay), recorded in the history as `batch`,
 * and made live by the same compare-and-swap of the pointer as a publish; a rollback returns to
 * any kept version by the pointer, and cleanup keeps every version a kept one reads from. A batch
 * killed before its switch leaves a `publishing` entry the next holder of the lock settles, as a
 * publish's.
 */

export interface ApplyOptions {
  /** The browse index's target (its database and snapshots): a batch reads its root's rows and writes its layer. */
  browse: BrowseTarget;
  lock?: CatalogLock;
  /** Version name; default: a UTC timestamp plus random suffix. */
  version?: string;
  /** Recorded in the history: the file applied and who ran it, when known. */
  source?: string;
  by?: string;
  /** As a publish's: the entries counted, then written, then the pointer switched. */
  onProgress?: (progress: PublishProgress) => void;
  /** Called under the lock with the new version's entries written and its pointer not yet switched (a test's kill point). */
  beforeSwitch?: (version: string) => Promise<void> | void;
  /** Write the version now, switch it live at this second (`catalog:apply --at`; see src/publish/release.ts). */
  releaseAt?: Date;
  /** Products a browse layer holds before it is frozen (batch/browse.ts LAYER_LIMIT; tests freeze small ones). */
  layerLimit?: number;
}

export interface ApplyResult {
  /** The version live after the batch; the live one before (equal for a batch that changes nothing). */
  version: string;
  previous: string;
  changed: { products: number; collections: number };
  /** KV entries written and their bytes (a batch's cost: it grows with what it changes). */
  entries: number;
  bytes: number;
  /** Levels this version writes into live stock (newly tracked variants, or quantities that differ). */
  levels: number;
  /** Stale keys deleted by the cleanup. */
  deleted: number;
  /** A scheduled batch (`releaseAt`): when it goes live, if its base is still live then. */
  release_at?: string;
}

/** Applies the batch `input` (a change batch's JSON, parsed) to the live catalog of `target`. */
export async function applyBatch(target: CatalogKvTarget, input: unknown, opts: ApplyOptions): Promise<ApplyResult> {
  const version = opts.version ?? newVersionName();
  const lock = opts.lock ?? processLock(target);
  const by = opts.by === undefined ? {} : { by: opts.by };
  const source = opts.source === undefined ? {} : { source: opts.source };
  return underLock(lock, { action: "batch", version, ...source, ...by }, async (held) => {
    const { pointer, history } = await settleInterrupted(target, opts.browse, held);
    if (!pointer)
      throw new CatalogStateError(
        "catalog_unavailable",
        "Nothing has been published yet: publish a catalog before applying changes to it.",
      );
    const base = pointer.current;
    const root = rootOf(base);
    const settings = await rootSettings(opts.browse, root);
    if (!settings)
      throw new CatalogStateError(
        "catalog_republish_required",
        `The live catalog ${base.version} was published before change batches existed: publish it once more ` +
          "(npm run catalog:publish), then apply changes to it.",
      );
    const batch = parseChangeBatch(input, settings);
    const changed = {
      products: batch.upsert.length + batch.delete.length,
      collections: batch.collections.upsert.length + batch.collections.delete.length,
    };
    const none = { version: base.version, previous: base.version, entries: 0, bytes: 0, levels: 0, deleted: 0 };
    if (changed.products + changed.collections === 0) return { ...none, changed };
    const reads = new Reads(target);
    const state = await stateOf(opts.browse, base, reads);
    const issues: BatchIssue[] = [];
    const kv = await deriveKv({
      base,
      version,
      batch,
      currency: settings.currency,
      reads,
      idsInUse: (ids) => idsInUse(opts.browse, root, state, ids),
      issues,
    });
    refuse(input, issues);
    if (!kv) return { ...none, changed };
    if (
      version === pointer.current.version ||
      version === pointer.previous?.version ||
      history.some((e) => e.version === version)
    )
      throw new Error(`Version ${version} already exists.`);
    // The KV entries and the browse layer are written side by side (as a publish's entries and
    // index), both complete before the meta naming the layer is written and the pointer switched.
    const entries: KvEntry[] = [...kv.entries];
    for (let k = 0; k * STOCK_CHUNK < kv.levels.length; k++)
      entries.push({
        key: keys.stockChunk(version, k),
        value: kv.levels.slice(k * STOCK_CHUNK, (k + 1) * STOCK_CHUNK).join("\n"),
      });
    const total = entries.length + 1;
    let written = 0;
    const onWritten = (n: number) => {
      written += n;
      opts.onProgress?.({ phase: "writing", written, total });
    };
    opts.onProgress?.({ phase: "validated", written, total });
    const [browse, writing] = await Promise.allSettled([
      deriveBrowse({
        base,
        version,
        target: opts.browse,
        settings,
        state,
        kv,
        headers: kv.headers,
        reads,
        ...(opts.layerLimit === undefined ? {} : { layerLimit: opts.layerLimit }),
      }),
      target.writeEntries(entries, onWritten),
    ]);
    if (browse.status === "rejected") throw browse.reason;
    if (writing.status === "rejected") throw writing.reason;
    const {
      browse_shards: _shards,
      stock_tracked: _tracked,
      stock_chunks: _chunks,
      stock_replace: _replace,
      ...kept
    } = base;
    const meta: VersionMeta = {
      ...kept,
      version,
      digest: await sha256Hex(`${base.digest}\n${JSON.stringify(batch)}`),
      published_at: new Date().toISOString(),
      products: kv.products,
      collections: kv.collections,
      browse_overlay: browse.value,
      derived: kv.derived,
      // Its place in the history, as a publish's (a Stock shard writes nothing for an older one),
      // and its stock chunks hold only what it changed.
      stock_seq: (history.at(-1)?.seq ?? 0) + 1,
      stock_delta: true,
      ...(kv.tracked > 0 ? { stock_tracked: kv.tracked } : {}),
      ...(kv.levels.length > 0 ? { stock_chunks: Math.ceil(kv.levels.length / STOCK_CHUNK) } : {}),
    };
    // The meta last: a version whose meta is there is whole (a cleanup deletes it first, too).
    const metaEntry = { key: keys.meta(version), value: JSON.stringify(meta) };
    await target.writeEntries([metaEntry], onWritten);
    entries.push(metaEntry);
    await opts.beforeSwitch?.(version);
    const entry = {
      action: "batch" as const,
      version,
      from: base.version,
      products: meta.products,
      ...source,
      ...by,
      meta,
      changed,
    };
    const result = {
      version,
      previous: base.version,
      changed,
      entries: entries.length,
      bytes: entries.reduce((n, e) => n + e.value.length, 0),
      levels: kv.written,
      deleted: 0,
    };
    if (opts.releaseAt) {
      await recordScheduled(target, history, entry, opts.releaseAt);
      return { ...result, release_at: opts.releaseAt.toISOString() };
    }
    // As a publish: the history knows the version before the pointer names it, completed after.
    const next: Pointer = { current: meta, previous: base };
    const recorded = await switchRecorded(target, held, pointer, next, history, entry);
    opts.onProgress?.({ phase: "switched", written, total });
    // The cleanup looks only at what this batch stops keeping (publish.ts cleanUp).
    return {
      ...result,
      deleted: await cleanUp(target, opts.browse, next, recorded, held.abandoned, { pointer, history }),
    };
  });
}
