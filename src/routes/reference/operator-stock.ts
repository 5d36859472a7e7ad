import type { OperationDoc } from "../../openapi/spec.ts";
import { IdempotencyKeySchema, VariantIdInputSchema } from "../../cart/api.ts";
import { errors, JSON_BODY_ERRORS, OPERATOR_ERRORS } from "../../openapi/errors.ts";
import { StockBatchRequestSchema } from "../../stock/api.ts";
import { StockBatchResultSchema, StockDetailSchema, StockStatusSchema } from "../../stock/results.ts";
import * as z from "zod/mini";

const NO_STORE = ["X-Request-Id", "Cache-Control"] as const;

const STOCK_DOCS =
  "Live stock (section 9.3 of the contract): each tracked variant's level lives in one Stock " +
  "Durable Object (shards by variant id, `STOCK_SHARDS`), outside catalog versions, so a change " +
  "needs no publish. A variant is tracked when the live catalog gives it an `inventory_quantity` " +
  "(`tracked_by: catalog`; a version without one ends it) or when the operator starts tracking it " +
  "with a `set` (`tracked_by: operator`, policy `deny`; only `track: false` ends it). A publish " +
  "writes a level only for a variant it newly tracks or whose quantity in the file differs from " +
  "what the last publish wrote (`catalog:publish --stock replace` writes them all); otherwise the " +
  "live level stays. A rollback never changes a level. For a tracked variant the level decides " +
  "everywhere. What is live: add to cart and checkout read the Stock object itself (an add " +
  "reads a variant the operator tracks once the overlay names it, within seconds). What is " +
  "cached: catalog answers (product, " +
  "variants, lists, collections, browse, facets) follow a change of availability within 10 s where " +
  "it was made and within the catalog freshness bound (about 61 s) everywhere.";

/** The OpenAPI description of src/routes/operator-stock.ts's operations, by operationId (never in the Worker bundle). */
export const OPERATOR_STOCK_DOCS = {
  changeStock: {
    summary: "Set or adjust stock levels",
    description:
      `${STOCK_DOCS}\n\n` +
      "A batch of 1 to 1,000 changes, each `set` (the on-hand level, 0–1,000,000,000), " +
      "`adjust` (add, or remove with a negative number) or `track: false`, applied in order. A " +
      "`set` on a variant live stock does not track starts tracking it (policy `deny`; the " +
      "change says `tracking: started`); `track: false` stops tracking the operator started " +
      "(`tracking: stopped`: the level goes, the catalog's `available` decides again). Every " +
      "variant is first checked: a variant the live catalog does not have, an `adjust` of a " +
      "variant live stock does not track (set a level first), or `track: false` on a variant " +
      "the live catalog tracks (publish a version without its quantity to stop it) is 400 " +
      "`parameter_invalid` naming each one (`param` names the first), and nothing is changed. " +
      "An `adjust` that would take a level beyond ±1,000,000,000 is 400 " +
      "`parameter_invalid` naming the change's index (`changes.<i>.adjust`), nothing changed. " +
      "With an `Idempotency-Key` (kept 7 days), a retry of the same batch replays it " +
      "(`Idempotent-Replayed: true` once every change had been applied); a batch cut short (a " +
      "timeout, a crash) completes when retried with the same key, and each change says whether " +
      "this request applied it (`now`) or an earlier try did (`earlier`). The same key with other " +
      "changes is 422. The body may be up to 128 KiB. The answer gives every change's level " +
      "before and after and each variant's live level. Every change is kept in the variant's " +
      "movement log (90 days).",
    tag: "Operator",
    auth: "operator",
    requestHeaders: [{ name: "Idempotency-Key", schema: IdempotencyKeySchema }],
    body: {
      schema: StockBatchRequestSchema,
      examples: {
        restock: {
          summary: "Restock one size, count another",
          value: {
            changes: [
              { variant_id: "44102938475615", adjust: 12 },
              { variant_id: "44102938475614", set: 4 },
            ],
          },
        },
      },
    },
    responses: {
      200: {
        description: "The changes applied and the new levels.",
        schema: StockBatchResultSchema,
        headers: [...NO_STORE, "Idempotent-Replayed"],
      },
      ...errors(
        ...OPERATOR_ERRORS,
        ...JSON_BODY_ERRORS,
        "parameter_unknown",
        "parameter_invalid",
        "parameter_missing",
        "idempotency_key_reused",
        "catalog_unavailable",
      ),
    },
  },
  stockStatus: {
    summary: "Live stock for the live catalog version",
    description:
      `${STOCK_DOCS}\n\nThe live version, the shard count, how many variants it tracks and what ` +
      "its publish did to live stock: levels written (newly tracked, or changed in the file), " +
      "kept live, and variants it stopped tracking (applied once per version, each shard's part " +
      "on its first stock call; this call applies every shard's part not applied yet, and waits " +
      "for it). A rollback's version applies nothing.",
    tag: "Operator",
    auth: "operator",
    responses: {
      200: { description: "The status.", schema: StockStatusSchema, headers: NO_STORE },
      ...errors(...OPERATOR_ERRORS),
    },
  },
  showStock: {
    summary: "A variant's live stock and movement log",
    description:
      `${STOCK_DOCS}\n\nThe variant's level (untracked when it has none), who tracks it, and its ` +
      "newest 50 movements (what changed it: `publish`, `operator` or `checkout`; `untrack` when " +
      "its tracking ended).",
    tag: "Operator",
    auth: "operator",
    params: z.strictObject({ variant_id: VariantIdInputSchema }),
    responses: {
      200: { description: "The level and movements.", schema: StockDetailSchema, headers: NO_STORE },
      ...errors(...OPERATOR_ERRORS, "parameter_invalid"),
    },
  },
} satisfies Record<string, OperationDoc>;
