import { DurableObject } from "cloudflare:workers";
import {
  type ApplyResult,
  type AppliedChange,
  type CommitResult,
  type CommittedLine,
  type HoldLine,
  type HoldOptions,
  type HoldRefusal,
  type HoldResult,
  type HoldState,
  type PublishSync,
  type ReleaseResult,
  STOCK_BATCH_TTL_MS,
  STOCK_HISTORY_MS,
  type ShardChange,
  type StockLevel,
  type StockMovement,
  type StockSource,
} from "./api.ts";
import { checkChanges } from "./batch-check.ts";
import { migrateFrom } from "./migrations.ts";
import { type FileLevel, type LevelDecision, type LiveTracking, planLevels } from "./publish-levels.ts";
import { STOCK_OVERLAY_KEY } from "../catalog/layout.ts";
import { CatalogStore } from "../catalog/store.ts";
import { coordinatorName, shardName, stockShards, stockStub, variantShard } from "./shards.ts";
import { type LevelRow, levelOf, merged, validLines } from "./levels.ts";
import { mergeOverlay, type OverlayEntry, overlayOf } from "./overlay.ts";

/** A set/adjust batch as one shard receives it (its part of the caller's batch). */
export interface ShardBatch {
  /** The caller's id for the whole batch: a retry with it replays instead of applying twice. */
  batchId: string;
  /** What makes two batches "the same" under one id (the caller's digest of the whole batch). */
  fingerprint: string;
  source: StockSource;
  changes: ShardChange[];
}

/** The overlay key is written at most this often (Workers KV takes one write a second per key). */
export const OVERLAY_WRITE_INTERVAL_MS = 1000;

/**
 * A shard pushes its overlay entries to the coordinator at most this often: the first change after
 * a quiet second goes at once, later ones ride the shard's alarm, one push for all of them. The
 * coordinator writes KV at most once a second anyway; a push per hold cost every checkout of a
 * tracked variant a coordinator call (and its merge) under load.
 */
export const OVERLAY_PUSH_INTERVAL_MS = 1000;

/** Levels a version's sync writes per transaction. */
const SYNC_SLICE = 5000;

