import { sha256Hex } from "../sha256.ts";
import type {
  AppliedChange,
  CommitResult,
  HoldLine,
  HoldOptions,
  HoldRefusal,
  ShardChange,
  StockLevel,
  StockMovement,
  StockSource,
} from "./api.ts";
import { type BatchRefusal, checkChanges } from "./batch-check.ts";
import { batchHome, coordinatorName, shardName, stockShards, stockStub, variantShard } from "./shards.ts";
import type { ShardBatch, Stock } from "./stock-object.ts";

export { DEFAULT_STOCK_SHARDS, MAX_STOCK_SHARDS, stockShards } from "./shards.ts";
export type { PublishSync } from "./api.ts";

/** What makes two operator batches "the same" under one Idempotency-Key: their changes, in order. */
export function batchFingerprint(changes: readonly ShardChange[]): Promise<string> {
  return sha256Hex(JSON.stringify(changes.map((c) => [c.index, c.variantId, c.op, c.value])));
}

/** Versions this isolate knows are synced (their levels are in the shards). */
const syncedVersions = new Set<string>();
/** Shards this isolate knows hold a version's levels (`<shards>/<version>/<shard>`). */
const syncedShards = new Set<string>();
/** Shards whose sync this isolate has started in the background (see `startSync`). */
const startedShards = new Set<string>();

/** What syncing needs of a catalog version's meta: its id. */
type VersionStock = { version: string };

/** A change as the batch's answer shows it: `replayed` when an earlier try had applied it. */
export interface BatchChange extends AppliedChange {
  replayed: boolean;
}

export type BatchOutcome =
  | { ok: true; applied: BatchChange[]; levels: StockLevel[] }
  | { ok: false; code: "idempotency_key_reused"; message: string; applied: BatchChange[] }
  | {
      ok: false;
      code: "quantity_out_of_range" | "not_tracked";
      message: string;
      index: number;
      applied: BatchChange[];
    };

export type HoldOutcome =
  | { ok: true; levels: StockLevel[] }
  | { ok: false; code: "hold_refused"; refusals: HoldRefusal[] }
  | { ok: false; code: "hold_closed"; message: string };

/**
 * The stock room's adapter: the only code outside the room that reaches the `STOCK` namespace.
 * It routes each variant id to its shard (shards.ts), so every variant has one writer, and spreads
 * a multi-variant call over the shards it touches, in parallel.
 *
 * The shard count is part of each shard's name (`stock/16/3`): a different count addresses new,
 * empty objects instead of two counts writing one variant, so changing it means publishing the
 * catalog again to write its levels (README, Operating).
 */
export class StockStore {
  readonly #namespace: DurableObjectNamespace<Stock>;
  readonly #shards: number;
  readonly #stubs = new Map<number, DurableObjectStub<Stock>>();

  constructor(namespace: DurableObjectNamespace<Stock>, shards: number) {
    this.#namespace = namespace;
    this.#shards = shards;
  }

  get shards(): number {
    return this.#shards;
  }

