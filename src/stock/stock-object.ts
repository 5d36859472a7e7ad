import { DurableObject } from "cloudflare:workers";
import {
  type ApplyResult,
  type AppliedChange,
  type CommitResult,
  type CommittedLine,
  type HoldLine,
  type HoldRefusal,
  type HoldResult,
  type HoldState,
  type InventoryPolicy,
  MAX_STOCK_LEVEL,
  type PublishSync,
  type ReleaseResult,
  STOCK_BATCH_TTL_MS,
  STOCK_HISTORY_MS,
  type ShardChange,
  type StockLevel,
  type StockMovement,
  type StockSource,
} from "./api.ts";
import { migrateFrom } from "./migrations.ts";
import { STOCK_OVERLAY_KEY, type StockOverlay } from "../catalog/layout.ts";
import { CatalogStore } from "../catalog/store.ts";
import { coordinatorName, shardName, stockShards, stockStub, variantShard } from "./shards.ts";
import { sha256Hex } from "../sha256.ts";

/** A set/adjust batch as one shard receives it (its part of the caller's batch). */
export interface ShardBatch {
  /** The caller's id for the whole batch: a retry with it replays instead of applying twice. */
  batchId: string;
  /** What makes two batches "the same" under one id (the caller's digest of the whole batch). */
  fingerprint: string;
  source: StockSource;
  changes: ShardChange[];
}

interface LevelRow extends Record<string, SqlStorageValue> {
  variant_id: string;
  quantity: number;
  held: number;
  policy: InventoryPolicy;
  published: number | null;
}

/** One shard's overlay entry: variant, in stock now, units left, and both as the last publish wrote them. */
export type OverlayEntry = [
  variantId: string,
  inStock: number,
  available: number,
  baseInStock: number,
  baseAvailable: number,
];

/** The overlay key is written at most this often (Workers KV takes one write a second per key). */
export const OVERLAY_WRITE_INTERVAL_MS = 1000;

/** How often the alarm prunes when nothing else is due. */
const HOUSEKEEPING_MS = 24 * 60 * 60 * 1000;

/** What a shopper may take and whether the variant sells, from a row (or its absence). */
function levelOf(variantId: string, row: LevelRow | undefined): StockLevel {
  if (!row) {
    return {
      variant_id: variantId,
      tracked: false,
      quantity: 0,
      held: 0,
      available_quantity: 0,
      policy: "deny",
      in_stock: true,
    };
  }
  const available = Math.max(0, row.quantity - row.held);
  return {
    variant_id: variantId,
    tracked: true,
    quantity: row.quantity,
    held: row.held,
    available_quantity: available,
    policy: row.policy,
    in_stock: row.policy === "continue" || available > 0,
  };
}

