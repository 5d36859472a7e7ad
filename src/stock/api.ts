import * as z from "zod/mini";
import { type InventoryPolicy, MAX_STOCK_LEVEL } from "../catalog/fields.ts";
import type { StockLevelView } from "./results.ts";

export { type InventoryPolicy, MAX_STOCK_LEVEL } from "../catalog/fields.ts";

/**
 * What crosses the stock room's boundary: the limits, the operator's batch of changes (one zod
 * schema shared by the route, the OpenAPI document and the CLI) and the typed results of the
 * `Stock` object's RPC methods. Results are plain data: errors crossing RPC lose their class.
 */

/** Most changes in one operator batch. */
export const MAX_STOCK_CHANGES = 1000;
/** Largest step of one `adjust` (either sign). */
export const MAX_STOCK_ADJUST = 1_000_000_000;
/** The movement log and settled holds are kept this long, then pruned by the object's alarm. */
export const STOCK_HISTORY_MS = 90 * 24 * 60 * 60 * 1000;
/** A batch id (the operator's Idempotency-Key, a publish's version) is remembered this long. */
export const STOCK_BATCH_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** Who changed a level: the movement log keeps it with every change. */
export type StockSource = "publish" | "operator" | "checkout";

const VariantIdSchema = z
  .string()
  .check(
    z.regex(
      /^(\d{1,20}|gid:\/\/shopify\/ProductVariant\/\d{1,20})$/,
      "digits or gid://shopify/ProductVariant/<digits>",
    ),
  );

export const StockChangeSchema = z
  .strictObject({
    variant_id: VariantIdSchema.clone(),
    set: z.optional(z.int().check(z.gte(0), z.lte(MAX_STOCK_LEVEL))),
    adjust: z.optional(z.int().check(z.gte(-MAX_STOCK_ADJUST), z.lte(MAX_STOCK_ADJUST))),
    track: z.optional(z.literal(false)),
  })
  .check(
    z.refine((c) => [c.set, c.adjust, c.track].filter((v) => v !== undefined).length === 1, {
      message: "give exactly one of set, adjust and track",
    }),
  );
export type StockChange = z.infer<typeof StockChangeSchema>;

export const StockBatchRequestSchema = z.strictObject({
  changes: z.array(StockChangeSchema).check(z.minLength(1), z.maxLength(MAX_STOCK_CHANGES)),
});
export type StockBatchRequest = z.infer<typeof StockBatchRequestSchema>;

/** The wire form of a level (results.ts has its schema, for the reference and the CLI). */
export function levelView(level: StockLevel): StockLevelView {
  return {
    object: "stock_level",
    variant_id: level.variant_id,
    tracked: level.tracked,
    tracked_by: level.tracked_by,
    quantity: level.quantity,
    held: level.held,
    available_quantity: level.available_quantity,
    inventory_policy: level.policy,
    in_stock: level.in_stock,
  };
}

/** A change as a shard applies it: the variant id in digits, the operation spelled out. */
export interface ShardChange {
  /** Index of the change in the caller's batch, so a refusal can name it. */
  index: number;
  variantId: string;
  /** `untrack`: the operator stops tracking a variant it started (`value` unused, 0). */
  op: "set" | "adjust" | "untrack";
  value: number;
  /** Written by a publish only: the catalog file's policy. An operator change keeps the stored one. */
  policy?: InventoryPolicy;
}

/** Who tracks a variant's stock: a catalog version (its `inventory_quantity`) or the operator. */
export type TrackedBy = "catalog" | "operator";

