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
    variant_id: VariantIdSchema.clone().register(z.globalRegistry, {
      description: "The variant: `<digits>` or its gid.",
    }),
    set: z.optional(z.int().check(z.gte(0), z.lte(MAX_STOCK_LEVEL))).register(z.globalRegistry, {
      description: "The new on-hand level, 0–1,000,000,000 (units held by open checkouts included).",
    }),
    adjust: z.optional(z.int().check(z.gte(-MAX_STOCK_ADJUST), z.lte(MAX_STOCK_ADJUST))).register(z.globalRegistry, {
      description: "Units to add (negative: remove). The resulting level may not leave ±1,000,000,000.",
    }),
    track: z.optional(z.literal(false)).register(z.globalRegistry, {
      description:
        "`false`: stop tracking a variant whose tracking the operator started (its level goes; the " +
        "catalog's `available` decides again).",
    }),
  })
  .check(
    z.refine((c) => [c.set, c.adjust, c.track].filter((v) => v !== undefined).length === 1, {
      message: "give exactly one of set, adjust and track",
    }),
  )
  .register(z.globalRegistry, {
    id: "StockChange",
    description:
      "One change: `set` writes the on-hand level (and starts tracking a variant the live catalog " +
      "does not track), `adjust` adds to it, `track: false` stops tracking the operator started. " +
      "Exactly one of the three.",
    example: { variant_id: "44102938475615", set: 12 },
  });
export type StockChange = z.infer<typeof StockChangeSchema>;

export const StockBatchRequestSchema = z
  .strictObject({
    changes: z
      .array(StockChangeSchema)
      .check(z.minLength(1), z.maxLength(MAX_STOCK_CHANGES))
      .register(z.globalRegistry, {
        description: "1 to 1,000 changes, applied in order (two changes of one variant apply one after the other).",
      }),
  })
  .register(z.globalRegistry, {
    id: "StockBatchRequest",
    description: "A batch of stock changes.",
    example: {
      changes: [
        { variant_id: "44102938475615", set: 12 },
        { variant_id: "44102938475614", adjust: 5 },
      ],
    },
  });
export type StockBatchRequest = z.infer<typeof StockBatchRequestSchema>;

export const StockLevelSchema = z
  .object({
    object: z.literal("stock_level"),
    variant_id: z.string(),
    tracked: z.boolean().register(z.globalRegistry, {
      description: "False: the variant has no level (the catalog's `available` decides for it).",
    }),
    tracked_by: z.nullable(z.enum(["catalog", "operator"])).register(z.globalRegistry, {
      description:
        "Who tracks it: `catalog` (a version gave it an `inventory_quantity`; a version without one " +
        "ends it) or `operator` (started by a `set`; only `track: false` ends it). Null when untracked.",
    }),
    quantity: z
      .int()
      .register(z.globalRegistry, { description: "On-hand units, units held by open checkouts included." }),
    held: z.int().check(z.gte(0)).register(z.globalRegistry, { description: "Units held by open checkouts." }),
    available_quantity: z
      .int()
      .check(z.gte(0))
      .register(z.globalRegistry, { description: "What shoppers may still take: `quantity - held`, at least 0." }),
    inventory_policy: InventoryPolicySchema,
    in_stock: z
      .boolean()
      .register(z.globalRegistry, { description: "Sells now: policy `continue`, or `available_quantity` above 0." }),
  })
  .register(z.globalRegistry, {
    id: "StockLevel",
    description: "One variant's live stock, as its Stock object holds it.",
  });
export type StockLevelView = z.infer<typeof StockLevelSchema>;

export const StockBatchResultSchema = z
  .object({
    object: z.literal("stock_batch"),
    changes: z.array(
      z.object({
        index: z
          .int()
          .check(z.gte(0))
          .register(z.globalRegistry, { description: "The change's position in the request." }),
        variant_id: z.string(),
        previous: z.int().register(z.globalRegistry, { description: "The level before the change." }),
        quantity: z.int().register(z.globalRegistry, { description: "The level the change left." }),
        applied: z.enum(["now", "earlier"]).register(z.globalRegistry, {
          description:
            "`now`: applied by this request. `earlier`: applied by an earlier try with the same Idempotency-Key (a batch cut short completes on retry; what it had applied is not applied again).",
        }),
        tracking: z.optional(z.enum(["started", "stopped"])).register(z.globalRegistry, {
          description:
            "`started`: this `set` started tracking the variant (the live catalog did not track it): " +
            "its level decides from now on. `stopped`: `track: false` ended it. Absent otherwise.",
        }),
      }),
    ),
    levels: z.array(StockLevelSchema).register(z.globalRegistry, { description: "Each changed variant's level now." }),
  })
  .register(z.globalRegistry, {
    id: "StockBatchResult",
    description: "What the batch did, change by change, and the new levels.",
  });
export type StockBatchResult = z.infer<typeof StockBatchResultSchema>;

export const StockMovementSchema = z.object({
  seq: z.int(),
  at: z.iso.datetime(),
  source: z.enum(["publish", "operator", "checkout"]),
  ref: z.string().register(z.globalRegistry, {
    description: "The batch (`op:<Idempotency-Key>`, `publish:<version>:<chunk>`) or hold id.",
  }),
  kind: z.enum(["set", "adjust", "hold", "release", "commit", "expire", "untrack"]),
  delta_quantity: z.int(),
  delta_held: z.int(),
  quantity: z.int(),
  held: z.int(),
});

export const StockDetailSchema = z
  .object({
    object: z.literal("stock"),
    level: StockLevelSchema,
    movements: z
      .array(StockMovementSchema)
      .register(z.globalRegistry, { description: "The newest 50 movements, oldest first." }),
  })
  .register(z.globalRegistry, { id: "StockDetail", description: "A variant's live level and its movement log." });
export type StockDetail = z.infer<typeof StockDetailSchema>;

export const StockStatusSchema = z
  .object({
    object: z.literal("stock_status"),
    catalog_version: z
      .nullable(z.string())
      .register(z.globalRegistry, { description: "The live catalog version; null before any publish." }),
    shards: z
      .int()
      .check(z.gte(1))
      .register(z.globalRegistry, { description: "`STOCK_SHARDS`: the Stock objects variant ids are spread over." }),
    tracked: z.int().check(z.gte(0)).register(z.globalRegistry, { description: "Variants the live version tracks." }),
    changed_by_publish: z.int().check(z.gte(0)).register(z.globalRegistry, {
      description: "Levels the live version's publish changed in live stock (its file's levels, written once).",
    }),
    written_by_publish: z
      .int()
      .check(z.gte(0))
      .register(z.globalRegistry, {
        description:
          "Levels the live version wrote: variants it newly tracks or whose quantity in the file " +
          "differs from what the last version gave (all of them with `--stock replace`).",
      }),
    kept_by_publish: z.int().check(z.gte(0)).register(z.globalRegistry, {
      description: "Levels the live version kept live: their quantity in the file is what the last version gave.",
    }),
    untracked_by_publish: z.int().check(z.gte(0)).register(z.globalRegistry, {
      description: "Variants the live version stopped tracking (tracking the operator started goes on).",
    }),
  })
  .register(z.globalRegistry, { id: "StockStatus", description: "Live stock for the live catalog version." });
export type StockStatus = z.infer<typeof StockStatusSchema>;

/** The wire form of a level. */
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