/** How often the alarm prunes when nothing else is due. */
const HOUSEKEEPING_MS = 24 * 60 * 60 * 1000;

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
  /** When this instance last started a push of its overlay entries (ms; 0: not since it woke). */
  #pushedAt = 0;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#sql = ctx.storage.sql;
    void ctx.blockConcurrencyWhile(async () => {
      migrateFrom(this.#sql);
    });
  }

  /**
   * Current levels; a variant without a level reads as untracked. Read for `owner` (a holder's
   * cart object id), the units that holder's open holds hold count as available to it.
   */
  async levels(variantIds: readonly string[], owner?: string): Promise<StockLevel[]> {
    return variantIds.map((id) => levelOf(id, this.#row(id), owner === undefined ? 0 : this.#ownHeld(owner, id)));
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
    const refused = checkChanges(batch.changes, (id) => this.#row(id)?.quantity ?? null);
    if (refused) return refused;
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
   * `options` (see HoldOptions): whose hold it is, the holder's open holds whose units count as
   * available to it (they stay held: the caller releases them once every shard held), and the
   * most units of a `deny` variant it may take (`hold_limit`).
   */
  async hold(
    holdId: string,
    lines: readonly HoldLine[],
    expiresAt?: number,
    options: HoldOptions = {},
  ): Promise<HoldResult> {
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
      const available = Math.max(0, row.quantity - row.held + this.#heldBy(options.replaces ?? [], line.variant_id));
      const limit = options.maxUnits;
      if (row.policy === "deny" && limit !== undefined && line.quantity > limit) {
        refusals.push({
          variant_id: line.variant_id,
          code: "hold_limit",
          available_quantity: available,
          max_quantity: limit,
        });
      } else if (row.policy === "deny" && available < line.quantity) {
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
        "INSERT INTO holds (hold_id, state, created_at, expires_at, owner) VALUES (?, 'held', ?, ?, ?)",
        holdId,
        now,
        expiresAt ?? null,
        options.owner ?? null,
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
   * part of a published version's levels (`syncShard`, all at once) and records what they did,
   * once per version. Returns null for a version that is gone.
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
      const total: PublishSync = {
        version,
        tracked: meta.stock_tracked ?? 0,
        changed: 0,
        written: 0,
        kept: 0,
        untracked: 0,
      };
      for (const part of parts) {
        if (!part) return null;
        total.changed += part.changed;
        total.written += part.written;
        total.kept += part.kept;
        total.untracked += part.untracked;
      }
      return total;
    });
  }

  /**
   * Shard role: brings this shard's levels to a catalog version (its `stock` chunks' lines whose
   * variants hash to `shard` of `shards`), once per version, by the rule of publish-levels.ts:
   * a level is written where the version newly tracks the variant or gives another quantity than
   * the last version did (every level with `--stock replace`), kept otherwise, and a level the
   * catalog stops tracking goes (unless the operator started tracking it). A version older than
   * the newest one this shard wrote (by `stock_seq`) is a rollback's: it changes nothing. Returns
   * what it did, or null for a version that is gone. Safe to run again after a crash: what was
   * written then reads as kept.
   */
  async syncShard(version: string, shard: number, shards: number): Promise<PublishSync | null> {
    return this.#once(`shard:${version}`, version, async () => {
      const catalog = new CatalogStore(this.env.CATALOG);
      const meta = await catalog.versionMeta(version);
      if (!meta) return null;
      // A change batch's levels are what it changed: the version before it comes first (once).
      const before = meta.stock_delta ? meta.derived?.lineage.at(-2) : undefined;
      if (before !== undefined && (await this.syncShard(before, shard, shards)) === null) return null;
      const file = new Map<string, FileLevel>();
      const dropped: string[] = [];
      for (let chunk = 0; chunk < (meta.stock_chunks ?? 0); chunk++) {
        const part = await catalog.stockDelta(meta, chunk);
        for (const [variantId, quantity, policy] of part.levels)
          if (variantShard(variantId, shards) === shard) file.set(variantId, { quantity, policy });
        for (const variantId of part.dropped) if (variantShard(variantId, shards) === shard) dropped.push(variantId);
      }
      const result: PublishSync = { version, tracked: file.size, changed: 0, written: 0, kept: 0, untracked: 0 };
      const seq = meta.stock_seq ?? 0;
      if (seq < this.#syncedSeq()) return result;
      // The same rule over what the version names: every level for a publish, a batch's own for a batch.
      const live = new Map<string, LiveTracking>();
      const rows = meta.stock_delta
        ? this.#sql.exec<{ variant_id: string; published: number | null; operator: number }>(
            "SELECT variant_id, published, operator FROM levels WHERE variant_id IN (SELECT value FROM json_each(?))",
            JSON.stringify([...file.keys(), ...dropped]),
          )
        : this.#sql.exec<{ variant_id: string; published: number | null; operator: number }>(
            "SELECT variant_id, published, operator FROM levels",
          );
      for (const row of rows) live.set(row.variant_id, { published: row.published, operator: row.operator === 1 });
      const plan = planLevels(file, live, meta.stock_replace ? "replace" : "keep");
      const decisions = [...plan.decisions];
      const now = Date.now();
      const batch: ShardBatch = { batchId: `publish:${version}`, fingerprint: "", source: "publish", changes: [] };
      for (let at = 0; at < decisions.length; at += SYNC_SLICE) {
        this.ctx.storage.transactionSync(() => {
          for (const [variantId, decision] of decisions.slice(at, at + SYNC_SLICE))
            if (this.#sync(variantId, decision, batch, now)) result.changed += 1;
        });
      }
      this.#sql.exec(
        "INSERT INTO synced_seq (singleton, seq) VALUES (1, ?) ON CONFLICT (singleton) DO UPDATE SET seq = MAX(seq, excluded.seq)",
        seq,
      );
      await this.#afterChange();
      return { ...result, written: plan.written, kept: plan.kept, untracked: plan.untracked };
    });
  }

  /** Inside a transaction: one variant brought to a version by its decision; true if its level or policy changed. */
  #sync(variantId: string, decision: LevelDecision, batch: ShardBatch, now: number): boolean {
    switch (decision.action) {
      case "write":
        return this.#applyOne(
          { index: 0, variantId, op: "set", value: decision.quantity, policy: decision.policy },
          batch,
          now,
        ).changed;
      case "untrack":
        return this.#applyOne({ index: 0, variantId, op: "untrack", value: 0 }, batch, now).changed;
      case "keep": {
        const row = this.#row(variantId);
        if (!row) return false;
        this.#sql.exec(
          "UPDATE levels SET published = ?, policy = ? WHERE variant_id = ?",
          decision.quantity,
          decision.policy,
          variantId,
        );
        this.#touched.add(variantId);
        if (row.policy === decision.policy) return false;
        this.#log(variantId, now, "publish", batch.batchId, "set", 0, 0, row.quantity, row.held);
        return true;
      }
      case "operator_only":
        this.#sql.exec("UPDATE levels SET published = NULL WHERE variant_id = ?", variantId);
        this.#touched.add(variantId);
        return false;
      case "none":
        return false;
    }
  }

  /** The newest `stock_seq` this shard wrote levels for (0: none yet). */
  #syncedSeq(): number {
    return this.#sql.exec<{ seq: number }>("SELECT seq FROM synced_seq").toArray()[0]?.seq ?? 0;
  }

  /**
   * Runs a sync once: its result recorded under `key` (the version for the coordinator, as it
   * always was; `shard:<version>` for a shard), one run at a time per key in this instance.
   */
  async #once(key: string, version: string, run: () => Promise<PublishSync | null>): Promise<PublishSync | null> {
    const done = this.#sql
      .exec<{ tracked: number; changed: number; detail: string | null }>(
        "SELECT tracked, changed, detail FROM synced_versions WHERE version = ?",
        key,
      )
      .toArray()[0];
    if (done) {
      if (done.detail) return JSON.parse(done.detail) as PublishSync;
      return { version, tracked: done.tracked, changed: done.changed, written: 0, kept: 0, untracked: 0 };
    }
    let running = this.#syncing.get(key);
    if (!running) {
      running = run()
        .then((result) => {
          if (result)
            this.#sql.exec(
              "INSERT OR IGNORE INTO synced_versions (version, tracked, changed, at, detail) VALUES (?, ?, ?, ?, ?)",
              key,
              result.tracked,
              result.changed,
              Date.now(),
              JSON.stringify(result),
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
    // Still owed: an overlay push that failed or that a change made while this one ran (a push
    // a second), an overlay write held back.
    if (this.#sql.exec("SELECT 1 FROM overlay_push WHERE dirty = 1").toArray().length > 0)
      at = Math.min(at, Math.max(Date.now() + 50, this.#pushedAt + OVERLAY_PUSH_INTERVAL_MS));
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
        "SELECT variant_id, quantity, held, policy, published, operator FROM levels WHERE variant_id = ?",
        variantId,
      )
      .toArray()[0];
  }

  /** Units of `variantId` that the open holds of `owner` hold here. */
  #ownHeld(owner: string, variantId: string): number {
    return (
      this.#sql
        .exec<{ units: number | null }>(
          `SELECT SUM(l.quantity) AS units FROM holds h JOIN hold_lines l ON l.hold_id = h.hold_id
           WHERE h.owner = ? AND h.state = 'held' AND l.variant_id = ?`,
          owner,
          variantId,
        )
        .one().units ?? 0
    );
  }

  /** Units of `variantId` that the open holds among `holdIds` hold here. */
  #heldBy(holdIds: readonly string[], variantId: string): number {
    if (holdIds.length === 0) return 0;
    return (
      this.#sql
        .exec<{ units: number | null }>(
          `SELECT SUM(l.quantity) AS units FROM holds h JOIN hold_lines l ON l.hold_id = h.hold_id
           WHERE h.state = 'held' AND l.variant_id = ? AND h.hold_id IN (${holdIds.map(() => "?").join(", ")})`,
          variantId,
          ...holdIds,
        )
        .one().units ?? 0
    );
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

  /**
   * Inside a transaction: one set/adjust/untrack, logged. An operator's `set` on a variant without
   * a level starts tracking it (`operator`: no catalog version stops it); `untrack` removes the
   * level, logging the units it took with it.
   */
  #applyOne(change: ShardChange, batch: ShardBatch, now: number): AppliedChange {
    this.#touched.add(change.variantId);
    const row = this.#row(change.variantId);
    const before = levelOf(change.variantId, row);
    const previous = row?.quantity ?? 0;
    if (change.op === "untrack") {
      const base = { index: change.index, variant_id: change.variantId, previous, quantity: 0, flipped: false };
      if (!row) return { ...base, changed: false };
      this.#sql.exec("DELETE FROM levels WHERE variant_id = ?", change.variantId);
      this.#log(change.variantId, now, batch.source, batch.batchId, "untrack", -row.quantity, -row.held, 0, 0);
      return { ...base, changed: true, tracking: "stopped" };
    }
    const quantity = change.op === "set" ? change.value : previous + change.value;
    const policy = change.policy ?? row?.policy ?? "deny";
    const published = batch.source === "publish" ? quantity : (row?.published ?? null);
    const changed = !row || row.quantity !== quantity || row.policy !== policy;
    if (!row) {
      this.#sql.exec(
        `INSERT INTO levels (variant_id, quantity, held, policy, published, updated_at, operator)
         VALUES (?, ?, 0, ?, ?, ?, ?)`,
        change.variantId,
        quantity,
        policy,
        published,
        now,
        batch.source === "operator" ? 1 : 0,
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
      ...(!row && batch.source === "operator" ? { tracking: "started" as const } : {}),
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
        .exec<{ in_stock: number; available: number; base_in_stock: number; base_available: number }>(
          "SELECT in_stock, available, base_in_stock, base_available FROM overlay WHERE variant_id = ?",
          id,
        )
        .toArray()[0];
      let entry: [number, number, number, number] | null = null;
      if (row && row.published === null) {
        // Tracked by the operator alone: the coordinator compares it with the catalog's own flag.
        const level = levelOf(id, row);
        entry = [level.in_stock ? 1 : 0, level.available_quantity, -1, -1];
      } else if (row && row.published !== null) {
        const level = levelOf(id, row);
        const baseInStock = row.policy === "continue" || row.published > 0 ? 1 : 0;
        const baseAvailable = Math.max(0, row.published);
        const inStock = level.in_stock ? 1 : 0;
        if (inStock !== baseInStock || level.available_quantity !== baseAvailable)
          entry = [inStock, level.available_quantity, baseInStock, baseAvailable];
      }
      if (entry) {
        if (
          old &&
          old.in_stock === entry[0] &&
          old.available === entry[1] &&
          old.base_in_stock === entry[2] &&
          old.base_available === entry[3]
        )
          continue;
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
    this.#pushedAt = Date.now();
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

  /**
   * After a change: the overlay entries redone (in their own transaction) and, if they changed,
   * pushed now or, within a second of the last push, by the alarm (OVERLAY_PUSH_INTERVAL_MS).
   */
  async #afterChange(): Promise<void> {
    if (this.#touched.size === 0) return;
    const changed = this.ctx.storage.transactionSync(() => this.#refreshOverlay());
    if (!changed) return;
    const due = this.#pushedAt + OVERLAY_PUSH_INTERVAL_MS;
    if (Date.now() >= due) await this.#pushOverlay();
    else await this.#armAt(due);
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
    const fragments = this.#sql
      .exec<{ entries: string }>("SELECT entries FROM fragments")
      .toArray()
      .map((row) => JSON.parse(row.entries) as OverlayEntry[]);
    const merged = await mergeOverlay(new CatalogStore(this.env.CATALOG), fragments);
    const written = this.#sql
      .exec<{ gen: number; digest: string }>("SELECT gen, digest FROM overlay_written")
      .toArray()[0];
    if (written?.digest === merged.digest) return;
    const gen = (written?.gen ?? 0) + 1;
    await this.env.CATALOG.put(STOCK_OVERLAY_KEY, JSON.stringify(await overlayOf(merged, gen)));
    this.#sql.exec(
      "INSERT OR REPLACE INTO overlay_written (singleton, gen, at, digest) VALUES (1, ?, ?, ?)",
      gen,
      Date.now(),
      merged.digest,
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
