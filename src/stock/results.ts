import * as z from "zod/mini";
import { InventoryPolicySchema } from "../catalog/fields.ts";

/**
 * The schemas of what the operator's stock surface answers: levels, batch results, a variant's
 * movement log, the live version's status. Only the reference (src/routes/reference/), the CLI
 * and the tests read them, so they stay out of the Worker bundle (the routes build their answers
 * with `levelView` and typed literals); the request's schema, which the Worker validates with,
 * is in api.ts. Their documentation: src/routes/reference/schemas/stock.ts.
 */

export const StockLevelSchema = z.object({
  object: z.literal("stock_level"),
  variant_id: z.string(),
  tracked: z.boolean(),
  tracked_by: z.nullable(z.enum(["catalog", "operator"])),
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
      tracking: z.optional(z.enum(["started", "stopped"])),
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
  kind: z.enum(["set", "adjust", "hold", "release", "commit", "expire", "untrack"]),
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
  written_by_publish: z.int().check(z.gte(0)),
  kept_by_publish: z.int().check(z.gte(0)),
  untracked_by_publish: z.int().check(z.gte(0)),
});
export type StockStatus = z.infer<typeof StockStatusSchema>;