/** A record's entries in key order: the same content, the same digest. */
function sortedEntries<T>(record: Record<string, T>): [string, T][] {
  return Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** 64 bits of SHA-256: a cache key part that stands for `value` (see `stockKeyPart`). */
function keyDigest(value: unknown): Promise<string> {
  return sha256Hex(typeof value === "string" ? value : JSON.stringify(value), 8);
}

/** Sums quantities per variant, in first-seen order. */
function merged(lines: readonly HoldLine[]): HoldLine[] {
  const total = new Map<string, number>();
  for (const line of lines) total.set(line.variant_id, (total.get(line.variant_id) ?? 0) + line.quantity);
  return [...total].map(([variant_id, quantity]) => ({ variant_id, quantity }));
}

function validLines(lines: readonly HoldLine[]): boolean {
  return lines.every((l) => Number.isSafeInteger(l.quantity) && l.quantity > 0 && l.quantity <= MAX_STOCK_LEVEL);
}

/**
 * One shard of live stock: a SQLite Durable Object holding the level of every variant whose id
 * hashes to it (see `StockStore`), so each variant has exactly one writer and every check and
 * change of its level is strongly consistent, outside any catalog version.
 *
 * Why a Durable Object: "3 left" must mean 3 whatever the number of shoppers adding at once. A
 * level, the units held for checkouts and the append-only movement log change in one synchronous
 * SQLite transaction, and every method is idempotent by an id its caller chooses (a batch id, a
 * hold id), so a caller that lost an answer (a crash, a timeout) retries without applying twice.
 *
 * Results are plain data (see `api.ts`): errors crossing RPC lose their class.
 */
export class Stock extends DurableObject<Env> {
  readonly #sql: SqlStorage;
  /** Coordinator role: the sync of each version running in this instance (one at a time per version). */
  readonly #syncing = new Map<string, Promise<PublishSync | null>>();
  /** Variants whose level or held units this call changed: their overlay entries are redone after it. */
  readonly #touched = new Set<string>();
  /** Coordinator role: overlay writes run one at a time, in order. */
  #overlayWrite: Promise<void> = Promise.resolve();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#sql = ctx.storage.sql;
    void ctx.blockConcurrencyWhile(async () => {
      migrateFrom(this.#sql);
    });
  }

  /** Current levels; a variant never written reads as untracked. */
  async levels(variantIds: readonly string[]): Promise<StockLevel[]> {
    return variantIds.map((id) => levelOf(id, this.#row(id)));
  }

  /**
   * Applies a batch of set/adjust changes, all or none: a change that would take a level out of
   * ±MAX_STOCK_LEVEL refuses the whole batch (naming its index). A batch id seen before replays
   * what it applied (with today's levels) when the fingerprint matches, else is refused.
   */
  async apply(batch: ShardBatch): Promise<ApplyResult> {
    const now = Date.now();
    const seen = this.#sql
      .exec<{ fingerprint: string; result: string }>(
        "SELECT fingerprint, result FROM batches WHERE batch_id = ?",
        batch.batchId,
      )
      .toArray()[0];
    if (seen) {
      if (seen.fingerprint !== batch.fingerprint) {
        return {
          ok: false,
          code: "idempotency_key_reused",
          message: "This batch id was used with different changes.",
        };
      }
      const applied = JSON.parse(seen.result) as AppliedChange[];
      return { ok: true, replayed: true, applied, levels: this.#levelsOf(applied.map((a) => a.variant_id)) };
    }
    // Check every change against the level it will meet (earlier changes of the batch included).
    const planned = new Map<string, number>();
    for (const change of batch.changes) {
      const before = planned.get(change.variantId) ?? this.#row(change.variantId)?.quantity ?? 0;
      const after = change.op === "set" ? change.value : before + change.value;
      if (!Number.isSafeInteger(after) || Math.abs(after) > MAX_STOCK_LEVEL) {
        return {
          ok: false,
          code: "quantity_out_of_range",
          message: `Change ${change.index} would take variant ${change.variantId} to ${after}, beyond ±${MAX_STOCK_LEVEL}.`,
          index: change.index,
        };
      }
      planned.set(change.variantId, after);
    }
    const applied = this.ctx.storage.transactionSync(() => {
      const done: AppliedChange[] = [];
      for (const change of batch.changes) done.push(this.#applyOne(change, batch, now));
      this.#sql.exec(
        "INSERT INTO batches (batch_id, fingerprint, result, created_at) VALUES (?, ?, ?, ?)",
        batch.batchId,
        batch.fingerprint,
        JSON.stringify(done),
        now,
      );
      return done;
    });
    await this.#afterChange();
    await this.#armHousekeeping();
    return { ok: true, replayed: false, applied, levels: this.#levelsOf(applied.map((a) => a.variant_id)) };
  }

  /**
   * Holds units for a checkout, all lines or none: a `deny` variant must have the units left
   * (level minus units already held). Untracked variants need no hold and are skipped;
   * `continue` variants are held even past zero. The same hold id again replays; a hold id
   * already released or committed is closed (use a new id). `expiresAt` (ms) is a safety net:
   * the object's alarm releases a hold still open then, should its checkout never settle it.
   */
  async hold(holdId: string, lines: readonly HoldLine[], expiresAt?: number): Promise<HoldResult> {
    const state = this.#holdState(holdId);
    const wanted = merged(lines);
    if (state === "held") {
      return { ok: true, replayed: true, levels: this.#levelsOf(wanted.map((l) => l.variant_id)) };
    }
    if (state === "released" || state === "committed") {
      return { ok: false, code: "hold_closed", message: `Hold ${holdId} is already ${state}.`, state };
    }
    if (!validLines(wanted)) throw new RangeError("hold quantities must be positive integers");
    const refusals: HoldRefusal[] = [];
    const tracked: { line: HoldLine; row: LevelRow }[] = [];
    for (const line of wanted) {
      const row = this.#row(line.variant_id);
      if (!row) continue;
      const available = Math.max(0, row.quantity - row.held);
      if (row.policy === "deny" && available < line.quantity) {
        refusals.push({
          variant_id: line.variant_id,
          code: available === 0 ? "sold_out" : "insufficient_stock",
          available_quantity: available,
        });
      }
      tracked.push({ line, row });
    }
    if (refusals.length > 0) return { ok: false, code: "hold_refused", refusals };
    const now = Date.now();
    this.ctx.storage.transactionSync(() => {
      this.#sql.exec(
        "INSERT INTO holds (hold_id, state, created_at, expires_at) VALUES (?, 'held', ?, ?)",
        holdId,
        now,
        expiresAt ?? null,
      );
      for (const { line, row } of tracked) {
        this.#sql.exec(
          "INSERT INTO hold_lines (hold_id, variant_id, quantity) VALUES (?, ?, ?)",
          holdId,
          line.variant_id,
          line.quantity,
        );
        this.#move(row, now, { source: "checkout", ref: holdId, kind: "hold", dq: 0, dh: line.quantity });
      }
    });
    await this.#afterChange();
    if (expiresAt !== undefined) await this.#armAt(expiresAt);
    else await this.#armHousekeeping();
    return { ok: true, replayed: false, levels: this.#levelsOf(wanted.map((l) => l.variant_id)) };
  }

  /** Gives a hold's units back. Releasing twice, or a hold this shard never saw, changes nothing. */
  async release(holdId: string): Promise<ReleaseResult> {
    const previous = this.#holdState(holdId);
    const variants = this.#holdLines(holdId).map((l) => l.variant_id);
    if (previous === "held") {
      this.ctx.storage.transactionSync(() => this.#settleRelease(holdId, "release", Date.now()));
      await this.#afterChange();
    }
    return { previous, levels: this.#levelsOf(variants) };
  }

  /**
   * Turns a hold into a decrement of the level (an order was paid). Idempotent: a second commit
   * replays the first. A hold that was released (expired) or never reached this shard is
   * committed from `lines` anyway (the payment is real) and each line not covered by what was
   * left is flagged `oversold`.
   */
  async commit(holdId: string, lines: readonly HoldLine[]): Promise<CommitResult> {
    const state = this.#holdState(holdId);
    if (state === "committed") {
      const result = this.#sql
        .exec<{ result: string }>("SELECT result FROM holds WHERE hold_id = ?", holdId)
        .one().result;
      const committed = JSON.parse(result) as CommittedLine[];
      return { replayed: true, lines: committed, levels: this.#levelsOf(committed.map((l) => l.variant_id)) };
    }
    const now = Date.now();
    const committed = this.ctx.storage.transactionSync(() => {
      const done: CommittedLine[] = [];
      if (state === "held") {
        for (const line of this.#holdLines(holdId)) {
          const row = this.#row(line.variant_id);
          if (!row) continue;
          this.#move(row, now, {
            source: "checkout",
            ref: holdId,
            kind: "commit",
            dq: -line.quantity,
            dh: -line.quantity,
          });
          done.push({ ...line, oversold: false });
        }
        this.#sql.exec(
          "UPDATE holds SET state = 'committed', settled_at = ?, result = ? WHERE hold_id = ?",
          now,
          JSON.stringify(done),
          holdId,
        );
        return done;
      }
      const wanted = merged(lines);
      if (!validLines(wanted)) throw new RangeError("commit quantities must be positive integers");
      for (const line of wanted) {
        const row = this.#row(line.variant_id);
        if (!row) continue;
        const available = Math.max(0, row.quantity - row.held);
        this.#move(row, now, { source: "checkout", ref: holdId, kind: "commit", dq: -line.quantity, dh: 0 });
        done.push({ ...line, oversold: row.policy === "deny" && available < line.quantity });
      }
      if (state === "unknown") {
        this.#sql.exec(
          "INSERT INTO holds (hold_id, state, created_at, settled_at, result) VALUES (?, 'committed', ?, ?, ?)",
          holdId,
          now,
          now,
          JSON.stringify(done),
        );
      } else {
        this.#sql.exec(
          "UPDATE holds SET state = 'committed', settled_at = ?, result = ? WHERE hold_id = ?",
          now,
          JSON.stringify(done),
          holdId,
        );
      }
      return done;
    });
    await this.#afterChange();
    await this.#armHousekeeping();
    return { replayed: false, lines: committed, levels: this.#levelsOf(committed.map((l) => l.variant_id)) };
  }

  /**
   * Coordinator role (only the object `coordinatorName` names, shards.ts): has every shard write its
   * part of a published version's levels (`syncShard`, all at once) and records how many levels
   * changed, once per version. Returns null for a version that is gone. A rollback's version was
   * synced when it was published, so rolling back never resets live stock.
   */
  async syncVersion(version: string): Promise<PublishSync | null> {
    return this.#once(version, version, async () => {
      const meta = await new CatalogStore(this.env.CATALOG).versionMeta(version);
      if (!meta) return null;
      const shards = stockShards(this.env.STOCK_SHARDS);
      const parts = await Promise.all(
        Array.from({ length: shards }, (_, shard) =>
          stockStub(this.#namespace(), shardName(shards, shard)).syncShard(version, shard, shards),
        ),
      );
      if (parts.some((part) => part === null)) return null;
      const changed = parts.reduce((sum, part) => sum + (part?.changed ?? 0), 0);
      return { version, tracked: meta.stock_tracked ?? 0, changed };
    });
  }

  /**
   * Shard role: writes this shard's part of a published version's levels (the lines of its
   * `stock` chunks in KV whose variants hash to `shard` of `shards`), once per version, chunk by
   * chunk as batches `publish:<version>:<chunk>` (the ids the whole-version sync has always used,
   * so a part written before replays). Returns how many of its levels changed, or null for a
   * version that is gone.
   */
  async syncShard(version: string, shard: number, shards: number): Promise<PublishSync | null> {
    return this.#once(`shard:${version}`, version, async () => {
      const catalog = new CatalogStore(this.env.CATALOG);
      const meta = await catalog.versionMeta(version);
      if (!meta) return null;
      let index = 0;
      let tracked = 0;
      let changed = 0;
      for (let chunk = 0; chunk < (meta.stock_chunks ?? 0); chunk++) {
        const changes: ShardChange[] = [];
        for (const [variantId, value, policy] of await catalog.stockChunk(meta, chunk)) {
          const at = index++;
          if (variantShard(variantId, shards) === shard)
            changes.push({ index: at, variantId, op: "set", value, policy });
        }
        if (changes.length === 0) continue;
        tracked += changes.length;
        const id = `publish:${version}:${chunk}`;
        const outcome = await this.apply({ batchId: id, fingerprint: id, source: "publish", changes });
        if (!outcome.ok) throw new Error(`stock sync of ${version} failed: ${outcome.message}`);
        changed += outcome.applied.filter((a) => a.changed).length;
      }
      return { version, tracked, changed };
    });
  }

  /**
   * Runs a sync once: its result recorded under `key` (the version for the coordinator, as it
   * always was; `shard:<version>` for a shard), one run at a time per key in this instance.
   */
  async #once(key: string, version: string, run: () => Promise<PublishSync | null>): Promise<PublishSync | null> {
    const done = this.#sql
      .exec<{ tracked: number; changed: number }>("SELECT tracked, changed FROM synced_versions WHERE version = ?", key)
      .toArray()[0];
    if (done) return { version, tracked: done.tracked, changed: done.changed };
    let running = this.#syncing.get(key);
    if (!running) {
      running = run()
        .then((result) => {
          if (result)
            this.#sql.exec(
              "INSERT OR IGNORE INTO synced_versions (version, tracked, changed, at) VALUES (?, ?, ?, ?)",
              key,
              result.tracked,
              result.changed,
              Date.now(),
            );
          return result;
        })
        .finally(() => this.#syncing.delete(key));
      this.#syncing.set(key, running);
    }
    return running;
  }

  /** The hold's state here: `unknown` when this shard never saw it (or has pruned it). */
  async holdState(holdId: string): Promise<HoldState> {
    return this.#holdState(holdId);
  }

  /**
   * What a committed hold decremented here: its tracked lines (a variant not tracked when the
   * order was paid has none), or null when the hold is not committed here. Lets a reconciliation
   * tell an order sold before its variant was tracked from an order stock never heard of.
   */
  async committedLines(holdId: string): Promise<CommittedLine[] | null> {
    const row = this.#sql
      .exec<{ state: HoldState; result: string | null }>("SELECT state, result FROM holds WHERE hold_id = ?", holdId)
      .toArray()[0];
    return row?.state === "committed" && row.result !== null ? (JSON.parse(row.result) as CommittedLine[]) : null;
  }

  /**
   * The movement log, oldest first: every variant's, or one's, after `afterSeq`. What the
   * operator's `stock show` prints and what an audit sums (the log agrees with the levels).
   */
  async movements(
    options: { variantId?: string; afterSeq?: number; limit?: number; newest?: boolean } = {},
  ): Promise<StockMovement[]> {
    const limit = Math.min(Math.max(options.limit ?? 100, 1), 1000);
    const after = options.afterSeq ?? 0;
    if (options.newest && options.variantId !== undefined) {
      return this.#sql
        .exec<StockMovement & Record<string, SqlStorageValue>>(
          "SELECT * FROM (SELECT * FROM movements WHERE variant_id = ? ORDER BY seq DESC LIMIT ?) ORDER BY seq",
          options.variantId,
          limit,
        )
        .toArray()
        .map((r) => ({ ...r }));
    }
    const rows =
      options.variantId === undefined
        ? this.#sql.exec<StockMovement & Record<string, SqlStorageValue>>(
            "SELECT * FROM movements WHERE seq > ? ORDER BY seq LIMIT ?",
            after,
            limit,
          )
        : this.#sql.exec<StockMovement & Record<string, SqlStorageValue>>(
            "SELECT * FROM movements WHERE variant_id = ? AND seq > ? ORDER BY seq LIMIT ?",
            options.variantId,
            after,
            limit,
          );
    return rows.toArray().map((r) => ({ ...r }));
  }

  /**
   * Releases holds whose `expiresAt` has passed (their checkout never settled them), then prunes
   * the movement log and settled holds older than STOCK_HISTORY_MS and batch ids older than
   * STOCK_BATCH_TTL_MS. Re-arms for the next open hold's expiry, or a day later.
   */
  override async alarm(): Promise<void> {
    const now = Date.now();
    const due = this.#sql
      .exec<{ hold_id: string }>(
        "SELECT hold_id FROM holds WHERE state = 'held' AND expires_at IS NOT NULL AND expires_at <= ?",
        now,
      )
      .toArray();
    this.ctx.storage.transactionSync(() => {
      for (const { hold_id } of due) this.#settleRelease(hold_id, "expire", now);
      this.#sql.exec("DELETE FROM movements WHERE at < ?", now - STOCK_HISTORY_MS);
      const old = now - STOCK_HISTORY_MS;
      this.#sql.exec(
        "DELETE FROM hold_lines WHERE hold_id IN (SELECT hold_id FROM holds WHERE state != 'held' AND settled_at < ?)",
        old,
      );
      this.#sql.exec("DELETE FROM holds WHERE state != 'held' AND settled_at < ?", old);
      this.#sql.exec("DELETE FROM batches WHERE created_at < ?", now - STOCK_BATCH_TTL_MS);
    });
    await this.#afterChange();
    // A push that failed, or (coordinator) an overlay write held back by the one-a-second rule.
    await this.#pushOverlay();
    if (this.#sql.exec("SELECT 1 FROM overlay_pending").toArray().length > 0) await this.#scheduleOverlayWrite();
    const next = this.#sql
      .exec<{ at: number | null }>("SELECT MIN(expires_at) AS at FROM holds WHERE state = 'held'")
      .one().at;
    let at = Math.min(next ?? Number.POSITIVE_INFINITY, now + HOUSEKEEPING_MS);
    // Still owed: an overlay push that failed (retry soon), an overlay write held back.
    if (this.#sql.exec("SELECT 1 FROM overlay_push WHERE dirty = 1").toArray().length > 0)
      at = Math.min(at, Date.now() + 2000);
    if (this.#sql.exec("SELECT 1 FROM overlay_pending").toArray().length > 0) {
      const written = this.#sql.exec<{ at: number }>("SELECT at FROM overlay_written").toArray()[0];
      at = Math.min(at, Math.max(Date.now() + 50, (written?.at ?? 0) + OVERLAY_WRITE_INTERVAL_MS));
    }
    await this.ctx.storage.setAlarm(at);
  }

  /** This class's namespace: the coordinator and the shards call each other by name (shards.ts). */
  #namespace(): DurableObjectNamespace<Stock> {
    return this.env.STOCK as DurableObjectNamespace<Stock>;
  }

  #row(variantId: string): LevelRow | undefined {
    return this.#sql
      .exec<LevelRow>(
        "SELECT variant_id, quantity, held, policy, published FROM levels WHERE variant_id = ?",
        variantId,
      )
      .toArray()[0];
  }

  #levelsOf(variantIds: readonly string[]): StockLevel[] {
    return [...new Set(variantIds)].map((id) => levelOf(id, this.#row(id)));
  }

  #holdState(holdId: string): HoldState {
    const row = this.#sql.exec<{ state: HoldState }>("SELECT state FROM holds WHERE hold_id = ?", holdId).toArray()[0];
    return row?.state ?? "unknown";
  }

  #holdLines(holdId: string): HoldLine[] {
    return this.#sql
      .exec<{ variant_id: string; quantity: number }>(
        "SELECT variant_id, quantity FROM hold_lines WHERE hold_id = ? ORDER BY rowid",
        holdId,
      )
      .toArray()
      .map((r) => ({ variant_id: r.variant_id, quantity: r.quantity }));
  }

  /** Inside a transaction: returns a held hold's units and marks it released. */
  #settleRelease(holdId: string, kind: "release" | "expire", now: number): void {
    for (const line of this.#holdLines(holdId)) {
      const row = this.#row(line.variant_id);
      if (!row) continue;
      this.#move(row, now, { source: "checkout", ref: holdId, kind, dq: 0, dh: -Math.min(line.quantity, row.held) });
    }
    this.#sql.exec("UPDATE holds SET state = 'released', settled_at = ? WHERE hold_id = ?", now, holdId);
  }

  /** Inside a transaction: one set/adjust, logged. */
  #applyOne(change: ShardChange, batch: ShardBatch, now: number): AppliedChange {
    this.#touched.add(change.variantId);
    const row = this.#row(change.variantId);
    const before = levelOf(change.variantId, row);
    const previous = row?.quantity ?? 0;
    const quantity = change.op === "set" ? change.value : previous + change.value;
    const policy = change.policy ?? row?.policy ?? "deny";
    const published = batch.source === "publish" ? quantity : (row?.published ?? null);
    const changed = !row || row.quantity !== quantity || row.policy !== policy;
    if (!row) {
      this.#sql.exec(
        "INSERT INTO levels (variant_id, quantity, held, policy, published, updated_at) VALUES (?, ?, 0, ?, ?, ?)",
        change.variantId,
        quantity,
        policy,
        published,
        now,
      );
    } else {
      this.#sql.exec(
        "UPDATE levels SET quantity = ?, policy = ?, published = ?, updated_at = ? WHERE variant_id = ?",
        quantity,
        policy,
        published,
        now,
        change.variantId,
      );
    }
    if (changed) {
      this.#log(
        change.variantId,
        now,
        batch.source,
        batch.batchId,
        change.op,
        quantity - previous,
        0,
        quantity,
        row?.held ?? 0,
      );
    }
    const after = levelOf(change.variantId, this.#row(change.variantId));
    return {
      index: change.index,
      variant_id: change.variantId,
      previous,
      quantity,
      flipped: before.tracked && before.in_stock !== after.in_stock,
      changed,
    };
  }

  /** Inside a transaction: changes a tracked row's level and held units, and logs it. */
  #move(
    row: LevelRow,
    now: number,
    m: { source: StockSource; ref: string; kind: StockMovement["kind"]; dq: number; dh: number },
  ): void {
    this.#touched.add(row.variant_id);
    const quantity = row.quantity + m.dq;
    const held = row.held + m.dh;
    this.#sql.exec(
      "UPDATE levels SET quantity = ?, held = ?, updated_at = ? WHERE variant_id = ?",
      quantity,
      held,
      now,
      row.variant_id,
    );
    this.#log(row.variant_id, now, m.source, m.ref, m.kind, m.dq, m.dh, quantity, held);
    row.quantity = quantity;
    row.held = held;
  }

  /** Inside a transaction: redoes the overlay entries of the variants this call touched; true if any changed. */
  #refreshOverlay(): boolean {
    let changed = false;
    for (const id of this.#touched) {
      const row = this.#row(id);
      const old = this.#sql
        .exec<{ in_stock: number; available: number }>(
          "SELECT in_stock, available FROM overlay WHERE variant_id = ?",
          id,
        )
        .toArray()[0];
      let entry: [number, number, number, number] | null = null;
      if (row && row.published !== null) {
        const level = levelOf(id, row);
        const baseInStock = row.policy === "continue" || row.published > 0 ? 1 : 0;
        const baseAvailable = Math.max(0, row.published);
        const inStock = level.in_stock ? 1 : 0;
        if (inStock !== baseInStock || level.available_quantity !== baseAvailable)
          entry = [inStock, level.available_quantity, baseInStock, baseAvailable];
      }
      if (entry) {
        if (old && old.in_stock === entry[0] && old.available === entry[1]) continue;
        this.#sql.exec(
          `INSERT INTO overlay (variant_id, in_stock, available, base_in_stock, base_available) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (variant_id) DO UPDATE SET in_stock = excluded.in_stock, available = excluded.available,
             base_in_stock = excluded.base_in_stock, base_available = excluded.base_available`,
          id,
          ...entry,
        );
        changed = true;
      } else if (old) {
        this.#sql.exec("DELETE FROM overlay WHERE variant_id = ?", id);
        changed = true;
      }
    }
    this.#touched.clear();
    if (changed) {
      this.#sql.exec(
        `INSERT INTO overlay_push (singleton, seq, dirty) VALUES (1, 1, 1)
         ON CONFLICT (singleton) DO UPDATE SET seq = seq + 1, dirty = 1`,
      );
    }
    return changed;
  }

  /**
   * Sends this shard's overlay entries to the coordinator when they changed and were not sent
   * yet. At least once: a failed push stays marked and the alarm retries it within seconds.
   */
  async #pushOverlay(): Promise<void> {
    const state = this.#sql.exec<{ seq: number; dirty: number }>("SELECT seq, dirty FROM overlay_push").toArray()[0];
    if (state?.dirty !== 1) return;
    const entries = this.#sql
      .exec<{ variant_id: string; in_stock: number; available: number; base_in_stock: number; base_available: number }>(
        "SELECT * FROM overlay",
      )
      .toArray()
      .map((r): OverlayEntry => [r.variant_id, r.in_stock, r.available, r.base_in_stock, r.base_available]);
    try {
      const coordinator = stockStub(this.#namespace(), coordinatorName(stockShards(this.env.STOCK_SHARDS)));
      await coordinator.putFragment(this.ctx.id.toString(), state.seq, entries);
      this.#sql.exec("UPDATE overlay_push SET dirty = 0 WHERE seq = ?", state.seq);
    } catch {
      await this.#armAt(Date.now() + 2000);
    }
  }

  /** After a change: the overlay entries redone (in their own transaction) and pushed if they changed. */
  async #afterChange(): Promise<void> {
    if (this.#touched.size === 0) return;
    const changed = this.ctx.storage.transactionSync(() => this.#refreshOverlay());
    if (changed) await this.#pushOverlay();
  }

  /**
   * Coordinator role: one shard's overlay entries (all of them, numbered so a late push never
   * undoes a newer one). The merged overlay goes to KV at most once a second.
   */
  async putFragment(shard: string, seq: number, entries: OverlayEntry[]): Promise<void> {
    const known = this.#sql.exec<{ seq: number }>("SELECT seq FROM fragments WHERE shard = ?", shard).toArray()[0];
    if (known && known.seq >= seq) return;
    this.#sql.exec(
      `INSERT INTO fragments (shard, seq, entries) VALUES (?, ?, ?)
       ON CONFLICT (shard) DO UPDATE SET seq = excluded.seq, entries = excluded.entries`,
      shard,
      seq,
      JSON.stringify(entries),
    );
    await this.#scheduleOverlayWrite();
  }

  /** Writes the overlay now, or arms the alarm for when a second has passed since the last write. */
  async #scheduleOverlayWrite(): Promise<void> {
    const written = this.#sql.exec<{ at: number }>("SELECT at FROM overlay_written").toArray()[0];
    const due = (written?.at ?? 0) + OVERLAY_WRITE_INTERVAL_MS;
    if (Date.now() < due) {
      this.#sql.exec("INSERT OR IGNORE INTO overlay_pending (singleton) VALUES (1)");
      await this.#armAt(due);
      return;
    }
    const run = this.#overlayWrite.then(() => this.#writeOverlay());
    this.#overlayWrite = run.catch(() => undefined);
    try {
      await run;
    } catch (error) {
      // Still owed: the alarm tries again in a second (not the runtime's backoff of 2, 4, 8… s).
      this.#sql.exec("INSERT OR IGNORE INTO overlay_pending (singleton) VALUES (1)");
      console.error(
        JSON.stringify({
          level: "error",
          error: "stock_overlay_write_failed",
          message: error instanceof Error ? error.message : String(error),
        }),
      );
      await this.#armAt(Date.now() + OVERLAY_WRITE_INTERVAL_MS);
    }
  }

  /**
   * Coordinator role: merges every shard's entries into the overlay the catalog reads
   * (STOCK_OVERLAY_KEY): variants whose availability (with `stock_display: quantity`, whose
   * count) differs from the file, and the products whose availability that changes, found from
   * the live version's records. Written only when it differs from the last one, with a new `gen`.
   */
  async #writeOverlay(): Promise<void> {
    this.#sql.exec("DELETE FROM overlay_pending");
    const catalog = new CatalogStore(this.env.CATALOG);
    const meta = await catalog.currentMeta();
    const quantities = meta?.stock_display === "quantity";
    const v: StockOverlay["v"] = {};
    const flipped: string[] = [];
    for (const { entries } of this.#sql.exec<{ entries: string }>("SELECT entries FROM fragments").toArray()) {
      for (const [id, inStock, available, baseInStock, baseAvailable] of JSON.parse(entries) as OverlayEntry[]) {
        if (inStock !== baseInStock) flipped.push(id);
        if (inStock !== baseInStock || (quantities && available !== baseAvailable))
          v[id] = [inStock === 1 ? 1 : 0, available];
      }
    }
    const p: StockOverlay["p"] = {};
    // Each entry's product: its answers' cache keys carry a digest of that product's entries.
    const byProduct = new Map<string, string[]>();
    if (meta && Object.keys(v).length > 0) {
      const variants = await catalog.getVariants(meta.version, Object.keys(v));
      for (const [id, record] of variants) {
        const ids = byProduct.get(record.product_handle);
        if (ids) ids.push(id);
        else byProduct.set(record.product_handle, [id]);
      }
      const handles = [...new Set(flipped.flatMap((id) => variants.get(id)?.product_handle ?? []))];
      const records = await Promise.all(handles.map((h) => catalog.getProduct(meta, h)));
      for (const record of records) {
        if (!record) continue;
        const live = record.variants.some(([id, , , available]) => (v[id] ? v[id][0] === 1 : available));
        if (live !== record.available) p[record.handle] = live ? 1 : 0;
      }
    }
    const digest = JSON.stringify([sortedEntries(p), sortedEntries(v)]);
    const written = this.#sql
      .exec<{ gen: number; digest: string }>("SELECT gen, digest FROM overlay_written")
      .toArray()[0];
    if (written?.digest === digest) return;
    const gen = (written?.gen ?? 0) + 1;
    const h: Record<string, string> = {};
    for (const [handle, ids] of byProduct)
      h[handle] = await keyDigest([p[handle] ?? null, ids.sort().map((id) => [id, v[id]])]);
    for (const handle of Object.keys(p)) h[handle] ??= await keyDigest([p[handle], []]);
    const d = Object.keys(v).length + Object.keys(p).length === 0 ? "" : await keyDigest(digest);
    const pd = Object.keys(p).length === 0 ? "" : await keyDigest(sortedEntries(p));
    await this.env.CATALOG.put(STOCK_OVERLAY_KEY, JSON.stringify({ gen, p, v, d, pd, h } satisfies StockOverlay));
    this.#sql.exec(
      "INSERT OR REPLACE INTO overlay_written (singleton, gen, at, digest) VALUES (1, ?, ?, ?)",
      gen,
      Date.now(),
      digest,
    );
  }

  #log(
    variantId: string,
    at: number,
    source: StockSource,
    ref: string,
    kind: StockMovement["kind"],
    dq: number,
    dh: number,
    quantity: number,
    held: number,
  ): void {
    this.#sql.exec(
      `INSERT INTO movements (at, variant_id, source, ref, kind, delta_quantity, delta_held, quantity, held)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      at,
      variantId,
      source,
      ref,
      kind,
      dq,
      dh,
      quantity,
      held,
    );
  }

  async #armAt(at: number): Promise<void> {
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > at) await this.ctx.storage.setAlarm(at);
  }

  async #armHousekeeping(): Promise<void> {
    const current = await this.ctx.storage.getAlarm();
    if (current === null) await this.ctx.storage.setAlarm(Date.now() + HOUSEKEEPING_MS);
  }
}