  /** Which shard holds `variantId` (digits). */
  shardOf(variantId: string): number {
    return variantShard(variantId, this.#shards);
  }

  /** The stub of one shard, by number (kept: a cart object adds to one shard again and again). */
  shard(index: number): DurableObjectStub<Stock> {
    let stub = this.#stubs.get(index);
    if (!stub) {
      stub = stockStub(this.#namespace, shardName(this.#shards, index));
      this.#stubs.set(index, stub);
    }
    return stub;
  }

  /** The object that writes each published version's levels into the shards (see `Stock.syncVersion`). */
  coordinator(): DurableObjectStub<Stock> {
    return stockStub(this.#namespace, coordinatorName(this.#shards));
  }

  /**
   * Makes sure the live version's levels are in the shards before stock is read or changed: for
   * `variantIds`, only the shards holding them (each writes its own part of the version's levels,
   * about 1 s at 100k products, so the first add or change after a publish does not wait for all
   * sixteen), else every shard through the coordinator. Remembered per isolate. A version that
   * tracks nothing is synced too: it ends the tracking the catalog gave before (publish-levels.ts).
   */
  async ensureSynced(meta: VersionStock, variantIds?: readonly string[]): Promise<void> {
    if (variantIds !== undefined) {
      await Promise.all(this.#unsynced(meta, variantIds).map((shard) => this.#syncShard(meta.version, shard)));
      return;
    }
    if (this.#needsSync(meta) && (await this.coordinator().syncVersion(meta.version)))
      syncedVersions.add(this.#versionKey(meta.version));
  }

  /**
   * Starts, without waiting, the sync of the shards holding `variantIds` (the variants the stock
   * overlay names): catalog reads call it so that no overlay entry of an earlier version's levels
   * lingers in a shard no stock call has touched since the publish. Once per shard per isolate
   * (again after a failure).
   */
  startSync(meta: VersionStock, variantIds: readonly string[], waitUntil: (work: Promise<unknown>) => void): void {
    for (const shard of this.#unsynced(meta, variantIds)) {
      const key = this.#shardKey(meta.version, shard);
      if (startedShards.has(key)) continue;
      startedShards.add(key);
      waitUntil(this.#syncShard(meta.version, shard).finally(() => startedShards.delete(key)));
    }
  }

  /** The shards of `variantIds` this isolate does not know to hold `meta`'s levels. */
  #unsynced(meta: VersionStock, variantIds: readonly string[]): number[] {
    if (!this.#needsSync(meta)) return [];
    return [...new Set(variantIds.map((id) => this.shardOf(id)))].filter(
      (shard) => !syncedShards.has(this.#shardKey(meta.version, shard)),
    );
  }

  /** Whether this isolate does not know `meta`'s levels synced whole. */
  #needsSync(meta: VersionStock): boolean {
    return !syncedVersions.has(this.#versionKey(meta.version));
  }

  /** A version, as `syncedVersions` names it (the shard count is part of it). */
  #versionKey(version: string): string {
    return `${this.#shards}/${version}`;
  }

  /** A shard of a version, as `syncedShards` and `startedShards` name it. */
  #shardKey(version: string, shard: number): string {
    return `${this.#versionKey(version)}/${shard}`;
  }

  async #syncShard(version: string, shard: number): Promise<void> {
    if (await this.shard(shard).syncShard(version, shard, this.#shards))
      syncedShards.add(this.#shardKey(version, shard));
  }

  /** The stub holding `variantId`. */
  shardFor(variantId: string): DurableObjectStub<Stock> {
    return this.shard(this.shardOf(variantId));
  }

  /**
   * Levels of `variantIds` (digits), one RPC per shard touched; read for `owner` (a holder's cart
   * object id), the units its own open checkout holds count as available to it.
   */
  async levels(variantIds: readonly string[], owner?: string): Promise<Map<string, StockLevel>> {
    const groups = this.#group(variantIds, (id) => id);
    const parts = await Promise.all([...groups].map(([shard, ids]) => this.shard(shard).levels(ids, owner)));
    return new Map(parts.flat().map((level) => [level.variant_id, level]));
  }

  /** One variant's level: what an add to cart reads (for `owner`, as `levels`). */
  async level(variantId: string, owner?: string): Promise<StockLevel> {
    const [level] = await this.shardFor(variantId).levels([variantId], owner);
    if (!level) throw new Error("a stock shard answered no level");
    return level;
  }

  /**
   * Applies a batch of set/adjust changes, idempotent by `batchId`. Every batch first claims its
   * id with its fingerprint in one home (`batchHome`, whichever shards the changes touch), so a
   * different batch under the same id is refused before anything is applied, even when the two
   * batches touch different shards (issue 42 point 7); a batch over several shards then checks
   * every `adjust` against today's levels. Each shard applies its part, all or none. A batch cut
   * short (a crash, a lost answer) completes when retried with the same id: shards that had
   * applied their part replay it (`replayed: true`).
   */
  async apply(
    batchId: string,
    fingerprint: string,
    source: StockSource,
    changes: readonly ShardChange[],
  ): Promise<BatchOutcome> {
    const groups = this.#group(changes, (c) => c.variantId);
    const claim = await this.shard(batchHome(batchId, this.#shards)).apply({
      batchId: `claim:${batchId}`,
      fingerprint,
      source,
      changes: [],
    });
    if (!claim.ok) return { ...claim, ok: false, code: "idempotency_key_reused", applied: [] } as BatchOutcome;
    if (!claim.replayed && groups.size > 1) {
      const refused = await this.#precheck(changes);
      if (refused) return { ...refused, applied: [] };
    }
    const parts = await Promise.all(
      [...groups].map(([shard, part]) =>
        this.shard(shard).apply({ batchId, fingerprint, source, changes: part } satisfies ShardBatch),
      ),
    );
    const applied: BatchChange[] = [];
    const levels: StockLevel[] = [];
    let refusal: BatchOutcome | undefined;
    for (const part of parts) {
      if (part.ok) {
        applied.push(...part.applied.map((a) => ({ ...a, replayed: part.replayed })));
        levels.push(...part.levels);
      } else if (!refusal) {
        refusal = { ...part, applied: [] };
      }
    }
    applied.sort((a, b) => a.index - b.index);
    if (refusal) return { ...refusal, applied };
    return { ok: true, applied, levels };
  }

  /**
   * Holds `lines` for a checkout across every shard they touch, all or none: if any shard
   * refuses, the parts other shards held are released before answering. A refused hold id is
   * spent (its released parts stay released): try again with a new id.
   */
  async hold(
    holdId: string,
    lines: readonly HoldLine[],
    expiresAt?: number,
    options: HoldOptions = {},
  ): Promise<HoldOutcome> {
    const groups = this.#group(lines, (l) => l.variant_id);
    const settled = await Promise.allSettled(
      [...groups].map(([shard, part]) => this.shard(shard).hold(holdId, part, expiresAt, options)),
    );
    const failed = settled.find((s) => s.status === "rejected");
    const results = settled.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
    if (!failed && results.every((r) => r.ok)) {
      return { ok: true, levels: results.flatMap((r) => (r.ok ? r.levels : [])) };
    }
    // All or none: give back what the other shards held, then answer the refusal (or rethrow).
    await this.release(
      holdId,
      lines.map((l) => l.variant_id),
    );
    if (failed) throw (failed as PromiseRejectedResult).reason;
    const refusals = results.flatMap((r) => (!r.ok && r.code === "hold_refused" ? r.refusals : []));
    if (refusals.length > 0) return { ok: false, code: "hold_refused", refusals };
    const closed = results.find((r) => !r.ok && r.code === "hold_closed");
    return {
      ok: false,
      code: "hold_closed",
      message: closed && !closed.ok && "message" in closed ? closed.message : `Hold ${holdId} is closed.`,
    };
  }

  /** Gives back a hold's units on every shard holding one of `variantIds`. Idempotent. */
  async release(holdId: string, variantIds: readonly string[]): Promise<void> {
    const shards = [...this.#group(variantIds, (id) => id).keys()];
    await Promise.all(shards.map((shard) => this.shard(shard).release(holdId)));
  }

  /** Commits a hold on every shard `lines` touch (see `Stock.commit`). Idempotent. */
  async commit(holdId: string, lines: readonly HoldLine[]): Promise<CommitResult> {
    const groups = this.#group(lines, (l) => l.variant_id);
    const parts = await Promise.all([...groups].map(([shard, part]) => this.shard(shard).commit(holdId, part)));
    return {
      replayed: parts.every((p) => p.replayed),
      lines: parts.flatMap((p) => p.lines),
      levels: parts.flatMap((p) => p.levels),
    };
  }

  /** One variant's movement log, oldest first: the first `limit`, or the newest `limit` with `newest`. */
  async movements(variantId: string, limit = 100, newest = false): Promise<StockMovement[]> {
    return this.shardFor(variantId).movements({ variantId, limit, newest });
  }

  /** `checkChanges` against today's levels of the variants a batch adjusts: read before a multi-shard batch applies. */
  async #precheck(changes: readonly ShardChange[]): Promise<BatchRefusal | undefined> {
    const adjusted = changes.filter((c) => c.op === "adjust").map((c) => c.variantId);
    if (adjusted.length === 0) return undefined;
    const levels = await this.levels(adjusted);
    return checkChanges(changes, (id) => {
      const level = levels.get(id);
      return level?.tracked ? level.quantity : level ? null : 0;
    });
  }

  #group<T>(items: readonly T[], idOf: (item: T) => string): Map<number, T[]> {
    const groups = new Map<number, T[]>();
    for (const item of items) {
      const shard = this.shardOf(idOf(item));
      const group = groups.get(shard);
      if (group) group.push(item);
      else groups.set(shard, [item]);
    }
    return groups;
  }
}

/** The stock adapter for this Worker's bindings. */
export function stockStore(env: Env): StockStore {
  return new StockStore(env.STOCK as DurableObjectNamespace<Stock>, stockShards(env.STOCK_SHARDS));
}
