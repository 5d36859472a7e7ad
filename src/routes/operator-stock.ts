import { Hono } from "hono";
import { IdempotencyKeySchema } from "../cart/api.ts";
import { variantDigits } from "../catalog/ids.ts";
import { CatalogStore, pointerTtlMs } from "../catalog/store.ts";
import type { AppEnv } from "../http/app-env.ts";
import { ApiError, catalogUnavailable, invalidRequest } from "../http/errors.ts";
import { noStore } from "../http/no-store.ts";
import { requireOperator } from "../http/operator-auth.ts";
import { validJson } from "../http/validate.ts";
import { describe } from "../openapi/describe.ts";
import { errors, JSON_BODY_ERRORS, TOKEN_ERRORS } from "../openapi/errors.ts";
import {
  levelView,
  type ShardChange,
  StockBatchRequestSchema,
  StockBatchResultSchema,
  StockDetailSchema,
  StockStatusSchema,
} from "../stock/api.ts";
import { batchFingerprint, stockStore } from "../stock/store.ts";
import * as z from "zod";

const NO_STORE = ["X-Request-Id", "Cache-Control"] as const;
/** A batch of 1,000 changes in the gid form with the widest numbers is about 90 KiB. */
export const STOCK_BATCH_MAX_BYTES = 128 * 1024;

const STOCK_DOCS =
  "Live stock (section 9.3 of the contract): each tracked variant's level lives in one Stock " +
  "Durable Object (shards by variant id, `STOCK_SHARDS`), outside catalog versions, so a change " +
  "needs no publish. A variant is tracked when the live catalog gives it an `inventory_quantity`; " +
  "each publish writes the file's levels once (a rollback does not reset them). What is live: add " +
  "to cart and checkout read the Stock object itself. What is cached: catalog answers (product, " +
  "variants, lists, collections, browse, facets) follow a change of availability within 10 s where " +
  "it was made and within the catalog freshness bound (about 61 s) everywhere.";

/**
 * The operator's stock surface, used by `npm run stock`. Behind OPERATOR_SECRET like the token
 * surface; every variant is checked against the live catalog before anything is applied.
 */
