/**
 * The OpenAPI documentation of the schemas of src/stock/: their component ids, descriptions and
 * examples, attached to the schemas themselves (see src/openapi/schema-docs.ts). Node side only.
 */
import { documentSchema } from "../../../openapi/schema-docs.ts";
import { StockBatchRequestSchema, StockChangeSchema } from "../../../stock/api.ts";
import {
  StockBatchResultSchema,
  StockDetailSchema,
  StockLevelSchema,
  StockMovementSchema,
  StockStatusSchema,
} from "../../../stock/results.ts";

// src/stock/api.ts (the request the Worker validates)

documentSchema(StockChangeSchema, {
  id: "StockChange",
  description:
    "One change: `set` writes the on-hand level (and starts tracking a variant the live catalog " +
    "does not track), `adjust` adds to it, `track: false` stops tracking the operator started. " +
    "Exactly one of the three.",
  example: { variant_id: "44102938475615", set: 12 },
  // What the refine checks, in the document (Schemathesis sent neither and both: issue 42, point 19).
  oneOf: [{ required: ["set"] }, { required: ["adjust"] }, { required: ["track"] }],
});

documentSchema(StockChangeSchema.shape.variant_id, {
  description: "The variant: `<digits>` or its gid.",
});

documentSchema(StockChangeSchema.shape.set, {
  description: "The new on-hand level, 0–1,000,000,000 (units held by open checkouts included).",
});

documentSchema(StockChangeSchema.shape.adjust, {
  description: "Units to add (negative: remove). The resulting level may not leave ±1,000,000,000.",
});

documentSchema(StockChangeSchema.shape.track, {
  description:
    "`false`: stop tracking a variant whose tracking the operator started (its level goes; the " +
    "catalog's `available` decides again).",
});

documentSchema(StockBatchRequestSchema, {
  id: "StockBatchRequest",
  description: "A batch of stock changes.",
  example: {
    changes: [
      { variant_id: "44102938475615", set: 12 },
      { variant_id: "44102938475614", adjust: 5 },
    ],
  },
});

documentSchema(StockBatchRequestSchema.shape.changes, {
  description: "1 to 1,000 changes, applied in order (two changes of one variant apply one after the other).",
});

// src/stock/results.ts (the answers: read only by the reference, the CLI and the tests)

documentSchema(StockLevelSchema, {
  id: "StockLevel",
  description: "One variant's live stock, as its Stock object holds it.",
});

documentSchema(StockLevelSchema.shape.tracked, {
  description: "False: the variant has no level (the catalog's `available` decides for it).",
});

documentSchema(StockLevelSchema.shape.tracked_by, {
  description:
    "Who tracks it: `catalog` (a version gave it an `inventory_quantity`; a version without one " +
    "ends it) or `operator` (started by a `set`; only `track: false` ends it). Null when untracked.",
});

documentSchema(StockLevelSchema.shape.quantity, {
  description: "On-hand units, units held by open checkouts included.",
});

documentSchema(StockLevelSchema.shape.held, { description: "Units held by open checkouts." });

documentSchema(StockLevelSchema.shape.available_quantity, {
  description: "What shoppers may still take: `quantity - held`, at least 0.",
});

documentSchema(StockLevelSchema.shape.in_stock, {
  description: "Sells now: policy `continue`, or `available_quantity` above 0.",
});

documentSchema(StockBatchResultSchema, {
  id: "StockBatchResult",
  description: "What the batch did, change by change, and the new levels.",
});

documentSchema(StockBatchResultSchema.shape.changes.def.element.shape.index, {
  description: "The change's position in the request.",
});

documentSchema(StockBatchResultSchema.shape.changes.def.element.shape.previous, {
  description: "The level before the change.",
});

documentSchema(StockBatchResultSchema.shape.changes.def.element.shape.quantity, {
  description: "The level the change left.",
});

documentSchema(StockBatchResultSchema.shape.changes.def.element.shape.applied, {
  description:
    "`now`: applied by this request. `earlier`: applied by an earlier try with the same Idempotency-Key (a batch cut short completes on retry; what it had applied is not applied again).",
});

documentSchema(StockBatchResultSchema.shape.changes.def.element.shape.tracking, {
  description:
    "`started`: this `set` started tracking the variant (the live catalog did not track it): " +
    "its level decides from now on. `stopped`: `track: false` ended it. Absent otherwise.",
});

documentSchema(StockBatchResultSchema.shape.levels, { description: "Each changed variant's level now." });

documentSchema(StockMovementSchema.shape.ref, {
  description: "The batch (`op:<Idempotency-Key>`, `publish:<version>:<chunk>`) or hold id.",
});

documentSchema(StockDetailSchema, { id: "StockDetail", description: "A variant's live level and its movement log." });

documentSchema(StockDetailSchema.shape.movements, { description: "The newest 50 movements, oldest first." });

documentSchema(StockStatusSchema, { id: "StockStatus", description: "Live stock for the live catalog version." });

documentSchema(StockStatusSchema.shape.catalog_version, {
  description: "The live catalog version; null before any publish.",
});

documentSchema(StockStatusSchema.shape.shards, {
  description: "`STOCK_SHARDS`: the Stock objects variant ids are spread over.",
});

documentSchema(StockStatusSchema.shape.tracked, { description: "Variants the live version tracks." });

documentSchema(StockStatusSchema.shape.changed_by_publish, {
  description: "Levels the live version's publish changed in live stock (its file's levels, written once).",
});

documentSchema(StockStatusSchema.shape.written_by_publish, {
  description:
    "Levels the live version wrote: variants it newly tracks or whose quantity in the file " +
    "differs from what the last version gave (all of them with `--stock replace`).",
});

documentSchema(StockStatusSchema.shape.kept_by_publish, {
  description: "Levels the live version kept live: their quantity in the file is what the last version gave.",
});

documentSchema(StockStatusSchema.shape.untracked_by_publish, {
  description: "Variants the live version stopped tracking (tracking the operator started goes on).",
});