/** One variant's stock as the object holds it. `tracked: false`: it has no level (never had, or no longer). */
export interface StockLevel {
  variant_id: string;
  tracked: boolean;
  /** Null when untracked; `operator` when the operator started tracking it (no version can stop it). */
  tracked_by: TrackedBy | null;
  /** On-hand units (held ones included). */
  quantity: number;
  /** Units held by open checkouts. */
  held: number;
  /**
   * What a shopper may still take: `quantity - held` (never below 0). Read for a holder
   * (`levels(ids, owner)`), the units its own open checkout holds count as its own: they are added.
   */
  available_quantity: number;
  /** Units of `held` held by the holder the level was read for (0 when read for nobody). */
  own_held: number;
  policy: InventoryPolicy;
  /** Whether the variant can be sold now by stock alone: policy `continue`, or units left. */
  in_stock: boolean;
}

/** What one applied change did. */
export interface AppliedChange {
  index: number;
  variant_id: string;
  /** The level before and after. */
  previous: number;
  quantity: number;
  /** `in_stock` flipped (sold out <-> in stock). */
  flipped: boolean;
  /** The level or policy actually changed (a `set` to the same value did not). */
  changed: boolean;
  /** The change started tracking the variant (a `set` on an untracked one) or stopped it (`untrack`). */
  tracking?: "started" | "stopped";
}

export type ApplyResult =
  | { ok: true; replayed: boolean; applied: AppliedChange[]; levels: StockLevel[] }
  | { ok: false; code: "idempotency_key_reused"; message: string }
  | { ok: false; code: "quantity_out_of_range" | "not_tracked"; message: string; index: number };

/**
 * What writing a published version's levels did (publish-levels.ts): `written` levels were set
 * to the file's (`changed` of them differed from live stock), `kept` stayed live, `untracked`
 * stopped being tracked by the catalog. A rollback's version writes nothing.
 */
export interface PublishSync {
  version: string;
  tracked: number;
  changed: number;
  written: number;
  kept: number;
  untracked: number;
}

/** One line of a hold (and of a commit). */
export interface HoldLine {
  variant_id: string;
  quantity: number;
}

export interface HoldRefusal {
  variant_id: string;
  /** `hold_limit`: more than a holder may hold of one variant (`max_quantity`). */
  code: "sold_out" | "insufficient_stock" | "hold_limit";
  available_quantity: number;
  max_quantity?: number;
}

/** How a checkout holds: for whom, in place of which holds, and how much of a variant at most. */
export interface HoldOptions {
  /**
   * The holder (its cart object's id): a level read for it counts its own held units as its own
   * (`levels(ids, owner)`), so its own checkout never makes its own cart read sold out.
   */
  owner?: string;
  /**
   * Open holds of the same holder this hold replaces (its open checkout): their units count as
   * available to this hold. They stay held; the caller releases them once every shard held, so
   * a refusal leaves them as they were.
   */
  replaces?: readonly string[];
  /** The most units of one tracked `deny` variant this hold may take (else `hold_limit`). */
  maxUnits?: number;
}

export type HoldResult =
  | { ok: true; replayed: boolean; levels: StockLevel[] }
  | { ok: false; code: "hold_refused"; refusals: HoldRefusal[] }
  | { ok: false; code: "hold_closed"; message: string; state: "released" | "committed" };

export type HoldState = "held" | "released" | "committed" | "unknown";

export interface ReleaseResult {
  /** The hold's state before the call: releasing twice, or an unknown id, changes nothing. */
  previous: HoldState;
  levels: StockLevel[];
}

export interface CommittedLine {
  variant_id: string;
  quantity: number;
  /** The units were not covered when committed (the hold had been released or never existed). */
  oversold: boolean;
}

export interface CommitResult {
  replayed: boolean;
  lines: CommittedLine[];
  levels: StockLevel[];
}

/** `untrack`: tracking ended (the row went; its deltas take the level and held units to 0). */
export type StockMovementKind = "set" | "adjust" | "hold" | "release" | "commit" | "expire" | "untrack";

/** One row of the movement log. */
export interface StockMovement {
  seq: number;
  at: number;
  variant_id: string;
  source: StockSource;
  /** The batch id, hold id or catalog version that made the change. */
  ref: string;
  kind: StockMovementKind;
  delta_quantity: number;
  delta_held: number;
  quantity: number;
  held: number;
}