export const operatorStock = new Hono<AppEnv>()
  .use("*", noStore)
  .use("*", requireOperator)
  .post(
    "/",
    describe({
      operationId: "changeStock",
      summary: "Set or adjust stock levels",
      description:
        `${STOCK_DOCS}\n\n` +
        "A batch of 1 to 1,000 changes, each `set` (the on-hand level, 0–1,000,000,000) or " +
        "`adjust` (add, or remove with a negative number), applied in order. Every variant is " +
        "first checked against the live catalog: a variant it does not have, or whose stock it " +
        "does not track, is 400 `parameter_invalid` naming each one (`param` names the first), and " +
        "nothing is changed. An `adjust` that would take a level beyond ±1,000,000,000 is 400 " +
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
          ...TOKEN_ERRORS,
          ...JSON_BODY_ERRORS,
          "parameter_unknown",
          "parameter_invalid",
          "parameter_missing",
          "idempotency_key_reused",
          "catalog_unavailable",
        ),
      },
    }),
    validJson(StockBatchRequestSchema, STOCK_BATCH_MAX_BYTES),
    async (c) => {
      const body = c.req.valid("json");
      const key = c.req.header("idempotency-key");
      if (key !== undefined && !IdempotencyKeySchema.safeParse(key).success)
        throw invalidRequest(
          "parameter_invalid",
          "Idempotency-Key must be 1–255 printable ASCII characters.",
          "Idempotency-Key",
        );
      const catalog = new CatalogStore(c.env.CATALOG, { pointerTtlMs: pointerTtlMs(c.env.CATALOG_POINTER_TTL_MS) });
      const meta = await catalog.currentMeta();
      if (!meta) throw catalogUnavailable();
      const changes: ShardChange[] = body.changes.map((change, index) =>
        change.set !== undefined
          ? { index, variantId: variantDigits(change.variant_id), op: "set", value: change.set }
          : { index, variantId: variantDigits(change.variant_id), op: "adjust", value: change.adjust ?? 0 },
      );
      const found = await catalog.getVariants(meta.version, [...new Set(changes.map((ch) => ch.variantId))]);
      const unknown = changes.filter((ch) => !found.has(ch.variantId));
      const untracked = changes.filter((ch) => found.get(ch.variantId)?.tracked === false);
      if (unknown.length > 0 || untracked.length > 0) {
        const first = [...unknown, ...untracked].sort((a, b) => a.index - b.index)[0]!;
        const parts = [
          unknown.length > 0 &&
            `the live catalog has no variant ${unknown.map((ch) => `${ch.variantId} (changes.${ch.index})`).join(", ")}`,
          untracked.length > 0 &&
            `the live catalog does not track the stock of ${untracked
              .map((ch) => `${ch.variantId} (changes.${ch.index})`)
              .join(", ")} (publish it with an inventory_quantity)`,
        ].filter(Boolean);
        throw invalidRequest(
          "parameter_invalid",
          `Nothing changed: ${parts.join("; ")}.`,
          `changes.${first.index}.variant_id`,
        );
      }
      const stock = stockStore(c.env);
      // The version's published levels first, so a late publish sync never overwrites this batch.
      await stock.ensureSynced(meta);
      const fingerprint = await batchFingerprint(changes);
      const batchId = `op:${key ?? crypto.randomUUID()}`;
      const outcome = await stock.apply(batchId, fingerprint, "operator", changes);
      if (!outcome.ok) {
        if (outcome.code === "idempotency_key_reused")
          throw new ApiError(422, {
            type: "idempotency_error",
            code: "idempotency_key_reused",
            message: "This Idempotency-Key was used with a different batch.",
          });
        const change = changes[outcome.index];
        throw invalidRequest(
          "parameter_invalid",
          outcome.message,
          `changes.${outcome.index}.${change?.op ?? "adjust"}`,
        );
      }
      if (outcome.applied.every((a) => a.replayed)) c.header("Idempotent-Replayed", "true");
      return c.json(
        {
          object: "stock_batch" as const,
          changes: outcome.applied.map((a) => ({
            index: a.index,
            variant_id: a.variant_id,
            previous: a.previous,
            quantity: a.quantity,
            applied: a.replayed ? ("earlier" as const) : ("now" as const),
          })),
          levels: outcome.levels.map(levelView),
        },
        200,
      );
    },
  )
  .get(
    "/",
    describe({
      operationId: "stockStatus",
      summary: "Live stock for the live catalog version",
      description:
        `${STOCK_DOCS}\n\nThe live version, the shard count, how many variants it tracks and how ` +
        "many levels its publish changed in live stock (written on the version's first stock read " +
        "or change; this call writes them if nothing has yet).",
      tag: "Operator",
      auth: "operator",
      responses: {
        200: { description: "The status.", schema: StockStatusSchema, headers: NO_STORE },
        ...errors(...TOKEN_ERRORS),
      },
    }),
    async (c) => {
      const stock = stockStore(c.env);
      const meta = await new CatalogStore(c.env.CATALOG).currentMeta();
      const sync = meta?.stock_tracked ? await stock.coordinator().syncVersion(meta.version) : null;
      if (meta) await stock.ensureSynced(meta);
      return c.json(
        {
          object: "stock_status" as const,
          catalog_version: meta?.version ?? null,
          shards: stock.shards,
          tracked: meta?.stock_tracked ?? 0,
          changed_by_publish: sync?.changed ?? 0,
        },
        200,
      );
    },
  )
  .get(
    "/:variant_id",
    describe({
      operationId: "showStock",
      summary: "A variant's live stock and movement log",
      description:
        `${STOCK_DOCS}\n\nThe variant's level (untracked when no level was ever written) and its ` +
        "newest 50 movements (what changed it: `publish`, `operator` or `checkout`).",
      tag: "Operator",
      auth: "operator",
      params: z.strictObject({ variant_id: z.string().meta({ description: "`<digits>` or the variant's gid." }) }),
      responses: {
        200: { description: "The level and movements.", schema: StockDetailSchema, headers: NO_STORE },
        ...errors(...TOKEN_ERRORS, "parameter_invalid"),
      },
    }),
    async (c) => {
      const id = variantDigits(decodeURIComponent(c.req.param("variant_id")));
      if (!/^\d{1,20}$/.test(id))
        throw invalidRequest("parameter_invalid", "A variant id is digits or its gid.", "variant_id");
      const stock = stockStore(c.env);
      const meta = await new CatalogStore(c.env.CATALOG).currentMeta();
      if (meta) await stock.ensureSynced(meta);
      const [level, movements] = await Promise.all([stock.level(id), stock.movements(id, 50, true)]);
      return c.json(
        {
          object: "stock" as const,
          level: levelView(level),
          movements: movements.map(({ variant_id: _, at, ...m }) => ({ ...m, at: new Date(at).toISOString() })),
        },
        200,
      );
    },
  );
