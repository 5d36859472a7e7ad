import * as z from "zod/mini";
import { InventoryPolicySchema } from "../catalog/schema.ts";

/**
 * The schemas of what the operator's stock surface answers: levels, batch results, a variant's
 * movement log, the live version's status. Only the reference (src/routes/reference/), the CLI
 * and the tests read them, so they stay out of the Worker bundle (the routes build their answers
 * with `levelView` and typed literals); the request's schema, which the Worker validates with,
 * is in api.ts.
 */

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
