import * as z from "zod/mini";
import { type InventoryPolicy, InventoryPolicySchema, MAX_STOCK_LEVEL } from "../catalog/schema.ts";

export { type InventoryPolicy, MAX_STOCK_LEVEL } from "../catalog/schema.ts";

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
  })
  .check(
    z.refine((c) => (c.set === undefined) !== (c.adjust === undefined), {
      message: "give exactly one of set and adjust",
    }),
  );
export type StockChange = z.infer<typeof StockChangeSchema>;

export const StockBatchRequestSchema = z.strictObject({
  changes: z.array(StockChangeSchema).check(z.minLength(1), z.maxLength(MAX_STOCK_CHANGES)),
});
export type StockBatchRequest = z.infer<typeof StockBatchRequestSchema>;

export const StockLevelSchema = z.object({
  object: z.literal("stock_level"),
  variant_id: z.string(),
  tracked: z.boolean(),
  quantity: z.int(),
  held: z.int().check(z.gte(0)),
  available_quantity: z.int().check(z.gte(0)),
  inventory_policy: InventoryPolicySchema,
  in_stock: z.boolean(),
});
export type StockLevelView = z.infer<typeof StockLevelSchema>;

export const StockBatchResultSchema = z.object({
  object: z.literal("stock_batch"),
  changes: z.array(
    z.object({
      index: z.int().check(z.gte(0)),
      variant_id: z.string(),
      previous: z.int(),
      quantity: z.int(),
      applied: z.enum(["now", "earlier"]),
    }),
  ),
  levels: z.array(StockLevelSchema),
});
export type StockBatchResult = z.infer<typeof StockBatchResultSchema>;

export const StockMovementSchema = z.object({
  seq: z.int(),
  at: z.iso.datetime(),
  source: z.enum(["publish", "operator", "checkout"]),
  ref: z.string(),
  kind: z.enum(["set", "adjust", "hold", "release", "commit", "expire"]),
  delta_quantity: z.int(),
  delta_held: z.int(),
  quantity: z.int(),
  held: z.int(),
});

export const StockDetailSchema = z.object({
  object: z.literal("stock"),
  level: StockLevelSchema,
  movements: z.array(StockMovementSchema),
});
export type StockDetail = z.infer<typeof StockDetailSchema>;

export const StockStatusSchema = z.object({
  object: z.literal("stock_status"),
  catalog_version: z.nullable(z.string()),
  shards: z.int().check(z.gte(1)),
  tracked: z.int().check(z.gte(0)),
  changed_by_publish: z.int().check(z.gte(0)),
});
export type StockStatus = z.infer<typeof StockStatusSchema>;

/** The wire form of a level. */
export function levelView(level: StockLevel): StockLevelView {
  return {
    object: "stock_level",
    variant_id: level.variant_id,
    tracked: level.tracked,
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
  op: "set" | "adjust";
  value: number;
  /** Written by a publish only: the catalog file's policy. An operator change keeps the stored one. */
  policy?: InventoryPolicy;
}

/** One variant's stock as the object holds it. `tracked: false`: no level was ever written. */
export interface StockLevel {
  variant_id: string;
  tracked: boolean;
  /** On-hand units (held ones included). */
  quantity: number;
  /** Units held by open checkouts. */
  held: number;
  /** What a shopper may still take: `quantity - held` (never below 0). */
  available_quantity: number;
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
}

export type ApplyResult =
  | { ok: true; replayed: boolean; applied: AppliedChange[]; levels: StockLevel[] }
  | { ok: false; code: "idempotency_key_reused"; message: string }
  | { ok: false; code: "quantity_out_of_range"; message: string; index: number };

/** One line of a hold (and of a commit). */
export interface HoldLine {
  variant_id: string;
  quantity: number;
}

export interface HoldRefusal {
  variant_id: string;
  code: "sold_out" | "insufficient_stock";
  available_quantity: number;
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

/** One row of the movement log. */
export interface StockMovement {
  seq: number;
  at: number;
  variant_id: string;
  source: StockSource;
  /** The batch id, hold id or catalog version that made the change. */
  ref: string;
  kind: "set" | "adjust" | "hold" | "release" | "commit" | "expire";
  delta_quantity: number;
  delta_held: number;
  quantity: number;
  held: number;
}
